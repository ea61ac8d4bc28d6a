package gitengine

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

// treeAt is the tree id of path p at commit c in the fixture's source
// (or a blob's id, when p is a file).
func (f *fixture) treeAt(c, p string) string {
	f.t.Helper()
	return f.objectAt(c, p)
}

// objectsAt holds the answers of objectAt: a commit id names its tree, so
// the object at a path of it is the same in every copy of the fixture.
var objectsAt sync.Map // "commit:path" → object id

// objectAt is `git rev-parse c:p` in the fixture's source, asked of git
// once a process for each full commit id and path.
func (f *fixture) objectAt(c, p string) string {
	f.t.Helper()
	key := c + ":" + p
	if v, ok := objectsAt.Load(key); ok {
		return v.(string)
	}
	id := f.git("rev-parse", key)
	if len(c) == 40 {
		objectsAt.Store(key, id)
	}
	return id
}

// files lists a Result's files (path, blob, mode) without Size.
func fileList(r *Result) []File {
	out := make([]File, len(r.Files))
	for i, f := range r.Files {
		f.Size = 0
		out[i] = f
	}
	return out
}

// TestRequestsPerFetchByTree: a cold fetch that knows the sub-path's tree
// (a lock's) makes one request over smart HTTP, the tree with its files,
// and writes what the commit's way writes; a warm cache needs none, also
// when the store never got the commit. A tree the server will not send
// (not an object it has) goes the commit's way, and Result.TreeID is the
// commit's tree.
func TestRequestsPerFetchByTree(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	for _, o := range []gittest.ServeOptions{{}, {NoAnySHA1InWant: true}} {
		s := f.serve(o)
		url := s.URL + "/repo.git"
		sub := "docs/guides/deep"
		tree := f.treeAt(f.c2, sub)

		want, err := New(Options{CacheDir: t.TempDir()}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: sub}, filepath.Join(t.TempDir(), "a"))
		if err != nil {
			t.Fatal(err)
		}
		s.ResetCounters()
		cache := t.TempDir()
		dest := filepath.Join(t.TempDir(), "b")
		got, err := New(Options{CacheDir: cache}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: sub, Tree: tree}, dest)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		if n := s.Requests(); n != 1 {
			t.Errorf("%+v: cold fetch by tree: %d requests, want 1", o, n)
		}
		if got.TreeID != tree || got.Commit != f.c2 || !reflect.DeepEqual(fileList(got), fileList(want)) || got.Bytes == 0 {
			t.Errorf("%+v: by tree: %s %s %v (%d bytes); the commit's way: %s %v", o, got.Commit, got.TreeID, got.Files, got.Bytes, want.TreeID, want.Files)
		}
		if b, _ := os.ReadFile(filepath.Join(dest, "sub", "b.md")); string(b) != "# B\n\nbeta\n" {
			t.Errorf("%+v: sub/b.md = %q", o, b)
		}
		if has(storeDir(t, Options{CacheDir: cache}), plumbing.NewHash(f.c2)) {
			t.Errorf("%+v: the commit was fetched too", o)
		}

		// Warm: nothing to ask.
		s.ResetCounters()
		again, err := New(Options{CacheDir: cache}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: sub, Tree: tree}, filepath.Join(t.TempDir(), "c"))
		if err != nil || s.Requests() != 0 || again.Bytes != 0 || again.TreeID != tree {
			t.Errorf("%+v: warm cache: %v, %d requests, %+v", o, err, s.Requests(), again)
		}
		// Without the tree, the commit's way, on the same store.
		s.ResetCounters()
		if r, err := New(Options{CacheDir: cache}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: sub}, filepath.Join(t.TempDir(), "d")); err != nil || r.TreeID != tree || s.Requests() != 1 {
			t.Errorf("%+v: then without the tree: %v, %d requests (want 1: the commit's trees)", o, err, s.Requests())
		}

		// A tree id the server does not have: refused, then the commit's way.
		s.ResetCounters()
		r, err := New(Options{CacheDir: t.TempDir()}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: sub, Tree: strings.Repeat("ab", 20)}, filepath.Join(t.TempDir(), "e"))
		if err != nil || r.TreeID != tree || !reflect.DeepEqual(fileList(r), fileList(want)) {
			t.Errorf("%+v: unknown tree: %v, %+v; want the commit's tree %s", o, err, r, tree)
		}
	}
}

