package mcpserver

import (
	"strings"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/indexer/markdown"
)

// Caps on the text of a window. A tool's window is cut to the tokens its
// answer's budget leaves for the text (tokenBudget less the answer's
// frame: the footer and the resource link; _meta is not counted); a document resource,
// which has no maxTokens, to MaxTextTokens. Tokens are counted with o200k;
// a window never exceeds MaxTextBytes either. A window of at most as many
// bytes as its token cap needs no counting: a BPE token is at least one
// byte.
const (
	// MaxTextTokens caps a document resource's text: the default answer
	// budget (DefaultMaxTokens with the o200k headroom).
	MaxTextTokens = DefaultMaxTokens * headroomPercent / 100
	MaxTextBytes  = 80_000
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

// cut is cutTokens with the resource cap, MaxTextTokens.
func cut(lines []string, offset, last, limit int, count func(string) int) window {
	return cutTokens(lines, offset, last, limit, MaxTextTokens, count)
}

// cutTokens returns lines offset..last (1-based, inclusive) of lines: at
// most limit lines (0 = no line limit), MaxTextBytes bytes and, as counted
// by count, budget tokens (each line counted on its own, plus one for its
// newline). A first line over the caps is cut at a rune boundary and
// CutLine says so; the rest of that line is not served. count is called
// only once the text is over budget bytes.
func cutTokens(lines []string, offset, last, limit, budget int, count func(string) int) window {
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
	budget = max(budget, 0)
	var b strings.Builder
	tokens, counted := 0, false
	i := offset
	for ; i <= end; i++ {
		l := lines[i-1]
		need := len(l) + 1
		over := b.Len()+need > MaxTextBytes
		if !over && b.Len()+need > budget {
			// Past the size that is safe without counting: count.
			if !counted {
				tokens, counted = count(b.String()), true
			}
			t := count(l) + 1
			over = tokens+t > budget
			if !over {
				tokens += t
			}
		}
		if over {
			if b.Len() == 0 {
				// One line over the caps: send its start.
				b.WriteString(fitLine(l, budget-1, MaxTextBytes-1, count))
				b.WriteByte('\n')
				w.CutLine = true
				i++
			}
			break
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

// fitLine returns a start of l, cut at a rune boundary, of at most
// maxBytes bytes and budget tokens (as count counts them): it shortens the
// cut by the ratio of budget to the tokens of the last try (less 5%) until
// one fits, so it is close to the longest start that fits, not always it.
func fitLine(l string, budget, maxBytes int, count func(string) int) string {
	n := min(len(l), maxBytes)
	for n > 0 {
		p := truncUTF8(l, n)
		if len(p) <= budget {
			return p
		}
		t := count(p)
		if t <= budget {
			return p
		}
		n = min(len(p)-1, len(p)*budget/t*95/100)
	}
	return ""
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
