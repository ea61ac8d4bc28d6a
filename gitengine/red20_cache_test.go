package gitengine

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

// The shared cache as attack input (red20): CTX_CACHE may be shared by
// several users or projects, so what a store holds is untrusted. These
// tests write into a remote's store as another user, a stale writer or a
// SIGKILLed one could.

// storeOf is the one remote store under the cache root.
func storeOf(t *testing.T, cache string) string {
	t.Helper()
	ents, err := os.ReadDir(cache)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() && e.Name() != "https" {
			return filepath.Join(cache, e.Name())
		}
	}
	t.Fatalf("no remote's store in %s", cache)
	return ""
}

// plantObject writes a loose object of kind and content into store under
// id, whatever id the content hashes to (a forged object).
func plantObject(t *testing.T, store, id, kind string, content []byte) {
	t.Helper()
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	fmt.Fprintf(zw, "%s %d\x00", kind, len(content))
	zw.Write(content)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(store, "objects", id[:2], id[2:])
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, z.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
}

// rawObject is the content of object id in the bare repository repo.
func rawObject(t *testing.T, repo, id string) []byte {
	t.Helper()
	r, err := PlainOpen(repo, false)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := r.Storer.EncodedObject(plumbing.AnyObject, plumbing.NewHash(id))
	if err != nil {
		t.Fatal(err)
	}
	rd, err := obj.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	b, err := io.ReadAll(rd)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// treeWith is a tree's content with one entry's id replaced.
func treeWith(t *testing.T, content []byte, old, new string) []byte {
	t.Helper()
	o, _ := hex.DecodeString(old)
	n, _ := hex.DecodeString(new)
	if !bytes.Contains(content, o) {
		t.Fatalf("the tree has no entry %s", old)
	}
	return bytes.Replace(content, o, n, 1)
}

// TestRed20ForgedCacheObjects (red20 finding 1): a writer of the shared
// cache plants objects under ids the package's commit names, but with
// other content. ctx trusted every object of the store by its id: an add or
// update installed (and locked) the forged files as the real commit's, and
// an install from a teammate's lock failed with advice to run `ctx update`,
// which would lock them. Every object read from the store must hash to
// its id; a forged one fails the fetch, naming the store, and nothing is
// written.
func TestRed20ForgedCacheObjects(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{})
	url := s.URL + "/repo.git"
	const sub = "docs/guides/deep"
	evilBlob := HashBlob([]byte("# A\n\nEVIL\n"))
	for _, c := range []struct {
		name  string
		plant func(t *testing.T, store string)
	}{
		// a.md's blob at c2 says something else.
		{"blob", func(t *testing.T, store string) {
			plantObject(t, store, f.objectAt(f.c2, sub+"/a.md"), "blob", []byte("# A\n\nEVIL\n"))
		}},
		// The genuine commit c2, whose sub-path's tree lists an evil blob.
		{"tree", func(t *testing.T, store string) {
			plantObject(t, store, evilBlob, "blob", []byte("# A\n\nEVIL\n"))
			subTree := f.objectAt(f.c2, sub)
			plantObject(t, store, subTree, "tree", treeWith(t, rawObject(t, f.bare, subTree), f.objectAt(f.c2, sub+"/a.md"), evilBlob))
			plantObject(t, store, f.c2, "commit", rawObject(t, f.bare, f.c2))
			// the trees above the sub-path, genuine
			for _, p := range []string{"", "docs", "docs/guides"} {
				id := f.objectAt(f.c2, p)
				plantObject(t, store, id, "tree", rawObject(t, f.bare, id))
			}
		}},
		// c2 names c1's root tree (every object under it genuine).
		{"commit", func(t *testing.T, store string) {
			raw := rawObject(t, f.bare, f.c2)
			root1, root2 := f.objectAt(f.c1, ""), f.objectAt(f.c2, "")
			plantObject(t, store, f.c2, "commit", bytes.Replace(raw, []byte(root2), []byte(root1), 1))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cache := t.TempDir()
			ctx := context.Background()
			// The store exists (src at c1 was installed from it), then a
			// writer plants objects of c2.
			if _, err := New(Options{CacheDir: cache}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c1, Path: "src"}, filepath.Join(t.TempDir(), "src")); err != nil {
				t.Fatal(err)
			}
			store := storeOf(t, cache)
			c.plant(t, store)
			dest := filepath.Join(t.TempDir(), "deep")
			res, err := New(Options{CacheDir: cache}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Ref: "master", Path: sub}, dest)
			if err == nil {
				b, _ := os.ReadFile(filepath.Join(dest, "a.md"))
				if string(b) == "# A\n\nalpha, revised\n" {
					return // refetched: the genuine content
				}
				t.Fatalf("installed a.md = %q from a forged cache (tree %s), want the commit's content or an error", b, res.TreeID)
			}
			if !strings.Contains(err.Error(), store) {
				t.Errorf("error %q does not name the cache's store %s", err, store)
			}
			if _, serr := os.Lstat(dest); serr == nil {
				t.Errorf("the error left %s", dest)
			}
		})
	}
}

