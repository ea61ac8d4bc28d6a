package markdown

import (
	"cmp"
	"slices"
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

// closesFence reports whether l closes a block opened by n of ch inside
// list items whose content starts at column w (0 outside lists): at most
// w+3 columns of indent, at least n of ch, nothing else but blanks. A
// closing fence less indented than its item's content closes it too
// (CommonMark would end the item there and read the fence as the opening
// of another block, making the rest of the page code: a document that
// does this means the fence as the close).
func closesFence(l string, ch byte, n, w int) bool {
	cols, at := indentOf(l)
	if cols > w+3 {
		return false
	}
	t := l[at:]
	k := 0
	for k < len(t) && t[k] == ch {
		k++
	}
	return k >= n && strings.TrimSpace(t[k:]) == ""
}

// Fence is a fenced code block of a markdown body, as Scan reads it:
// Open and Close are its fence lines (0-based, as Body.Kinds), Close
// len(Kinds) when nothing closes it.
type Fence struct{ Open, Close int }

// OpenFence is the fence ("```", "~~~~": its character as many times as
// opened it) of the fenced code block a reader of a markdown document is
// still inside after its line (1-based), as Scan reads blocks: "" when
// the line is outside code or closes its block, and for other formats.
// read_relevant closes a passage cut inside a block and opens one that
// starts inside it (agent22: a part that ended in an open block made the
// next passage's header read as code).
func (d Doc) OpenFence(line int) string {
	fence, _ := d.openFence(line)
	return fence
}

// OpeningFence is OpenFence with the block's info string (its language:
// "```sh"), to reopen a block a passage starts inside: "" where OpenFence
// is.
func (d Doc) OpeningFence(line int) string {
	fence, info := d.openFence(line)
	if fence == "" || info == "" {
		return fence
	}
	return fence + info
}

// openFence is OpenFence and the block's info string, trimmed.
func (d Doc) openFence(line int) (fence, info string) {
	if d.Format != FormatMarkdown && d.Format != "" {
		return "", ""
	}
	i := line - 1 - d.FrontMatter.End
	fs := d.Body.Fences
	j, _ := slices.BinarySearchFunc(fs, i, func(f Fence, i int) int { return cmp.Compare(f.Close, i) })
	if i < 0 || j == len(fs) || fs[j].Open > i || fs[j].Close == i {
		return "", ""
	}
	_, at := indentOf(d.Lines[d.FrontMatter.End+fs[j].Open])
	t := d.Lines[d.FrontMatter.End+fs[j].Open][at:]
	for { // the list markers before a fence on an item's line ("- ```sh")
		w, _, ok := listMarker(t)
		if !ok {
			break
		}
		t = strings.TrimLeft(t[w:], " \t")
	}
	k := 0
	for k < len(t) && t[k] == t[0] {
		k++
	}
	return t[:k], strings.TrimSpace(t[k:])
}

// indentOf is the columns of l's leading blanks (a tab to the next
// multiple of 4, as CommonMark counts) and the byte where its text starts.
func indentOf(l string) (cols, at int) {
	return indentFrom(l, 0, 0)
}

// indentFrom is indentOf from byte at of l, at column cols.
func indentFrom(l string, at, cols int) (int, int) {
	for at < len(l) {
		switch l[at] {
		case ' ':
			cols++
		case '\t':
			cols += 4 - cols%4
		default:
			return cols, at
		}
		at++
	}
	return cols, at
}

// listMarker reads a CommonMark list item's marker at the start of t (no
// indent before it): a bullet (-, *, +) or 1–9 digits and . or ), then
// a blank or the end of the line. width is the marker's bytes, number
// the ordered item's number (-1 for a bullet), ok false when t starts
// with none.
func listMarker(t string) (width, number int, ok bool) {
	if t == "" {
		return 0, 0, false
	}
	switch t[0] {
	case '-', '*', '+':
		width, number = 1, -1
	default:
		for width < len(t) && width < 10 && '0' <= t[width] && t[width] <= '9' {
			number = number*10 + int(t[width]-'0')
			width++
		}
		if width == 0 || width > 9 || width == len(t) || t[width] != '.' && t[width] != ')' {
			return 0, 0, false
		}
		width++
	}
	if width < len(t) && t[width] != ' ' && t[width] != '\t' {
		return 0, 0, false
	}
	if number < 0 && t[0] != '+' && isBreak(t) {
		return 0, 0, false // "- - -", "* * *": a thematic break
	}
	return width, number, true
}

// isBreak reports whether t (no indent) is a thematic break of - or *.
func isBreak(t string) bool {
	n := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case t[0]:
			n++
		case ' ', '\t':
		default:
			codeWorked(i + 1)
			return false
		}
	}
	codeWorked(len(t))
	return n >= 3
}

// maxListDepth bounds the list items enterItems keeps open: a marker past
// it is text. Each marker read tests the rest of its line for a thematic
// break, so a line of k markers ("- - - … x") cost k times its length:
// 40,000 of them took 1.7 s. Documents nest a handful deep.
const maxListDepth = 16

