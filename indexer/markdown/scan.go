package markdown

import (
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// The scanner is line based on purpose: ctx needs exact line numbers for
// every heading and chunk, and a full CommonMark parse of 6,000 files costs
// more than the whole index build may take. It follows CommonMark where it
// matters for structure: ATX headings (at most three spaces of indent, "#"
// followed by a space or the end of the line, closing #s removed), setext
// headings (a paragraph underlined with = or -), fenced code (``` and ~~~,
// closed by the same character at least as long) and HTML comment blocks;
// headings inside fences and comments are text.

var (
	atxRE    = lazyre.New(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$`)
	atxEndRE = lazyre.New(`(?:^|[ \t]+)#+$`)
	fenceRE  = lazyre.New("^ {0,3}(`{3,}|~{3,})(.*)$")
	setextRE = lazyre.New(`^ {0,3}(=+|-+)[ \t]*$`)
	listRE   = lazyre.New(`^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)`)
)

// afterIndent returns l without its leading spaces, and whether they were
// at most three: the indent a block's first character may have. The
// block regexps are tried only on a line whose first character after it
// can start their block (fenceLine, atxLine, setextLine; a regexp for
// every line was a tenth of parsing a document).
func afterIndent(l string) (string, bool) {
	t := strings.TrimLeft(l, " ")
	return t, len(l)-len(t) <= 3
}

// fenceLine is fenceRE's submatches of l, whose text after its indent is t.
func fenceLine(t string, indent3 bool, l string) []string {
	if !indent3 || !strings.HasPrefix(t, "```") && !strings.HasPrefix(t, "~~~") {
		return nil
	}
	return fenceRE().FindStringSubmatch(l)
}

// opensFence is the character and length of the fence l opens (t is l
// after its indent, indent3 whether that is at most three spaces): ``` or
// ~~~ or longer, a backtick fence's info string holding no backtick; n is
// 0 when l opens none.
func opensFence(t string, indent3 bool, l string) (ch byte, n int) {
	if m := fenceLine(t, indent3, l); m != nil && (m[1][0] == '~' || !strings.Contains(m[2], "`")) {
		return m[1][0], len(m[1])
	}
	return 0, 0
}

// closesFence reports whether l closes a block opened by n of ch: at
// most three spaces, at least n of ch, nothing else but blanks.
func closesFence(l string, ch byte, n int) bool {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 {
		return false
	}
	k := 0
	for k < len(t) && t[k] == ch {
		k++
	}
	return k >= n && strings.TrimSpace(t[k:]) == ""
}

// OpenFence is the fence ("```", "~~~~": its character as many times as
// opened it) of the fenced code block a reader of a markdown document is
// still inside after its line (1-based), as Scan reads blocks: "" when
// the line is outside code or closes its block, and for other formats.
// read_relevant closes a passage cut inside a block and opens one that
// starts inside it (agent22: a part that ended in an open block made the
// next passage's header read as code).
func (d Doc) OpenFence(line int) string {
	if d.Format != FormatMarkdown && d.Format != "" {
		return ""
	}
	k := d.Body.Kinds
	i := line - 1 - d.FrontMatter.End
	if i < 0 || i >= len(k) || k[i] != Code {
		return ""
	}
	start := i
	for start > 0 && k[start-1] == Code {
		start--
	}
	body := d.Lines[d.FrontMatter.End:]
	var ch byte
	n := 0
	for j := start; j <= i; j++ {
		if n > 0 {
			if closesFence(body[j], ch, n) {
				n = 0
			}
			continue
		}
		t, indent3 := afterIndent(body[j])
		ch, n = opensFence(t, indent3, body[j])
	}
	return strings.Repeat(string(ch), n)
}

// atxLine is atxRE's submatches of l, whose text after its indent is t.
func atxLine(t string, indent3 bool, l string) []string {
	if !indent3 || !strings.HasPrefix(t, "#") {
		return nil
	}
	return atxRE().FindStringSubmatch(l)
}

// setextLine is setextRE's submatches of l, whose text after its indent is
// t.
func setextLine(t string, indent3 bool, l string) []string {
	if !indent3 || !strings.HasPrefix(t, "=") && !strings.HasPrefix(t, "-") {
		return nil
	}
	return setextRE().FindStringSubmatch(l)
}

// Kind classifies one body line.
type Kind uint8

const (
	Text        Kind = iota
	Blank            // only white space (outside code)
	Code             // inside a fenced code block, or its fence lines
	Comment          // inside an HTML comment block
	HeadingLine      // an ATX heading, or the first text line of a setext heading
	HeadingCont      // further lines of a setext heading, and its underline
)

// Body is the structure of a document body.
type Body struct {
	Kinds    []Kind    // one per line
	Headings []Heading // Line is 0-based into the scanned lines
}

// Scan classifies lines (a document body, after its front matter). Only
// the structure is computed; no text is copied.
func Scan(lines []string) Body {
	s := Body{Kinds: make([]Kind, len(lines))}
	var fenceChar byte
	fenceLen := 0
	inComment := false
	paraStart := -1 // first line of the current paragraph that may become a setext heading
	for i, l := range lines {
		if fenceLen > 0 {
			s.Kinds[i] = Code
			if closesFence(l, fenceChar, fenceLen) {
				fenceLen = 0
			}
			continue
		}
		if inComment {
			s.Kinds[i] = Comment
			if strings.Contains(l, "-->") {
				inComment = false
			}
			continue
		}
		if strings.TrimSpace(l) == "" {
			s.Kinds[i] = Blank
			paraStart = -1
			continue
		}
		t, indent3 := afterIndent(l)
		if ch, n := opensFence(t, indent3, l); n > 0 {
			fenceChar, fenceLen = ch, n
			s.Kinds[i] = Code
			paraStart = -1
			continue
		}
		if indent3 && strings.HasPrefix(t, "<!--") {
			s.Kinds[i] = Comment
			if !strings.Contains(t[4:], "-->") {
				inComment = true
			}
			paraStart = -1
			continue
		}
		if m := atxLine(t, indent3, l); m != nil {
			text, _ := StripHeadingID(strings.TrimSpace(atxEndRE().ReplaceAllString(m[2], "")))
			s.Kinds[i] = HeadingLine
			s.Headings = append(s.Headings, Heading{Level: len(m[1]), Text: strings.TrimSpace(text), Line: i})
			paraStart = -1
			continue
		}
		if paraStart >= 0 {
			if m := setextLine(t, indent3, l); m != nil {
				level := 1
				if m[1][0] == '-' {
					level = 2
				}
				parts := make([]string, 0, i-paraStart)
				for j := paraStart; j < i; j++ {
					parts = append(parts, strings.TrimSpace(lines[j]))
					s.Kinds[j] = HeadingCont
				}
				s.Kinds[paraStart] = HeadingLine
				s.Kinds[i] = HeadingCont
				text, _ := StripHeadingID(strings.Join(parts, " "))
				s.Headings = append(s.Headings, Heading{Level: level, Text: text, Line: paraStart})
				paraStart = -1
				continue
			}
		}
		s.Kinds[i] = Text
		if paraStart < 0 && setextCandidate(l) {
			paraStart = i
		}
	}
	return s
}

// setextCandidate reports whether l can start a paragraph (and so a setext
// heading): not a list item, quote, table row, HTML or indented code.
func setextCandidate(l string) bool {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) >= 4 || strings.HasPrefix(l, "\t") {
		return false
	}
	if len(t) > 0 && (strings.IndexByte("-*+", t[0]) >= 0 || '0' <= t[0] && t[0] <= '9') && listRE().MatchString(l) {
		return false
	}
	switch t[0] {
	case '>', '|', '<':
		return false
	}
	return true
}
