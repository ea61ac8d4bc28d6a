package mcpserver

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestTooSmallAdviceSuffices (audit16, finding 1): a budget too
// small for one item is an error naming the maxTokens needed; a client
// that follows it must get an answer, not a second error asking for more.
// On main 1b4f197 it fails: fitPage's first errTooSmall names the empty
// answer's tokens without the first item's.
func TestTooSmallAdviceSuffices(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	advice := regexp.MustCompile(`give maxTokens (\d+) or more`)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"get_outline", map[string]any{"package": "guide", "path": "docs/setup.md"}},
		{"list_contexts", map[string]any{"package": "guide"}},
		{"search", map[string]any{"query": "install"}},
	}
	for _, c := range calls {
		for _, small := range []int{1, 5, 10} {
			args := map[string]any{"maxTokens": small}
			for k, v := range c.args {
				args[k] = v
			}
			res := call(t, cs, c.tool, args, nil)
			if !res.IsError {
				continue
			}
			m := advice.FindStringSubmatch(text(res))
			if m == nil {
				t.Errorf("%s maxTokens %d: the error names no budget: %s", c.tool, small, text(res))
				continue
			}
			n, _ := strconv.Atoi(m[1])
			args["maxTokens"] = n
			if again := call(t, cs, c.tool, args, nil); again.IsError {
				t.Errorf("%s: maxTokens %d said %q; with %d: %s", c.tool, small, m[0], n, text(again))
			}
		}
	}
}

// TestTooSmallAdviceEveryBudget (review of fixA16, 3-4): for every budget
// from 1 to 300 on each tool with a budget, an advised maxTokens gives an
// answer (read_relevant: one holding a passage, not "none fits"), and
// every budget at or above the first that gives one gives one too: advice
// that is a token short, or a listing that fails again above the advice,
// shows here. read_relevant's advice is the smallest budget that works.
func TestTooSmallAdviceEveryBudget(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	advice := regexp.MustCompile(`give maxTokens (\d+) or more`)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"search", map[string]any{"query": "install"}},
		{"list_contexts", map[string]any{"package": "guide"}},
		{"get_outline", map[string]any{"package": "guide", "path": "docs/setup.md"}},
		{"list_tags", map[string]any{}},
		{"related", map[string]any{"query": "install"}},
		{"what_changed", map[string]any{"package": "guide"}},
		{"read_relevant", map[string]any{"query": "install"}},
	} {
		works := map[int]bool{}
		try := func(m int) (bool, string) {
			args := map[string]any{"maxTokens": m}
			for k, v := range c.args {
				args[k] = v
			}
			res := call(t, cs, c.tool, args, nil)
			got := text(res)
			ok := !res.IsError && !strings.Contains(got, "none fits")
			works[m] = ok
			return ok, got
		}
		first := 0
		var advised []int // the advice given at each budget below first
		for m := 1; m <= 300; m++ {
			ok, got := try(m)
			if ok {
				if first == 0 {
					first = m
				}
				continue
			}
			if first != 0 {
				t.Errorf("%s: maxTokens %d works, %d above it does not: %.200s", c.tool, first, m, got)
				break
			}
			a := advice.FindStringSubmatch(got)
			if a == nil {
				t.Errorf("%s maxTokens %d: no answer and no maxTokens advised: %.200s", c.tool, m, got)
				break
			}
			n, _ := strconv.Atoi(a[1])
			advised = append(advised, n)
			if done, seen := works[n]; seen && done {
				continue
			}
			if ok, again := try(n); !ok {
				t.Errorf("%s: maxTokens %d advised %d; with it: %.200s", c.tool, m, n, again)
				break
			}
		}
		if first == 0 {
			t.Errorf("%s: no budget up to 300 works", c.tool)
		}
		// read_relevant finds its advice by trying, so it is the smallest
		// budget that works (left17, 3). The listings' advice is
		// errTooSmall's bound from the answer with one item, counted
		// whole: enough, but above the smallest here (by 1 or 2 for
		// five tools: a token kept for a larger maxTokens' digits, and
		// the division rounded up; by 22 for search, not traced).
		for i, n := range advised {
			if c.tool == "read_relevant" && n != first && first != 0 {
				t.Errorf("%s: maxTokens %d advised %d, but %d is the smallest that works", c.tool, i+1, n, first)
				break
			}
		}
	}
}