// startsBlock reports whether t, a line's text after its indent, starts a
// block that ends a paragraph (a line that does not, less indented than
// the list item it follows, is a lazy continuation of the item's
// paragraph and leaves the item open).
func startsBlock(t string) bool {
	if _, _, ok := listMarker(t); ok {
		return true
	}
	switch t[0] {
	case '#', '>', '`', '~', '<':
		return true
	case '-', '*', '_':
		return isBreak(t)
	}
	return false
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
	Fences   []Fence   // a markdown body's fenced code blocks, in order
}

// leavesParagraph reports whether a text line, t after its indent
// columns past the innermost item's content, is paragraph text (a lazy
// continuation may follow it, and an ordered item other than 1 or an
// empty one does not start after it): not indented code (four columns
// in, no paragraph before it), an empty item's marker, a thematic break
// nor a heading on an item's marker line (rv-polish23: taken
// for paragraphs, they kept an item open over a line at column 0, whose
// next line then opened a fence to the end of the page).
func leavesParagraph(t string, indent int, inPara bool) bool {
	if indent >= 4 {
		return inPara
	}
	if t == "" {
		return false // an empty item's marker line
	}
	switch t[0] {
	case '-', '*', '_':
		return !isBreak(t)
	case '#':
		return atxLine(t, true, t) == nil // a heading on an item's marker line
	}
	return true
}

// innermostAt is the content column of the innermost of items a line at
// column cols is indented into (0: none). A line four or more columns past
// it starts no block (rv-polish23: "  2. b" then "    ```" is a lazy
// continuation, not a fence that ends the item).
func innermostAt(items []int, cols int) int {
	for k := len(items) - 1; k >= 0; k-- {
		if items[k] <= cols {
			return items[k]
		}
	}
	return 0
}

// enterItems is the list items open at line l (items: those open before
// it, each the column its content starts at, outermost first; inPara:
// the line before is paragraph text) and the column and byte where l's
// text starts inside the innermost, past any list markers l begins
// with. CommonMark's rules, as far as a fence needs them: l stays in
// the items it is indented into, or all of them as a lazy continuation
// of a paragraph; a marker at most three columns into the innermost
// opens an item, its content where the text after the marker's 1–4
// blanks starts (one blank when there are more, or none); an ordered
// item other than 1, or an empty one, does not interrupt a paragraph.
func enterItems(l string, items []int, inPara bool) ([]int, int, int) {
	if len(items) == 0 && strings.IndexByte(" \t-*+0123456789", l[0]) < 0 {
		return items, 0, 0 // most lines: no item open, and no indent or marker
	}
	cols, at := indentOf(l)
	if n := len(items); n > 0 && cols < items[n-1] {
		if inPara && (!startsBlock(l[at:]) || cols-innermostAt(items, cols) >= 4) {
			return items, cols, at // lazy: the items stay open
		}
		for len(items) > 0 && cols < items[len(items)-1] {
			items = items[:len(items)-1]
		}
		inPara = false // the paragraph was in a closed item
	}
	for {
		w := 0
		if len(items) > 0 {
			w = items[len(items)-1]
		}
		if len(items) >= maxListDepth || cols-w > 3 {
			return items, cols, at
		}
		mw, number, ok := listMarker(l[at:])
		if !ok {
			return items, cols, at
		}
		end := cols + mw
		c, a := indentFrom(l, at+mw, end)
		if inPara && (number > 1 || a == len(l)) {
			return items, cols, at
		}
		content := c
		if a == len(l) || c-end > 4 {
			content = end + 1 // empty, or indented code after the marker
		}
		items = append(items, content)
		cols, at, inPara = c, a, false
		if a == len(l) || c-end > 4 {
			return items, cols, at
		}
	}
}

// Scan classifies lines (a document body, after its front matter). Only
// the structure is computed; no text is copied.
func Scan(lines []string) Body {
	s := Body{Kinds: make([]Kind, len(lines))}
	var fenceChar byte
	fenceLen, fenceW := 0, 0
	inComment := false
	paraStart := -1    // first line of the current paragraph that may become a setext heading
	var items []int    // the content column of each open list item, outermost first (enterItems)
	inPara := false    // the line before is text (a lazy continuation may follow)
	emptyItem := false // the innermost item is empty so far: its marker ended the line before
	for i, l := range lines {
		if fenceLen > 0 {
			s.Kinds[i] = Code
			if closesFence(l, fenceChar, fenceLen, fenceW) {
				fenceLen = 0
				s.Fences[len(s.Fences)-1].Close = i
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
			paraStart, inPara = -1, false
			if emptyItem && len(items) > 0 { // an item begins with one blank line at most
				items, emptyItem = items[:len(items)-1], false
			}
			continue
		}
		var cols, at int
		items, cols, at = enterItems(l, items, inPara)
		emptyItem = at == len(l) // the line ends at the marker of the item it opens
		w := 0
		if len(items) > 0 {
			w = items[len(items)-1]
		}
		if ch, n := opensFence(l[at:], cols-w <= 3 && cols >= w, l[at:]); n > 0 {
			fenceChar, fenceLen, fenceW = ch, n, w
			s.Kinds[i] = Code
			s.Fences = append(s.Fences, Fence{Open: i, Close: len(lines)})
			paraStart, inPara = -1, false
			continue
		}
		prevPara := inPara
		inPara = false
		t, indent3 := afterIndent(l)
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
		inPara = leavesParagraph(l[at:], cols-w, prevPara)
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
