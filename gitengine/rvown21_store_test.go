package gitengine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/boundedfile"
)

// A fifo planted as a pack's index in a shared cache's store (review of
// own21, which closed the same hang for ctx-commits): go-git reads every
// index of the store after a fetch, and idxFS's open of the fifo waited
// for a writer forever, so every update from that remote hung. The
// store's files are opened without waiting (boundedfile.NonBlock) and one
// that is not a regular file is refused, naming it.
func TestRvOwn21StoreIdxFifo(t *testing.T) {
	t.Parallel()
	f, url, cache := own21Cached(t)
	idx := idxFifo(t, cache)
	// It returns (before, it never did). What it says is a damaged
	// store's error, as for a junk index (go-git leaves the pack out,
	// the haves name commits whose objects it cannot read): not this
	// test's matter.
	_, err := New(Options{CacheDir: cache}).Materialize(context.Background(), FetchRequest{URL: url, Commit: f.c2, Path: "docs/guides/deep"}, filepath.Join(t.TempDir(), "b"))
	t.Logf("Materialize: %v", err)
	// The store's reader refuses it, naming it.
	_, err = newCacheStorage(storeOf(t, cache), false).Filesystem().Open(filepath.Join("objects", "pack", filepath.Base(idx)))
	if !errors.Is(err, boundedfile.ErrNotRegular) || !strings.Contains(err.Error(), idx) {
		t.Errorf("open of the fifo through the store: %v; want ErrNotRegular naming it", err)
	}
}

// A ctx-commits over its read bound (16 MiB: only a planted one, ctx
// appends a line a fetch) is never read, so a fetch offers no haves;
// gc's pruneRecords returned on that read error and left it, so it
// stayed so until the store was removed (review of own21). gc now
// writes the record again from nothing readable: it is replaced.
func TestRvOwn21CommitsRecordOverBoundReplaced(t *testing.T) {
	t.Parallel()
	_, _, cache := own21Cached(t)
	store := storeOf(t, cache)
	p := filepath.Join(store, "ctx-commits")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxCommitsRecord + 1); err != nil { // sparse: no disk
		t.Fatal(err)
	}
	f.Close()
	st := newCacheStorage(store, false)
	if err := pruneRecords(st, store, &useFile{}, nil, true); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxCommitsRecord {
		t.Errorf("ctx-commits after gc: %v, %v; want a regular file within the bound", fi, err)
	}
	if _, err := readCommitsRecord(store); err != nil {
		t.Errorf("ctx-commits after gc not read: %v", err)
	}
}

// The same fifo for a pack's index held `ctx cache` (CacheInfo counts
// each index's objects) and gc (readIdx) forever. readIdx opens only a
// regular file, without waiting (review of own21): the listing goes on,
// gc names the index.
func TestRvOwn21CacheInfoIdxFifo(t *testing.T) {
	t.Parallel()
	_, _, cache := own21Cached(t)
	idx := idxFifo(t, cache)
	e := New(Options{CacheDir: cache})
	if got, err := e.CacheInfo(context.Background()); err != nil || len(got) != 1 {
		t.Errorf("CacheInfo with a fifo for a pack's index: %v, %v; want the store listed", got, err)
	}
	if _, err := e.GC(context.Background(), GCOptions{Keep: DefaultKeep, Now: gcNow}); !errors.Is(err, boundedfile.ErrNotRegular) || !strings.Contains(err.Error(), idx) {
		t.Errorf("GC with a fifo for a pack's index: %v; want it named", err)
	}
	if _, _, err := readIdx(idx); !errors.Is(err, boundedfile.ErrNotRegular) {
		t.Errorf("readIdx of a fifo: %v; want ErrNotRegular", err)
	}
}

// idxFifo puts a fifo in place of the pack index of cache's one store and
// returns its path (the test skips where fifos cannot be made).
func idxFifo(t *testing.T, cache string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(storeOf(t, cache), "objects", "pack", "*.idx"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no pack index in the store: %v", err)
	}
	if err := os.Remove(m[0]); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(m[0]); err != nil {
		t.Skip(err)
	}
	return m[0]
}
