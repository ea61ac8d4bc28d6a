package mcpserver

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/indexer"
)

// Caps on the text of one tool response. Clients such as Claude Code accept
// up to 25k tokens from one call; a window stops at MaxTextTokens as counted
// by the o200k BPE tokenizer, and never exceeds MaxTextBytes. A window of
// at most safeTextBytes needs no counting: a BPE token is at least one byte.
const (
	MaxTextTokens = 20_000
	MaxTextBytes  = 80_000
	safeTextBytes = MaxTextTokens
)

// splitLines splits content into lines without their line endings. A final
// newline does not start an extra empty line.
func splitLines(content []byte) []string {
	s := string(content)
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return []string{}
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// window is a cut of lines [from, to] (1-based, inclusive) of a document.
type window struct {
	Text       string
	StartLine  int // first line returned (0 when nothing was returned)
	EndLine    int // last line returned
	NextOffset int // line to ask for next, 0 when the range is exhausted
	Truncated  bool
	CutLine    bool // the last line was longer than the cap and was cut
}

// cut returns lines offset..last (1-based, inclusive) of lines, at most limit
// lines (0 = no line limit), MaxTextBytes bytes and, as counted by count,
// MaxTextTokens tokens. count may be nil when the text stays under
// safeTextBytes; it is called only for windows larger than that.
func cut(lines []string, offset, last, limit int, count func(string) int) window {
	if last > len(lines) {
		last = len(lines)
	}
	if offset < 1 {
		offset = 1
	}
	w := window{}
	if offset > last {
		return w
	}
	end := last
	if limit > 0 && offset+limit-1 < end {
		end = offset + limit - 1
	}
	capBytes := MaxTextBytes
	if count == nil {
		capBytes = safeTextBytes
	}
	var b strings.Builder
	tokens := 0
	i := offset
	for ; i <= end; i++ {
		l := lines[i-1]
		need := len(l) + 1
		if b.Len()+need > capBytes {
			if b.Len() == 0 {
				// One line longer than the cap: send its start. A
				// token is at least a byte, so this many bytes fit.
				b.WriteString(truncUTF8(l, safeTextBytes-1))
				b.WriteByte('\n')
				w.CutLine = true
				i++
			}
			break
		}
		if count != nil && b.Len()+need > safeTextBytes {
			// Past the size that is safe without counting: count.
			if tokens == 0 {
				tokens = count(b.String())
			}
			t := count(l) + 1
			if tokens+t > MaxTextTokens {
				if b.Len() == 0 {
					b.WriteString(truncUTF8(l, safeTextBytes-1))
					b.WriteByte('\n')
					w.CutLine = true
					i++
				}
				break
			}
			tokens += t
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	w.Text = b.String()
	w.StartLine = offset
	w.EndLine = i - 1
	if w.EndLine < last {
		w.Truncated = true
		w.NextOffset = w.EndLine + 1
	}
	return w
}

func truncUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// section is a heading's extent in a document.
type section struct {
	Heading   string
	Level     int
	StartLine int // the heading's line
	EndLine   int // last line before the next heading of the same or higher level
}

// normHeading makes heading comparison forgiving: case, surrounding space,
// leading #s and markdown emphasis do not matter.
func normHeading(h string) string {
	h = strings.TrimSpace(h)
	h = strings.TrimLeft(h, "#")
	h = strings.TrimSpace(h)
	h = strings.NewReplacer("`", "", "*", "", "_", " ").Replace(h)
	return strings.ToLower(strings.Join(strings.Fields(h), " "))
}

// findSection finds heading (case-insensitive; the last part of a trail
// "A > B" is accepted too) in content. It returns the headings when there is
// no match, for hints.
func findSection(content []byte, totalLines int, heading string) (section, []indexer.Heading, bool) {
	hs := indexer.Outline(content)
	want := normHeading(heading)
	idx := -1
	for i, h := range hs {
		if normHeading(h.Text) == want {
			idx = i
			break
		}
	}
	if idx < 0 && strings.Contains(heading, ">") {
		parts := strings.Split(heading, ">")
		last := normHeading(parts[len(parts)-1])
		for i, h := range hs {
			if normHeading(h.Text) == last {
				idx = i
				break
			}
		}
	}
	if idx < 0 {
		return section{}, hs, false
	}
	h := hs[idx]
	s := section{Heading: h.Text, Level: h.Level, StartLine: h.Line, EndLine: totalLines}
	for _, n := range hs[idx+1:] {
		if n.Level <= h.Level {
			s.EndLine = n.Line - 1
			// A setext heading's underline is the line after its text, so
			// the previous section ends before the text line: fine as is.
			break
		}
	}
	// Trim trailing blank lines of the section.
	return s, hs, true
}

// trimTrailingBlank moves end back over blank lines, not before start.
func trimTrailingBlank(lines []string, start, end int) int {
	for end > start && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	return end
}

// headingTexts lists the headings' texts, for "did you mean".
func headingTexts(hs []indexer.Heading) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Text
	}
	return out
}

// looksBinary reports whether content is probably not text.
func looksBinary(content []byte) bool {
	head := content
	if len(head) > 8000 {
		head = head[:8000]
	}
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(truncBytes(head))
}

// truncBytes drops a partial rune at the end of b.
func truncBytes(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		r, size := utf8.DecodeLastRune(b)
		if r != utf8.RuneError || size > 1 {
			return b
		}
		b = b[:len(b)-1]
	}
	return b
}
