package markdown

import (
	"strings"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// reStructuredText section titles, as docutils reads them: a title line
// underlined with a line of one repeated punctuation character, or over-
// and underlined with the same line; the underline at least as long as the
// title or at least four characters. The title starts a block: the file's
// first line, or after a blank line or another title. Each style (the
// character, and whether there is an overline) is a level, in the order
// the styles first appear. Explicit markup (".. directive::", comments)
// and literal blocks (the indented block after a "::" paragraph) are Code
// and hold no titles; an underline-style title is never indented.

// rstAdornChars are the characters docutils accepts in an adornment.
const rstAdornChars = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// rstAdornment returns the adornment character of l ("-" for "-----"), or
// 0 when l is not an adornment line: one repeated punctuation character
// from the first column, trailing space allowed.
func rstAdornment(l string) byte {
	l = strings.TrimRight(l, " \t")
	if l == "" || strings.IndexByte(rstAdornChars, l[0]) < 0 {
		return 0
	}
	for i := 1; i < len(l); i++ {
		if l[i] != l[0] {
			return 0
		}
	}
	return l[0]
}

// longEnough reports whether an adornment of n characters can mark a title
// of width w: docutils takes a shorter one (with a warning) when it has at
// least four characters.
func longEnough(n, w int) bool { return n >= w || n >= 4 }

func scanRST(lines []string) Body {
	b := Body{Kinds: make([]Kind, len(lines))}
	type style struct {
		c    byte
		over bool
	}
	var styles []style
	level := func(s style) int {
		for i, e := range styles {
			if e == s {
				return i + 1
			}
		}
		styles = append(styles, s)
		return len(styles)
	}
	blank := func(i int) bool { return i < 0 || i >= len(lines) || strings.TrimSpace(lines[i]) == "" }
	indented := func(l string) bool { return l != "" && (l[0] == ' ' || l[0] == '\t') }
	width := func(l string) int { return utf8.RuneCountInString(strings.TrimSpace(l)) }
	literal := false // in an indented block after "::" or an explicit markup start
	atStart := true  // a title may start here: the first line, after a blank line or a title
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if blank(i) {
			b.Kinds[i] = Blank
			atStart = true
			continue
		}
		if literal {
			if indented(l) {
				b.Kinds[i] = Code
				atStart = false
				continue
			}
			literal = false
		}
		start := atStart
		atStart = false
		// Overline, title, underline: the same adornment above and below.
		if c := rstAdornment(l); c != 0 && start && i+2 < len(lines) && !blank(i+1) && rstAdornment(lines[i+1]) == 0 &&
			strings.TrimRight(lines[i+2], " \t") == strings.TrimRight(l, " \t") && longEnough(len(strings.TrimRight(l, " \t")), width(lines[i+1])) {
			b.Kinds[i], b.Kinds[i+1], b.Kinds[i+2] = HeadingCont, HeadingLine, HeadingCont
			b.Headings = append(b.Headings, Heading{Level: min(level(style{c, true}), 6), Text: rstRoles(strings.TrimSpace(lines[i+1])), Line: i})
			i += 2
			atStart = true
			continue
		}
		// Title, underline.
		if start && !indented(l) && rstAdornment(l) == 0 && i+1 < len(lines) {
			if c := rstAdornment(lines[i+1]); c != 0 {
				if longEnough(len(strings.TrimRight(lines[i+1], " \t")), width(l)) {
					b.Kinds[i], b.Kinds[i+1] = HeadingLine, HeadingCont
					b.Headings = append(b.Headings, Heading{Level: min(level(style{c, false}), 6), Text: rstRoles(strings.TrimSpace(l)), Line: i})
					i++
					atStart = true
					continue
				}
			}
		}
		t := strings.TrimRight(l, " \t")
		if !indented(l) && (t == ".." || strings.HasPrefix(t, ".. ")) {
			// Explicit markup: a directive, comment, target or footnote,
			// and its indented body.
			b.Kinds[i] = Code
			literal = true
			continue
		}
		b.Kinds[i] = Text
		if strings.HasSuffix(t, "::") {
			literal = true
		}
	}
	return b
}

var (
	// rstDirectiveRE matches an explicit markup start that opens a
	// directive (".. note::", ".. py:function:: f(x)"; a Sphinx domain's
	// name has colons) or a substitution definition (".. |name| replace::
	// text"): the type, the substitution's name, the arguments.
	rstDirectiveRE = lazyre.New(`^\.\.[ \t]+(?:\|([^|]+)\|[ \t]+)?([\w][\w:.+-]*)::(?:[ \t]+(.*))?$`)
	// rstFootnoteRE matches a footnote's or a citation's start: ".. [1]",
	// ".. [#]", ".. [#note]", ".. [CIT2002]".
	rstFootnoteRE = lazyre.New(`^\.\.[ \t]+\[(?:#?[\w-]*|\*)\](?:[ \t]+(.*))?$`)
	// rstTargetLineRE matches a hyperlink target: ".. _label:", ".. _name:
	// https://…", ".. __: …", "__ https://…" (anonymous).
	rstTargetLineRE = lazyre.New("^(?:\\.\\.[ \\t]+_(?:`[^`]*`|[^:]|\\\\:)*:(?:[ \\t].*)?|__(?:[ \\t].*)?)$")
	// rstFieldRE matches a field list item: ":name: value".
	rstFieldRE = lazyre.New(`^:[^:\s][^:]*:(?:[ \t]+(.*))?$`)
	// rstRefRE matches an inline hyperlink reference with an embedded
	// URI or alias, "`text <https://…>`_" (or "__"): the reader sees the
	// text.
	rstRefRE = lazyre.New("`([^`<]*[^`<\\s])\\s*<[^<>`]+>`__?")
)

