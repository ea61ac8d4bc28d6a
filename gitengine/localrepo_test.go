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
// object in the pack, from the shared object cache or not; after a
// commit and a second repack (the pack the Engine read removed), a
// later call finds the new commit's objects, in no cache, in the new
// pack (a storage kept across calls fails there: rv-upd23); a repository
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
	repack := func() {
		t.Helper()
		for _, args := range [][]string{{"repack", "-adq"}, {"prune-packed"}} {
			if out, err := gittest.Git(src, args...); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	repack()
	// The Engine reads the pack (its index listed by the storage) for the
	// objects its cache lacks: the root tree's parent commit of a new
	// Resolve and the refs.
	if _, err := e.Resolve(ctx, src, ""); err != nil {
		t.Fatalf("Resolve after the first repack: %v", err)
	}
	// A commit made after the Engine read the pack, then packed with
	// everything else (the first pack removed): its objects are in no
	// cache and only in a pack that did not exist when the Engine first
	// read one, so a storage that listed the packs once (a kept one)
	// would not find them (rv-upd23).
	gittest.Commit(t, src, "later", map[string]string{"docs/c.md": "# C\n\ngamma\n"})
	repack()
	if m, _ := filepath.Glob(filepath.Join(src, ".git", "objects", "??", "*")); len(m) != 0 {
		t.Fatalf("loose objects left after the repack: %v", m)
	}
	read("packed")
	later, err := e.Resolve(ctx, src, "")
	if err != nil {
		t.Fatalf("Resolve after the repack: %v", err)
	}
	if later.Commit == res.Commit {
		t.Fatal("Resolve after the repack: still the first commit")
	}
	lreq := FetchRequest{URL: src, Commit: later.Commit, Path: "docs"}
	if _, err := e.TreeOf(ctx, lreq); err != nil {
		t.Fatalf("TreeOf of the later commit: %v", err)
	}
	lt, err := e.ReadTree(ctx, lreq)
	if err != nil {
		t.Fatalf("ReadTree of the later commit: %v", err)
	}
	defer lt.Close()
	var c string
	for _, f := range lt.Files {
		if f.Path == "c.md" {
			b, err := lt.Read(f.BlobID)
			if err != nil {
				t.Fatalf("c.md: %v", err)
			}
			c = string(b)
		}
	}
	if c != "# C\n\ngamma\n" {
		t.Fatalf("c.md of the later commit = %q (files %+v)", c, lt.Files)
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
