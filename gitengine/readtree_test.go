package gitengine

import (
	"context"
	"strings"

	"github.com/ctx-dev/ctx/internal/gittest"
	"testing"
)

// TestReadTree: the old side of `ctx changes` lists a folder's files and
// reads their blobs without writing anything: one request cold when the
// lock's tree is known, none warm; links are left out.
func TestReadTree(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	s := f.serve(gittest.ServeOptions{})
	url := s.URL + "/repo.git"
	sub := "docs/guides/deep"
	req := FetchRequest{URL: url, Commit: f.c1, Path: sub, Tree: f.treeAt(f.c1, sub)}
	cache := t.TempDir()
	for i, wantReqs := range []int{1, 0} {
		s.ResetCounters()
		tr, err := New(Options{CacheDir: cache}).ReadTree(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if n := s.Requests(); n != wantReqs {
			t.Errorf("call %d: %d requests, want %d", i, n, wantReqs)
		}
		var paths []string
		var a string
		for _, fl := range tr.Files {
			paths = append(paths, fl.Path)
			if fl.Path == "a.md" {
				b, err := tr.Read(fl.BlobID)
				if err != nil {
					t.Fatal(err)
				}
				a = string(b)
			}
		}
		tr.Close()
		if got := join(paths); got != "a.md run.sh sub/b.md sub/c/d.txt" {
			t.Errorf("call %d: files %s", i, got)
		}
		if a != "# A\n\nalpha\n" {
			t.Errorf("call %d: a.md = %q", i, a)
		}
		if tr.TreeID != req.Tree {
			t.Errorf("tree %s, want %s", tr.TreeID, req.Tree)
		}
		if _, err := tr.Read(tr.Files[0].BlobID); err == nil {
			t.Error("read after Close worked")
		}
	}
}

func join(s []string) string {
	out := ""
	for i, p := range s {
		if i > 0 {
			out += " "
		}
		out += p
	}
	return out
}

// TestReadTreeAgainst: with Against, ReadTree lists only the files that
// differ from the other tree (and walks no folder the two share), from a
// local repository and from the cache; a tree the cache lacks gives the
// whole listing, not Diffed.
func TestReadTreeAgainst(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	s := f.serve(gittest.ServeOptions{})
	t1, t2 := f.treeAt(f.c1, "docs"), f.treeAt(f.c2, "docs")
	list := func(e *Engine, url, commit, against string) (string, bool) {
		t.Helper()
		tr, err := e.ReadTree(ctx, FetchRequest{URL: url, Commit: commit, Path: "docs", Against: against})
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		var out []string
		for _, fl := range tr.Files {
			out = append(out, fl.Path+"@"+fl.BlobID[:7])
		}
		return join(out), tr.Diffed
	}
	for _, url := range []string{f.bare, s.URL + "/repo.git"} {
		e := New(Options{CacheDir: t.TempDir()})
		all1, d := list(e, url, f.c1, "")
		if d || len(all1) < 40 {
			t.Fatalf("%s: no Against: %q, diffed %v", url, all1, d)
		}
		all2, _ := list(e, url, f.c2, "")
		old, d1 := list(e, url, f.c1, t2)
		nw, d2 := list(e, url, f.c2, t1)
		a1, a2 := f.objectAt(f.c1, "docs/guides/deep/a.md"), f.objectAt(f.c2, "docs/guides/deep/a.md")
		if !d1 || !d2 || old != "guides/deep/a.md@"+a1[:7] || nw != "guides/deep/a.md@"+a2[:7] {
			t.Errorf("%s: against each other: %q (diffed %v), %q (diffed %v)", url, old, d1, nw, d2)
		}
		if same, d := list(e, url, f.c2, t2); !d || same != "" {
			t.Errorf("%s: against itself: %q, diffed %v", url, same, d)
		}
		missing := strings.Repeat("ab", 20)
		if got, d := list(e, url, f.c2, missing); d || got != all2 {
			t.Errorf("%s: against a tree not there: %q, diffed %v; want all: %q", url, got, d, all2)
		}
	}
}
