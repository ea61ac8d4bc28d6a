package indexer

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/lazyre"
)

// Navigation chunks (issue 27). A documentation site's index pages,
// tables of contents (SUMMARY.md, a KEP's "Table of Contents"), Sphinx
// toctrees, "See also" blocks and the cards of an MDX index page are
// lists of links to other pages: they name every topic of the pages they
// link to, so a question finds them as readily as the page it is about,
// and they answer nothing. navChunk recognises such a chunk at index time;
// it is indexed (fNav) and ranked at navPrior of its score
// (bench/relevance/README.md: better on three of the four sets, worse on
// none).

// navTerm is fNav's value in a navigation chunk.
const navTerm = "1"

// navPrior multiplies the score of a navigation chunk (navChunk).
const navPrior = 0.5

// navMinLinks and navShare: a chunk is navigation when at least
// navMinLinks of its lines, and at least navShare of its lines that are
// not headings, markup or blank, are links (navLinkLine).
const (
	navMinLinks = 3
	navShare    = 0.6
	// navWordsPerLink is how many words a link line may have outside its
	// links, per link ("[Installation](install.md): get it running").
	navWordsPerLink = 3
)

var (
	// navLinkREs match a link as the formats other than rst write it,
	// each tried on a line that has its trigger (one regular expression
	// of all of them cost a third of a full build): markdown inline and
	// reference links; autolinks, AsciiDoc <<anchor,text>> cross
	// references and an HTML or JSX tag with an href (<a href=…>,
	// <Card href=… />); AsciiDoc link:, linkgit: and xref: macros. An rst
	// page's links are its reader's (navRST).
	navLinkREs = []struct {
		trigger string
		re      func() *regexp.Regexp
	}{
		{"[", lazyre.New(`!?\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])`)},
		{"<", lazyre.New(`<https?://[^>\s]+>|<<[^>]+>>|<[A-Za-z][\w.]*\s[^<>]*href\s*=[^<>]*>`)},
		{":", lazyre.New(`(?:link|linkgit|xref):[^\s\[]+\[[^\]]*\]`)},
	}
	// navTagRE matches an HTML or JSX tag (closing tags too).
	navTagRE = lazyre.New(`</?[A-Za-z][\w.]*(?:\s[^<>]*)?/?>`)
	// navListRE matches a markdown list item's marker (navLinkLine; an rst
	// page's are its reader's, markdown.RSTLine.Item).
	navListRE = lazyre.New(`^(?:[-*+]|\d+[.)]|#\.)\s+`)
)

// navChunk reports whether text (a chunk's lines as written) is
// navigation: mostly lines that are links (navLinkLine) or a toctree's
// entries. Headings, blank lines, lines of markup only (<Cards>, </ul>,
// <!-- … -->) and code fences do not count; lines of fenced code count as
// text.
func navChunk(text string) bool {
	if !navMaybe(text) {
		return false
	}
	lines, links := 0, 0
	prevCounted, prevLink := false, false // the line before, for an underline
	fence := ""
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			} else {
				lines++
			}
			prevCounted = false
			continue
		}
		switch {
		case t == "":
			prevCounted = false
			continue
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:3]
			prevCounted = false
			continue
		case strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "#."):
			prevCounted = false // a markdown heading
			continue
		case navUnderline(t):
			if prevCounted { // the line above was a heading
				lines--
				if prevLink {
					links--
				}
			}
			prevCounted = false
			continue
		}
		link, markup := navLinkLine(t)
		if markup {
			prevCounted = false
			continue
		}
		lines++
		if link {
			links++
		}
		prevCounted, prevLink = true, link
	}
	return navDense(links, lines)
}

// navDense reports whether a chunk of lines counted lines, links of them
// link lines, is navigation.
func navDense(links, lines int) bool {
	return links >= navMinLinks && float64(links) >= navShare*float64(lines)
}

// markNav sets each chunk's nav: navRST of its lines for an rst page (rst,
// the page's lines as its reader sees them: markdown.Doc.RST), navChunk
// of its text for the other formats (rst nil).
//
// An rst chunk's nav is decided once per distinct line range: the pieces
// of one long line (boundChunks) share their range, and navRST reads the
// whole range, so judging each piece alone is quadratic in the line.
func markNav(cs []chunk, rst []markdown.RSTLine) {
	type span struct{ start, end int }
	seen := map[span]bool{}
	for i, c := range cs {
		if rst == nil {
			cs[i].nav = navChunk(c.Text)
			continue
		}
		if c.Start < 1 || c.Start > c.End || c.End > len(rst) {
			continue
		}
		k := span{c.Start, c.End}
		nav, ok := seen[k]
		if !ok {
			nav = navRST(rst[c.Start-1 : c.End])
			seen[k] = nav
		}
		cs[i].nav = nav
	}
}

// navWork, when a test sets it, counts navRST's steps (lines and the
// bytes of their shown text), so that a test bounds markNav's work per
// byte of the page without a clock (TestMarkNavLinearWork). Nil
// otherwise; set only by a test that does not run in parallel.
var navWork *int

