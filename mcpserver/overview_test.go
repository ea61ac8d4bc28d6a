package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"
	"github.com/ctx-dev/ctx/project"
)

// overviewProject is a project of the packages named, each with docs
// documents whose summaries are long enough that INDEX.md grows with docs.
func overviewProject(t *testing.T, docs int, aliases ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "proj")
	ctxDir := filepath.Join(dir, ".context")
	lock := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{}}
	for _, a := range aliases {
		for i := range docs {
			writeFile(t, filepath.Join(ctxDir, "packages", a, fmt.Sprintf("topic-%03d.md", i)),
				fmt.Sprintf("# %s topic %d\n\nHow the %s service handles topic %d: its settings, its limits and what to check when it fails in production.\n", a, i, a, i))
		}
		lock.Packages[a] = lockfile.Entry{Source: "https://example.com/" + a + ".git", Ref: "main", Rev: strings.Repeat("c3", 20), Tree: strings.Repeat("d4", 20),
			Hash: "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", Updated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	}
	if err := lockfiletest.Write(filepath.Join(ctxDir, project.LockName), lock); err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Sync(context.Background(), ctxDir, lockPackages(ctxDir, lock), indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestOverviewFirstAnswerSmall: get_overview with no arguments, an agent's
// first call, is whole when INDEX.md is small; when it is large, it is the
// catalogue's outline within overviewTokens: every package, with the offset
// that reads its part, and how to read more. The offset it names reads
// that package's part; maxTokens reads from the top as before.
func TestOverviewFirstAnswerSmall(t *testing.T) {
	t.Parallel()
	budget, _ := tokenBudget(overviewTokens)
	// A small project: the whole catalogue.
	small := connect(t, overviewProject(t, 3, "alpha", "beta"))
	var ov DocumentOut
	res := call(t, small, "get_overview", nil, &ov)
	if res.IsError || ov.Truncated || !strings.Contains(ov.Text, "alpha topic 2") || !strings.Contains(ov.Text, "beta topic 2") {
		t.Fatalf("small project: want the whole INDEX.md, got %s", clientView(t, res))
	}
	// A large one (about 9,000 tokens of INDEX.md): the outline.
	cs := connect(t, overviewProject(t, 80, "alpha", "beta", "gamma"))
	res = call(t, cs, "get_overview", nil, &ov)
	view := clientView(t, res)
	if res.IsError {
		t.Fatalf("large project: %s", view)
	}
	if n, _ := o200k.Count(view); n > budget {
		t.Errorf("large project: the first answer is %d tokens, over get_overview's first budget of %d:\n%.600s", n, budget, view)
	}
	for _, w := range []string{"maxTokens", "offset"} {
		if !strings.Contains(view, w) {
			t.Errorf("large project: the first answer does not say how to read more (%q):\n%s", w, view)
		}
	}
	if !ov.Truncated {
		t.Errorf("large project: the outline does not say it is truncated: %+v", ov)
	}
	full := call(t, cs, "get_overview", map[string]any{"maxTokens": MaxMaxTokens}, nil)
	for _, a := range []string{"alpha", "beta", "gamma"} {
		m := regexp.MustCompile(`## ` + a + `\b[^\n]*offset=(\d+)`).FindStringSubmatch(ov.Text)
		if m == nil {
			t.Errorf("large project: package %s has no line with its offset in the outline:\n%s", a, ov.Text)
			continue
		}
		off, _ := strconv.Atoi(m[1])
		var part DocumentOut
		if res := call(t, cs, "get_overview", map[string]any{"offset": off}, &part); res.IsError || !strings.HasPrefix(part.Text, "## "+a+"\n") {
			t.Errorf("get_overview offset=%d (%s's, as the outline says): %.200q", off, a, part.Text)
		}
		if !strings.Contains(clientView(t, full), a+" topic 0") {
			t.Errorf("get_overview maxTokens %d does not read %s's entries", MaxMaxTokens, a)
		}
	}
	// An offset past the end is an error, as get_document's.
	wantError(t, call(t, cs, "get_overview", map[string]any{"offset": 100000}, nil), "offset 100000 is past the end", "INDEX.md has")
}