// TestRed20CacheAlternatesNotFollowed (red20 finding 2): ctx never writes
// objects/info/alternates into a store, but go-git follows one it finds:
// objects of another folder were read as the remote's. An alternates file
// that names the store itself ("objects") made go-git recurse until the
// stack overflowed (fatal error: stack overflow, 1 GB of stack) at the
// first object the store lacks: `ctx cache gc` reached it through a used
// commit gc had dropped. Here the store's alternates name a folder that
// holds an object the store lacks: it must stay not found.
func TestRed20CacheAlternatesNotFollowed(t *testing.T) {
	t.Parallel()
	store := t.TempDir()
	other := filepath.Join(store, "other")
	id := storeObject(t, other, "blob", []byte("from elsewhere\n"))
	if err := os.MkdirAll(filepath.Join(store, "objects", "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(store, "objects", "info", "alternates"), []byte("/other/objects\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := newCacheStorage(store, true)
	defer st.Close()
	if _, err := st.EncodedObject(plumbing.AnyObject, plumbing.NewHash(id)); err != plumbing.ErrObjectNotFound {
		t.Errorf("an object only the alternates hold: err %v, want not found", err)
	}
	// Alternates naming the store itself: before, a stack overflow (a
	// fatal error no test survives) at the first object the store lacks.
	if err := os.WriteFile(filepath.Join(store, "objects", "info", "alternates"), []byte("objects\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	loop := newCacheStorage(store, true)
	defer loop.Close()
	if _, err := loop.EncodedObject(plumbing.AnyObject, plumbing.NewHash(strings.Repeat("0a", 20))); err != plumbing.ErrObjectNotFound {
		t.Errorf("a missing object, alternates naming the store: err %v, want not found", err)
	}
}

// TestRed20HugeIdxBoundedMemory (red20 finding 3): idxFS read a pack's
// .idx whole into memory before go-git checked it, so a junk .idx of N
// bytes in the cache (sparse: it costs no disk) took 2N of memory (1 GiB:
// 2.1 GB resident) in every command that opened the store. The memory a
// junk index costs must not grow with its size.
func TestRed20HugeIdxBoundedMemory(t *testing.T) {
	store := t.TempDir()
	pack := filepath.Join(store, "objects", "pack", "pack-"+strings.Repeat("ab", 20))
	if err := os.MkdirAll(filepath.Dir(pack), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pack+".pack", []byte("PACK\x00\x00\x00\x02\x00\x00\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	idx, err := os.Create(pack + ".idx")
	if err != nil {
		t.Fatal(err)
	}
	idx.Write([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2})
	if err := idx.Truncate(256 << 20); err != nil {
		t.Fatal(err)
	}
	idx.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	st := newCacheStorage(store, true)
	err = st.HasEncodedObject(plumbing.NewHash(strings.Repeat("01", 20)))
	st.Close()
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 32<<20 {
		t.Errorf("opening a store with a 256 MiB junk .idx allocated %d MiB (err %v); want it bounded", got>>20, err)
	}
	if err == nil || err == plumbing.ErrObjectNotFound {
		t.Errorf("a junk .idx: err %v, want it reported", err)
	}
}

// TestRed20DamagedPackSaysWhere (red20 finding 4): a pack cut short in
// the cache (a disk filled, a copy interrupted) made every install of the
// remote fail with go-git's bare "object not found": no store, no object,
// nothing to do. The error must name the store and say how to clear it.
func TestRed20DamagedPackSaysWhere(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{})
	url := s.URL + "/repo.git"
	cache := t.TempDir()
	ctx := context.Background()
	const sub = "docs/guides/deep"
	if _, err := New(Options{CacheDir: cache}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: sub}, filepath.Join(t.TempDir(), "a")); err != nil {
		t.Fatal(err)
	}
	store := storeOf(t, cache)
	packs, _ := filepath.Glob(filepath.Join(store, "objects", "pack", "*.pack"))
	if len(packs) == 0 {
		t.Fatal("no pack in the store")
	}
	for _, p := range packs {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, fi.Size()/2); err != nil {
			t.Fatal(err)
		}
	}
	dest := filepath.Join(t.TempDir(), "b")
	_, err := New(Options{CacheDir: cache}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: sub}, dest)
	if err == nil {
		if b, _ := os.ReadFile(filepath.Join(dest, "a.md")); string(b) == "# A\n\nalpha, revised\n" {
			return // refetched
		}
		t.Fatal("a damaged store installed something else")
	}
	if !strings.Contains(err.Error(), store) {
		t.Errorf("error %q does not name the store %s", err, store)
	}
}

// TestRed20CommitsRecordNotThroughALink (red20 finding 6): a store's
// ctx-commits was appended to with os.OpenFile, which follows a symbolic
// link: whoever can write the shared cache links it to a file of the
// user's (~/.bashrc, a config) and every fetch of that remote appends a
// line to it. The record must not be written through a link that leaves
// the store; the fetch itself goes on (the record only picks haves).
func TestRed20CommitsRecordNotThroughALink(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{})
	url := s.URL + "/repo.git"
	cache := t.TempDir()
	ctx := context.Background()
	if _, err := New(Options{CacheDir: cache}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c1, Path: "src"}, filepath.Join(t.TempDir(), "a")); err != nil {
		t.Fatal(err)
	}
	store := storeOf(t, cache)
	victim := filepath.Join(t.TempDir(), "bashrc")
	const mine = "alias ll='ls -l'\n"
	if err := os.WriteFile(victim, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(store, "ctx-commits")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(store, "ctx-commits")); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "b")
	if _, err := New(Options{CacheDir: cache}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: "docs/guides/deep"}, dest); err != nil {
		t.Fatalf("Materialize: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != mine {
		t.Errorf("a fetch wrote through the store's ctx-commits link into %s: %q", victim, b)
	}
}

// TestRed20HugeUseRecordBounded (red20 finding 7): ctx-used.json was read
// whole (os.ReadFile) by every fetch (recordUse), by NoteUse, cache info
// and gc: a junk one of N bytes (sparse: no disk) took N of memory in each.
// A record larger than any ctx writes is refused unread (a fetch replaces
// it, as it replaces one it cannot parse).
func TestRed20HugeUseRecordBounded(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, useFileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(256 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = readUses(dir)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 32<<20 {
		t.Errorf("reading a 256 MiB junk ctx-used.json allocated %d MiB; want it bounded", got>>20)
	}
	if err == nil || !strings.Contains(err.Error(), useFileName) {
		t.Errorf("a junk record: err %v, want one naming it", err)
	}
}
