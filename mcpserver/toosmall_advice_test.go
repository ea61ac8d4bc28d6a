package mcpserver

import (
	"regexp"
	"strconv"
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