// TestGCKeepsATreeFetchedWithoutItsCommit: a folder fetched by its tree
// (the store lacks the commit) is recorded with its tree, and gc keeps the
// tree and its files while the use is recent; NoteUse renews it.
func TestGCKeepsATreeFetchedWithoutItsCommit(t *testing.T) {
	t.Parallel()
	o, _ := isolate(t)
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{})
	url := s.URL + "/repo.git"
	ctx := context.Background()
	e := New(o)
	sub := "docs/guides/deep"
	req := FetchRequest{URL: url, Commit: f.c2, Path: sub, Tree: f.treeAt(f.c2, sub)}
	if _, err := e.Materialize(ctx, req, filepath.Join(t.TempDir(), "a")); err != nil {
		t.Fatal(err)
	}
	dir := storeDir(t, o)
	blob := f.blobAt(f.c2, sub+"/sub/b.md")
	u, err := readUses(dir)
	if err != nil || len(u.Used) != 1 || u.Used[0].Tree != req.Tree {
		t.Fatalf("uses %+v, %v; want one with tree %s", u, err, req.Tree)
	}
	ageFiles(t, filepath.Join(dir, "objects"), gcNow.Add(-30*day))
	setUses(t, dir, map[string]time.Time{f.c2: gcNow.Add(-40 * day)})
	// NoteUse (a package left in place) renews the use, tree and all.
	if err := e.NoteUse(ctx, req); err != nil {
		t.Fatal(err)
	}
	if u, err := readUses(dir); err != nil || len(u.Used) != 1 || u.Used[0].Tree != req.Tree || u.Used[0].Time.Before(gcNow) {
		t.Fatalf("uses after NoteUse %+v, %v", u, err)
	}
	if res, err := e.GC(ctx, GCOptions{Keep: DefaultKeep, Now: gcNow}); err != nil || res[0].Dropped != 0 || res[0].Commits != 1 {
		t.Fatalf("GC: %v, %+v; want nothing dropped, the one use kept", err, res)
	}
	if !has(dir, blob) || !has(dir, plumbing.NewHash(req.Tree)) {
		t.Error("gc dropped the tree or its files, used yesterday")
	}
	setUses(t, dir, map[string]time.Time{f.c2: gcNow.Add(-40 * day)})
	ageFiles(t, filepath.Join(dir, "objects"), gcNow.Add(-30*day))
	if res, err := e.GC(ctx, GCOptions{Keep: DefaultKeep, Now: gcNow}); err != nil || res[0].Dropped == 0 {
		t.Fatalf("GC: %v, %+v; want the unused tree dropped", err, res)
	}
	if has(dir, blob) {
		t.Error("a tree not used within the keep period survived")
	}
	fsck(t, dir)
}

// TestTreeRefusedOncePerHost: when a host will not send the tree a fetch
// wants (here, an id it does not have), the Engine goes the commit's way
// for that host's later packages at once, without the refused request.
func TestTreeRefusedOncePerHost(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.copyBare("copy.git")
	s := f.serve(gittest.ServeOptions{})
	ctx := context.Background()
	e := New(Options{CacheDir: t.TempDir()})
	bogus := strings.Repeat("ab", 20)
	sub := "docs/guides/deep"
	for i, repo := range []string{"repo.git", "copy.git"} {
		s.ResetCounters()
		r, err := e.Materialize(ctx, FetchRequest{URL: s.URL + "/" + repo, Commit: f.c2, Path: sub, Tree: bogus}, filepath.Join(t.TempDir(), "p"))
		if err != nil || r.TreeID != f.treeAt(f.c2, sub) {
			t.Fatalf("%s: %v, %+v", repo, err, r)
		}
		// The first: the refused tree, the advertisement, trees, blobs;
		// the second: trees, blobs.
		if want := []int{4, 2}[i]; s.Requests() != want {
			t.Errorf("%s: %d requests, want %d", repo, s.Requests(), want)
		}
	}
}
