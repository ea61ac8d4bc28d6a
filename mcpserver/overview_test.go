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
)

// overviewProject is a project of the packages named, each with docs
// documents whose summaries are long enough that INDEX.md grows with docs.
func overviewProject(t *testing.T, docs int, aliases ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "proj")
	ctxDir := filepath.Join(dir, ".context")
	for _, a := range aliases {
		for i := range docs {
			writeOverviewDoc(t, ctxDir, a, i)
		}
	}
	if err := lockfiletest.WriteInstalled(ctxDir, overviewLock(aliases...)); err != nil {
		t.Fatal(err)
	}
	syncOverview(t, dir, aliases...)
	return dir
}

// writeOverviewDoc writes package a's document i of overviewProject.
func writeOverviewDoc(t *testing.T, ctxDir, a string, i int) {
	t.Helper()
	writeFile(t, filepath.Join(ctxDir, "packages", a, fmt.Sprintf("topic-%03d.md", i)),
		fmt.Sprintf("# %s topic %d\n\nHow the %s service handles topic %d: its settings, its limits and what to check when it fails in production.\n", a, i, a, i))
}

// overviewLock is overviewProject's lock.
func overviewLock(aliases ...string) *lockfile.Lock {
	lock := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{}}
	for _, a := range aliases {
		lock.Packages[a] = lockfile.Entry{Source: "https://example.com/" + a + ".git", Ref: "main", Rev: strings.Repeat("c3", 20), Tree: strings.Repeat("d4", 20),
			Hash: "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", Updated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	}
	return lock
}

