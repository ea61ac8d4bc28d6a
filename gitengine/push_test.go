package gitengine

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// TestPushLocal pushes edits of docs/guides/deep into the fixture's bare
// repository (a local path: go-git's in-process receive-pack): a file
// replaced by a folder, a folder emptied away, a mode and a symlink. git
// itself then checks the branch: its parent, and exactly those changes.
func TestPushLocal(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	o, _ := isolate(t)
	e := New(o)
	ctx := context.Background()
	req := PushRequest{
		URL: f.bare, Commit: f.c1, Path: "docs/guides/deep", BranchPrefix: "ctx/deep-",
		Message: "edits\n", Author: Signature{Name: "t", Email: "t@ctx.invalid", When: time.Unix(1767225600, 0)},
		Changes: []Change{
			{Path: "a.md", Delete: true},
			{Path: "a.md/now-a-folder.md", Mode: 0o644, Content: []byte("# folder\n")},
			{Path: "sub/b.md", Delete: true},
			{Path: "sub/c/d.txt", Delete: true}, // sub/ is now empty: dropped
			{Path: "run.sh", Mode: 0o644, Content: []byte("#!/bin/sh\necho hi\n")},
			{Path: "link2.md", Mode: fs.ModeSymlink, Content: []byte("run.sh")},
		},
	}
	res, err := e.Push(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Pushed || !strings.HasPrefix(res.Branch, "ctx/deep-") || len(res.Branch) != len("ctx/deep-")+7 {
		t.Fatalf("result %+v", res)
	}
	if p := gittest.MustGit(t, f.bare, "rev-parse", res.Branch+"^"); p != f.c1 {
		t.Errorf("parent %s, want %s", p, f.c1)
	}
	got := gittest.MustGit(t, f.bare, "diff", "--name-status", "--no-renames", f.c1, res.Branch)
	want := "D\tdocs/guides/deep/a.md\nA\tdocs/guides/deep/a.md/now-a-folder.md\nA\tdocs/guides/deep/link2.md\nM\tdocs/guides/deep/run.sh\nD\tdocs/guides/deep/sub/b.md\nD\tdocs/guides/deep/sub/c/d.txt"
	if got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	gittest.MustGit(t, f.bare, "fsck", "--no-progress")

	// The same edits again: the branch is there with this content.
	again, err := e.Push(ctx, req)
	if err != nil || !again.Existed || again.Pushed || again.Branch != res.Branch {
		t.Fatalf("second push: %+v, %v", again, err)
	}
	// Edits that change nothing build nothing.
	same, err := e.Push(ctx, PushRequest{URL: f.bare, Commit: f.c1, Path: "docs/guides/deep", Branch: "x",
		Changes: []Change{{Path: "a.md", Mode: 0o644, Content: []byte("# A\n\nalpha\n")}}})
	if err != nil || !same.Unchanged || same.Pushed {
		t.Fatalf("unchanged push: %+v, %v", same, err)
	}
	// Paths that leave the package are refused.
	for _, p := range []string{"../x.md", "/etc/x", ".git/config"} {
		if _, err := e.Push(ctx, PushRequest{URL: f.bare, Commit: f.c1, Path: "docs/guides/deep", Branch: "y",
			Changes: []Change{{Path: p, Mode: 0o644, Content: []byte("x")}}}); err == nil {
			t.Errorf("change of %q: no error", p)
		}
	}
	// Files lists the pushed commit's package, as Materialize would write it.
	files, err := e.Files(ctx, FetchRequest{URL: f.bare, Commit: gittest.MustGit(t, f.bare, "rev-parse", res.Branch), Path: "docs/guides/deep"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, fl := range files {
		names = append(names, fl.Path)
	}
	if strings.Join(names, " ") != "a.md/now-a-folder.md link.md link2.md run.sh" {
		t.Errorf("Files: %v", names)
	}
}
