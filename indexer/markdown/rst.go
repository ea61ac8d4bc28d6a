package markdown

import "strings"

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
