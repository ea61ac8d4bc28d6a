package indexer

import (
	"regexp"
	"strings"
	"unicode"
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
	// navLinkRE matches a link as the formats write it: markdown inline
	// and reference links and autolinks; rst roles (:doc:, :ref:) and
	// hyperlink references (`text <url>`_, `name`_); AsciiDoc link:,
	// linkgit:, xref: macros and <<anchor,text>> cross references; an
	// HTML or JSX tag with an href (<a href=…>, <Card href=… />).
	navLinkRE = regexp.MustCompile(
		`!?\[[^\]]*\]\([^)]*\)|!?\[[^\]]*\]\[[^\]]*\]|<https?://[^>\s]+>` +
			"|:(?:doc|ref|any|term):`[^`]*`|`[^`]+`__?" +
			`|\b(?:link|linkgit|xref):[^\s\[]+\[[^\]]*\]|<<[^>]+>>` +
			`|<[A-Za-z][\w.]*\s[^<>]*\bhref\s*=[^<>]*>`)
	// navTagRE matches an HTML or JSX tag (closing tags too).
	navTagRE = regexp.MustCompile(`</?[A-Za-z][\w.]*(?:\s[^<>]*)?/?>`)
	// navListRE matches a list item's marker.
	navListRE = regexp.MustCompile(`^(?:[-*+]|\d+[.)]|#\.)\s+`)
	// navUnderlineRE matches an rst or setext heading's underline.
	navUnderlineRE = regexp.MustCompile(`^([=\-~^"'*+#` + "`" + `:.])(?:\s*[=\-~^"'*+#` + "`" + `:.])*$`)
)

// navChunk reports whether text (a chunk's lines as written) is
// navigation: mostly lines that are links (navLinkLine) or a toctree's
// entries. Headings, blank lines, lines of markup only (<Cards>, </ul>,
// <!-- … -->) and code fences do not count; lines of fenced code count as
// text.
func navChunk(text string) bool {
	lines, links := 0, 0
	prevCounted, prevLink := false, false // the line before, for an underline
	fence, toctree := "", false
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
		if toctree {
			if t == "" || l[0] == ' ' || l[0] == '\t' {
				if t != "" {
					lines++
					links++
				}
				continue
			}
			toctree = false
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
		case len(t) >= 3 && navUnderlineRE.MatchString(t):
			if prevCounted { // the line above was a heading
				lines--
				if prevLink {
					links--
				}
			}
			prevCounted = false
			continue
		case strings.HasPrefix(t, ".. toctree::"):
			toctree = true
			lines++
			links++
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
	return links >= navMinLinks && float64(links) >= navShare*float64(lines)
}

// navLinkLine reports whether line (trimmed) is a link line: it has a
// link, and outside its links (and a list marker) at most navWordsPerLink
// words per link; markup when it is only tags or an HTML comment.
func navLinkLine(line string) (link, markup bool) {
	if strings.HasPrefix(line, "<!--") {
		return false, true
	}
	rest := navListRE.ReplaceAllString(line, "")
	rest = strings.TrimLeft(rest, "> ") // a quote's marker
	n := 0
	outside := navLinkRE.ReplaceAllStringFunc(rest, func(string) string {
		n++
		return " "
	})
	outside = navTagRE.ReplaceAllString(outside, " ")
	words := 0
	for _, w := range strings.Fields(outside) {
		if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			words++
		}
	}
	if n == 0 {
		return false, words == 0 && navTagRE.MatchString(rest)
	}
	return words <= navWordsPerLink*n, false
}
