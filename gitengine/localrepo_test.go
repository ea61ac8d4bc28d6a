package gitengine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
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

// TestLocalRepoSharedByParallelCalls: the calls of one Engine that read
// one local repository at once (an install's packages fetched in
// parallel, workspace's Jobs) each read through a storage of their own
// over the one object cache they share (localRepo), which must hold
// under -race: a storage shared by the calls (its pack index filled on
// first use, unlocked) would race. Every call reads what the repository
// holds, packed or not.
func TestLocalRepoSharedByParallelCalls(t *testing.T) {
	t.Parallel()
	if !gittest.Available() {
		t.Skip("git not installed")
	}
	src := filepath.Join(t.TempDir(), "src")
	files := map[string]string{}
	for i := range 8 {
		files[fmt.Sprintf("p%d/doc.md", i)] = fmt.Sprintf("# Doc %d\n", i)
	}
	commit := gittest.NewRepo(t, src, files)
	if out, err := gittest.Git(src, "repack", "-adq"); err != nil {
		t.Fatalf("git repack: %v\n%s", err, out)
	}
	ctx := context.Background()
	e := New(Options{}) // its first read of src is one of the calls below
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(files))
	for i := range 8 {
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req := FetchRequest{URL: src, Commit: commit, Path: fmt.Sprintf("p%d", i)}
				if _, err := e.Resolve(ctx, src, ""); err != nil {
					errs <- err
					return
				}
				if _, err := e.TreeOf(ctx, req); err != nil {
					errs <- err
					return
				}
				tr, err := e.ReadTree(ctx, req)
				if err != nil {
					errs <- err
					return
				}
				defer tr.Close()
				if len(tr.Files) != 1 {
					errs <- fmt.Errorf("p%d: files %+v", i, tr.Files)
					return
				}
				if b, err := tr.Read(tr.Files[0].BlobID); err != nil || string(b) != fmt.Sprintf("# Doc %d\n", i) {
					errs <- fmt.Errorf("p%d: doc.md = %q, %v", i, b, err)
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
