package gitengine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// TestLocalRepoOpenedOnceSeesRepack: one Engine opens and checks a local
// repository once however many calls read it (localRepo), and each call
// still reads it as it is then: after the user repacks it (its loose
// objects gone into a pack), a later call of the same Engine finds every
// object in the pack, from the shared object cache or not; a repository
// removed meanwhile is an error of that call's reads, not a stale answer.
func TestLocalRepoOpenedOnceSeesRepack(t *testing.T) {
	t.Parallel()
	if !gittest.Available() {
		t.Skip("git not installed")
	}
	src := filepath.Join(t.TempDir(), "src")
	gittest.NewRepo(t, src, map[string]string{"docs/a.md": "# A\n\nalpha\n", "docs/sub/b.md": "# B\n"})
	ctx := context.Background()
	e := New(Options{})
	res, err := e.Resolve(ctx, src, "")
	if err != nil {
		t.Fatal(err)
	}
	req := FetchRequest{URL: src, Commit: res.Commit, Path: "docs"}
	read := func(when string) {
		t.Helper()
		if _, err := e.TreeOf(ctx, req); err != nil {
			t.Fatalf("%s: TreeOf: %v", when, err)
		}
		tr, err := e.ReadTree(ctx, req)
		if err != nil {
			t.Fatalf("%s: ReadTree: %v", when, err)
		}
		defer tr.Close()
		if len(tr.Files) != 2 {
			t.Fatalf("%s: files %+v", when, tr.Files)
		}
		b, err := tr.Read(tr.Files[0].BlobID)
		if err != nil || string(b) != "# A\n\nalpha\n" {
			t.Fatalf("%s: a.md = %q, %v", when, b, err)
		}
	}
	read("loose")
	for _, args := range [][]string{{"repack", "-adq"}, {"prune-packed"}} {
		if out, err := gittest.Git(src, args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(src, ".git", "objects", "??", "*")); len(m) != 0 {
		t.Fatalf("loose objects left after the repack: %v", m)
	}
	read("packed")
	if _, err := e.Resolve(ctx, src, ""); err != nil {
		t.Fatalf("Resolve after the repack: %v", err)
	}
	if n := len(e.mem.locals.m); n != 1 {
		t.Errorf("%d local repositories remembered, want 1", n)
	}
	if err := os.RemoveAll(filepath.Join(src, ".git", "objects")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ReadTree(ctx, req); err == nil {
		t.Error("ReadTree of a repository whose objects are gone worked")
	}
}
