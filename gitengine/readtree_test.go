package gitengine

import (
	"context"

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