// navRST is navChunk for the lines of an rst page as its reader sees them
// (markdown.readRST, the one owner of rst's rules). A toctree's marker and
// entries are link lines. The other lines that show something or hold
// references count in text blocks (a paragraph's lines, a list item's,
// a directive's head and the lines that continue it, as the reader marks
// them: markdown.RSTLine.Cont, and a list item's start, RSTLine.Item;
// each other line of markup or code alone): a block's lines are link
// lines when its references lead elsewhere (markdown.RSTRef.Leads) and
// its words outside them (and a list item's marker) are at most
// navWordsPerLink per reference (a paragraph wrapped so that references
// start its lines is prose, not a list of links). Titles,
// blank lines and markup that shows nothing (a directive's options,
// comments, hyperlink targets, substitution definitions, docinfo) do not
// count; code counts as text unless it holds references (a
// parsed-literal synopsis whose lines link to the page's sections). A
// chunk whose counted lines are all a toctree's is navigation however
// short (a section that is one toctree). A ":hidden:" toctree does not
// count: a reader of the page sees nothing of it.
func navRST(rst []markdown.RSTLine) bool {
	lines, links, toc := 0, 0, 0
	if navWork != nil {
		for _, l := range rst {
			*navWork += 1 + len(l.Shown)
		}
	}
	for i := 0; i < len(rst); {
		l := rst[i]
		if navTOC(l) {
			lines++
			links++
			toc++
			i++
			continue
		}
		if !navShows(l) {
			i++
			continue
		}
		j := i + 1
		for j < len(rst) && rst[j].Item == "" && (rst[j].Cont || l.Kind == markdown.RSTProse && rst[j].Kind == l.Kind) {
			j++
		}
		lines += j - i
		if navRSTLinks(rst[i:j]) {
			links += j - i
		}
		i = j
	}
	return navDense(links, lines) || toc > 0 && toc == lines
}

// navTOC reports whether l is a toctree's marker or entry, of a toctree
// the page shows (not ":hidden:", markdown.RSTLine.Hidden).
func navTOC(l markdown.RSTLine) bool {
	if l.Hidden {
		return false
	}
	return l.Entry || l.Kind == markdown.RSTMarkup && l.Directive == "toctree" && !l.Option
}

// navShows reports whether l counts for navRST: text, code, or markup that
// shows something or holds references (an admonition's title, a
// "seealso::" with its references on its marker line).
func navShows(l markdown.RSTLine) bool {
	if l.Hidden {
		return false // a hidden toctree: the page shows nothing of it
	}
	switch l.Kind {
	case markdown.RSTProse, markdown.RSTCode:
		return true
	case markdown.RSTMarkup:
		// Outside a directive the only markup lines that show text are a
		// substitution definition's replacement text, which does not count;
		// a toctree's options (its :caption:) do not either.
		if l.Directive == "" || l.Directive == "toctree" && l.Option {
			return false
		}
		return len(l.Refs) > 0 || strings.TrimSpace(l.Shown) != ""
	}
	return false
}

// navRSTLinks reports whether the text block ls is links: references that
// lead elsewhere, and outside their text (and list markers) at most
// navWordsPerLink words per reference.
func navRSTLinks(ls []markdown.RSTLine) bool {
	n, words := 0, 0
	for _, l := range ls {
		for _, r := range l.Refs {
			if r.Leads() {
				n++
				words -= navWords(r.Text)
			}
		}
		// Not the list marker the reader found (Item), which starts the
		// item's shown text.
		words += navWords(strings.TrimPrefix(strings.TrimSpace(l.Shown), l.Item))
	}
	return n > 0 && words <= navWordsPerLink*n
}

// navWords counts the words of s that hold a letter or a digit.
func navWords(s string) int {
	words := 0
	for _, w := range strings.Fields(s) {
		if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			words++
		}
	}
	return words
}

// navUnderline reports whether t (trimmed) is a setext (or AsciiDoc) title's
// underline: three or more of one punctuation character.
func navUnderline(t string) bool {
	if len(t) < 3 || !strings.ContainsRune("=-~^\"'*+#`:.", rune(t[0])) {
		return false
	}
	return strings.Count(t, t[:1]) == len(t)
}

// navMaybeLink reports whether line may hold a link of navLinkREs.
func navMaybeLink(line string) bool {
	for _, m := range [...]string{"](", "][", "<http", "<<", "href", "link:", "linkgit:", "xref:"} {
		if strings.Contains(line, m) {
			return true
		}
	}
	return false
}

// navMaybe is a bound of navChunk without its regular expressions: false
// when too few lines could be links for text to be navigation (most
// chunks of prose and code).
func navMaybe(text string) bool {
	lines, maybe := 0, 0
	for l := range strings.SplitSeq(text, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case t == "":
		case t[0] == '#' || t[0] == '<' || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			// headings and markup do not count; a tag may be a link
			if t[0] == '<' {
				maybe++
			}
		case navUnderline(t):
			lines-- // the line above is a heading
		default:
			lines++
			if navMaybeLink(t) {
				maybe++
			}
		}
	}
	return maybe >= navMinLinks && float64(maybe) >= navShare*float64(lines)
}

// navLinkLine reports whether line (trimmed) is a link line: it has a
// link, and outside its links (and a list marker) at most navWordsPerLink
// words per link; markup when it is only tags or an HTML comment.
func navLinkLine(line string) (link, markup bool) {
	if strings.HasPrefix(line, "<!--") {
		return false, true
	}
	if !navMaybeLink(line) && !strings.Contains(line, "<") {
		return false, false // no link, no tag: the regular expressions below are the cost
	}
	rest := line
	if strings.IndexAny(line[:1], "-*+#0123456789") == 0 {
		rest = navListRE().ReplaceAllString(line, "")
	}
	rest = strings.TrimLeft(rest, "> ") // a quote's marker
	n := 0
	outside := rest
	for _, l := range navLinkREs {
		if strings.Contains(outside, l.trigger) {
			outside = l.re().ReplaceAllStringFunc(outside, func(string) string {
				n++
				return " "
			})
		}
	}
	hasTag := strings.Contains(outside, "<") && navTagRE().MatchString(outside)
	if hasTag {
		outside = navTagRE().ReplaceAllString(outside, " ")
	}
	words := navWords(outside)
	if n == 0 {
		return false, words == 0 && hasTag
	}
	return words <= navWordsPerLink*n, false
}