// rstArgNotText are the directives whose argument is a path, a URI, a
// language or class names, which the page does not show as text
// (docutils' and Sphinx's); other directives' arguments (an admonition's
// or a topic's title, a signature, a version) are shown.
var rstArgNotText = map[string]bool{
	"image": true, "figure": true, "include": true, "literalinclude": true, "raw": true,
	"code": true, "code-block": true, "sourcecode": true, "highlight": true,
	"container": true, "class": true, "role": true, "default-role": true, "only": true,
	"tabularcolumns": true,
}

// RSTProse returns the text a reader of rst document lines (Doc.Lines)
// sees on each line, for search to index: one string per line, "" for a
// line that is only markup. By docutils' reStructuredText spec (explicit
// markup blocks, field lists, interpreted text):
//   - a comment (".. anything else", with its indented block) and a
//     hyperlink target (".. _label:", ".. _name: URI", "__ URI") are not
//     shown: "";
//   - a directive's ".. type::" marker goes, its argument stays (an
//     admonition's title, a signature, a version), except a path, URI or
//     language (rstArgNotText); its options (the field list right after
//     it) go, but for a ":caption:", which is shown; its content is read
//     as rst (a directive may hold directives);
//   - a substitution definition keeps its replacement text
//     (".. |name| replace:: text" is "text"), other substitutions go;
//   - a footnote or citation keeps its text;
//   - a field list that opens the document (docinfo, Sphinx's file-wide
//     ":orphan:", ":tocdepth: 2") goes;
//   - on every line, interpreted text with a role is what Sphinx shows
//     (rstRoles: ":ref:`text <label>`" is "text"), and an inline
//     hyperlink "`text <URI>`_" is "text".
//
// An empty comment ("..") is one line: the indented block after it is a
// block quote, text (the spec).
func RSTProse(lines []string) []string {
	out := make([]string, len(lines))
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }
	blank := func(l string) bool { return strings.TrimSpace(l) == "" }
	docinfo := true // before the document's first non-field block
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if docinfo {
			if indent(l) == 0 && rstFieldRE().MatchString(t) {
				for i+1 < len(lines) && !blank(lines[i+1]) && (indent(lines[i+1]) > 0 || rstFieldRE().MatchString(strings.TrimSpace(lines[i+1]))) {
					i++ // the field list, its values' further lines
				}
				continue
			}
			docinfo = false
		}
		if !strings.HasPrefix(t, "..") && !strings.HasPrefix(t, "__ ") && t != "__" {
			out[i] = rstInline(l)
			continue
		}
		// An explicit markup start: its block is the lines indented more
		// than the marker, blank lines between them included.
		at := indent(l)
		end := i + 1 // one past the block's last line
		for j := i + 1; j < len(lines); j++ {
			if blank(lines[j]) {
				continue
			}
			if indent(lines[j]) <= at {
				break
			}
			end = j + 1
		}
		switch {
		case t == "..":
			continue // an empty comment: its line only
		case rstTargetLineRE().MatchString(t):
			i = end - 1
			continue
		case rstFootnoteRE().MatchString(t):
			out[i] = rstInline(rstFootnoteRE().FindStringSubmatch(t)[1])
			for j := i + 1; j < end; j++ {
				out[j] = rstInline(lines[j])
			}
			i = end - 1
			continue
		}
		m := rstDirectiveRE().FindStringSubmatch(t)
		if m == nil { // a comment
			i = end - 1
			continue
		}
		subst, typ, arg := m[1], m[2], m[3]
		switch {
		case subst != "" && typ == "replace":
			out[i] = rstInline(arg)
		case subst != "":
			i = end - 1 // an image, a date, a Unicode character: not text
			continue
		case !rstArgNotText[typ]:
			out[i] = rstInline(arg)
		}
		// The argument's further lines, then the options, up to the first
		// blank line; then the content.
		j := i + 1
		options := false
		for ; j < end && !blank(lines[j]); j++ {
			f := strings.TrimSpace(lines[j])
			if rstFieldRE().MatchString(f) {
				options = true
				if strings.HasPrefix(f, ":caption:") {
					out[j] = rstInline(strings.TrimSpace(strings.TrimPrefix(f, ":caption:")))
				}
				continue
			}
			if !options && (subst != "" || !rstArgNotText[typ]) {
				out[j] = rstInline(lines[j])
			}
		}
		i = j - 1 // the content is rst: the lines that follow are read as any
	}
	return out
}

// rstInline is a line of rst prose as a reader sees it: roles reduced
// (rstRoles), inline hyperlinks' URIs dropped.
func rstInline(l string) string {
	if strings.IndexByte(l, '`') < 0 {
		return l
	}
	if strings.IndexByte(l, '<') >= 0 {
		l = rstRefRE().ReplaceAllString(l, "$1")
	}
	return rstRoles(l)
}