// syncOverview indexes overviewProject's packages (and renders INDEX.md).
func syncOverview(t *testing.T, dir string, aliases ...string) {
	t.Helper()
	ctxDir := filepath.Join(dir, ".context")
	if _, err := indexer.Sync(context.Background(), ctxDir, lockPackages(ctxDir, overviewLock(aliases...)), indexer.Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestOverviewFirstAnswerSmall: get_overview with no arguments, an agent's
// first call, is whole when INDEX.md is small; when it is large, it is the
// catalogue's outline within overviewTokens: every package with the titles
// of as many of its documents as fit (agent20), and how to read more.
// package reads that package's part; maxTokens reads from the top as
// before.
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
	for _, w := range []string{"maxTokens", "package=<alias>"} {
		if !strings.Contains(view, w) {
			t.Errorf("large project: the first answer does not say how to read more (%q):\n%s", w, view)
		}
	}
	if !ov.Truncated {
		t.Errorf("large project: the outline does not say it is truncated: %+v", ov)
	}
	full := call(t, cs, "get_overview", map[string]any{"maxTokens": MaxMaxTokens}, nil)
	for _, a := range []string{"alpha", "beta", "gamma"} {
		// Its heading, then the titles of its first documents (no summary),
		// then how many more and what reads them.
		m := regexp.MustCompile(`(?m)^## ` + a + `\n.*80 documents\n\n- ` + a + " topic 0 \\(`topic-000.md`\\)\n" + `(?:- .*\n)*- … and (\d+) more \(package=` + a + `\)$`).FindStringSubmatch(ov.Text)
		if m == nil {
			t.Errorf("large project: package %s has no heading with titles under it in the outline:\n%s", a, ov.Text)
		} else if more, _ := strconv.Atoi(m[1]); more >= 80 || more == 0 {
			t.Errorf("large project: package %s: %d of 80 titles left out of the outline", a, more)
		}
		if strings.Contains(ov.Text, "its settings") {
			t.Errorf("large project: the outline has summaries:\n%s", ov.Text)
		}
		var part DocumentOut
		if res := call(t, cs, "get_overview", map[string]any{"package": a}, &part); res.IsError || !strings.HasPrefix(part.Text, "## "+a+"\n") || !strings.Contains(part.Text, a+" topic 79") {
			t.Errorf("get_overview package=%s: %.200q", a, part.Text)
		}
		if !strings.Contains(clientView(t, full), a+" topic 0") {
			t.Errorf("get_overview maxTokens %d does not read %s's entries", MaxMaxTokens, a)
		}
	}
	wantError(t, call(t, cs, "get_overview", map[string]any{"package": "gama"}, nil), `unknown package "gama"`, `"gamma"`)
}

// TestOverviewPagesStable (agent20): a package's part of the catalogue,
// read with a small maxTokens, comes in pages that follow each other by
// cursor, all within that package (round 19: a window's footer pointed
// into the next package), and that together are its part whole. A cursor
// still reads on after INDEX.md was rendered again with another package
// grown (its lines moved: a line number would read the wrong lines), and
// is refused, with what to do, after this package's part changed.
func TestOverviewPagesStable(t *testing.T) {
	t.Parallel()
	aliases := []string{"alpha", "beta", "gamma"}
	dir := overviewProject(t, 40, aliases...)
	cs := connect(t, dir)
	var whole DocumentOut
	if res := call(t, cs, "get_overview", map[string]any{"package": "beta", "maxTokens": MaxMaxTokens}, &whole); res.IsError || whole.Truncated {
		t.Fatalf("beta whole: %s", clientView(t, res))
	}
	var pages []string
	var cursors []string
	args := map[string]any{"package": "beta", "maxTokens": 600}
	for len(pages) < 40 {
		var page DocumentOut
		res := call(t, cs, "get_overview", args, &page)
		view := clientView(t, res)
		if res.IsError {
			t.Fatalf("page %d: %s", len(pages)+1, view)
		}
		for _, o := range []string{"## alpha", "## gamma"} {
			if strings.Contains(page.Text, o) {
				t.Errorf("page %d of beta's part reads %s's", len(pages)+1, o)
			}
		}
		pages = append(pages, page.Text)
		if !page.Truncated {
			if page.NextCursor != "" || strings.Contains(view, "cursor=") {
				t.Errorf("the last page points on: %s", view)
			}
			break
		}
		if page.NextCursor == "" || !strings.Contains(view, fmt.Sprintf("call again with cursor=%q", page.NextCursor)) || strings.Contains(view, "offset") {
			t.Fatalf("page %d is truncated and does not give its cursor: %s", len(pages), view)
		}
		cursors = append(cursors, page.NextCursor)
		args = map[string]any{"cursor": page.NextCursor, "maxTokens": 600} // the cursor alone reads on
	}
	if len(pages) < 3 || strings.Join(pages, "") != whole.Text {
		t.Fatalf("%d pages do not make beta's part whole:\n%q\nwant\n%q", len(pages), strings.Join(pages, ""), whole.Text)
	}
	_ = cs.Close()

	// alpha grows: INDEX.md is rendered again and beta's lines move down.
	ctxDir := filepath.Join(dir, ".context")
	for i := 40; i < 45; i++ {
		writeOverviewDoc(t, ctxDir, "alpha", i)
	}
	syncOverview(t, dir, aliases...)
	cs = connect(t, dir)
	var page DocumentOut
	if res := call(t, cs, "get_overview", map[string]any{"cursor": cursors[0], "maxTokens": 600}, &page); res.IsError || page.Text != pages[1] {
		t.Errorf("after alpha grew, the cursor of beta's page 2 read %q, want %q", page.Text, pages[1])
	}
	// A cursor of beta's given with another package is refused.
	wantError(t, call(t, cs, "get_overview", map[string]any{"cursor": cursors[0], "package": "alpha"}, nil), "not package \"alpha\"")
	_ = cs.Close()

	// beta's own part changes: its cursor is refused, saying to start over.
	writeOverviewDoc(t, ctxDir, "beta", 0)
	writeFile(t, filepath.Join(ctxDir, "packages", "beta", "topic-000.md"), "# beta renamed topic\n\nNew words.\n")
	syncOverview(t, dir, aliases...)
	cs = connect(t, dir)
	wantError(t, call(t, cs, "get_overview", map[string]any{"cursor": cursors[0], "maxTokens": 600}, nil),
		"package beta's part changed since the previous page", "without cursor")
}

// TestOverviewTooSmall (agent20): a maxTokens too small for a page of the
// catalogue says which maxTokens holds one (it said "the budget of -32
// tokens" once the cursor was reserved), and that maxTokens reads a page.
func TestOverviewTooSmall(t *testing.T) {
	t.Parallel()
	cs := connect(t, overviewProject(t, 40, "alpha", "beta"))
	for _, args := range []map[string]any{{"maxTokens": 40}, {"package": "beta", "maxTokens": 60}} {
		res := call(t, cs, "get_overview", args, nil)
		m := regexp.MustCompile(`is too small for a page of INDEX.md.*give maxTokens (\d+) or more`).FindStringSubmatch(text(res))
		if !res.IsError || m == nil {
			t.Errorf("get_overview %v: %s", args, text(res))
			continue
		}
		args["maxTokens"], _ = strconv.Atoi(m[1])
		var page DocumentOut
		if res := call(t, cs, "get_overview", args, &page); res.IsError || page.Text == "" {
			t.Errorf("get_overview %v, as the error said: %s", args, text(res))
		}
	}
}
