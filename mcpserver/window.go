package mcpserver

import (
	"strings"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/indexer/markdown"
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

// headingTexts lists the headings' texts, for "did you mean".
func headingTexts(hs []markdown.Heading) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Text
	}
	return out
}
