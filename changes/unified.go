package changes

import (
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// op is one line of a line diff.
type op struct {
	kind byte // ' ', '-', '+'
	text string
	a, b int // the line's number in the old (for ' ' and '-') and new (' ' and '+') text
}

// lineOps diffs a and b line by line with go-git's diff (Myers, through
// sergi/go-diff's diffmatchpatch, the library go-git itself uses; no time
// limit, so the result never depends on the machine's load: Compare
// bounds the input instead).
func lineOps(a, b []string, aStart, bStart int) []op {
	join := func(ls []string) string {
		if len(ls) == 0 {
			return ""
		}
		return strings.Join(ls, "\n") + "\n"
	}
	var ops []op
	ai, bi := aStart, bStart
	for _, d := range diff.Do(join(a), join(b)) {
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l == "" {
				continue
			}
			l = strings.TrimSuffix(l, "\n")
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				ops = append(ops, op{' ', l, ai, bi})
				ai++
				bi++
			case diffmatchpatch.DiffDelete:
				ops = append(ops, op{'-', l, ai, bi})
				ai++
			case diffmatchpatch.DiffInsert:
				ops = append(ops, op{'+', l, ai, bi})
				bi++
			}
		}
	}
	return ops
}

// Unified returns the unified diff (hunks only, Context lines around each
// change, "@@ -a,n +b,m @@" headers with file lines) of old lines a, the
// first of them line aStart, and new lines b from line bStart; at most
// maxLines lines (cut reports that some were left out, and a last line
// says how many). The hunk writer is ctx's own (go-git's UnifiedEncoder
// wants whole-file patches and writes file headers); the diff under it
// is go-git's.
func Unified(a, b []string, aStart, bStart, maxLines int) (text string, cut bool) {
	ops := lineOps(a, b, aStart, bStart)
	var lines []string
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk: from Context lines before this change to Context lines
		// after the last change that is at most 2*Context lines later.
		start := max(0, i-Context)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
			} else if j-end > 2*Context {
				break
			}
		}
		stop := min(len(ops), end+Context+1)
		h := ops[start:stop]
		na, nb := 0, 0
		for _, o := range h {
			if o.kind != '+' {
				na++
			}
			if o.kind != '-' {
				nb++
			}
		}
		aFrom, bFrom := h[0].a, h[0].b
		if na == 0 {
			aFrom-- // diff's rule: an empty range names the line before
		}
		if nb == 0 {
			bFrom--
		}
		lines = append(lines, fmt.Sprintf("@@ -%d,%d +%d,%d @@", aFrom, na, bFrom, nb))
		for _, o := range h {
			lines = append(lines, string(o.kind)+o.text)
		}
		i = stop
	}
	if maxLines > 0 && len(lines) > maxLines {
		more := len(lines) - (maxLines - 1)
		lines = append(lines[:maxLines-1], fmt.Sprintf("… (%d more lines of diff)", more))
		cut = true
	}
	if len(lines) == 0 {
		return "", false
	}
	return strings.Join(lines, "\n") + "\n", cut
}
