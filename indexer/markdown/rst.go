package markdown

import (
	"strings"
	"unicode/utf8"
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
