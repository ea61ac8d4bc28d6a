package gitengine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/internal/lockwait"
)

// A planted link on a store's lock files (own21, round 20's leftover):
// taking the lock created an empty file wherever the link pointed, as the
// user running ctx. Now the lock is refused, naming it, and nothing is
// made there.
func TestOwn21CacheLockNotThroughALink(t *testing.T) {
	t.Parallel()
	f, url, cache := own21Cached(t)
	ctx := context.Background()
	store := storeOf(t, cache)
	for _, suffix := range []string{fetchLockSuffix, readersLockSuffix} {
		victim := filepath.Join(t.TempDir(), "planted")
		lock := store + suffix
		if err := os.Remove(lock); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, lock); err != nil {
			t.Fatal(err)
		}
		_, err := New(Options{CacheDir: cache}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: "docs/guides/deep"}, filepath.Join(t.TempDir(), "b"))
		if !errors.Is(err, lockwait.ErrLinkedLock) {
			t.Errorf("%s a link: Materialize = %v; want ErrLinkedLock", suffix, err)
		}
		if _, err := os.Lstat(victim); err == nil {
			t.Errorf("%s a link: a file was made where it points", suffix)
		}
		if err := os.Remove(lock); err != nil {
			t.Fatal(err)
		}
	}
}

// A fifo planted as a store's ctx-commits (no writer, no reader) held an
// update's open forever: knownCommits read it, recordCommit appended to
// it, gc's pruneRecords read it. Read bounded and appended without
// waiting (own21, internal/boundedfile), the fetch goes on or fails
// naming it; it never waits.
func TestOwn21CommitsRecordFifo(t *testing.T) {
	t.Parallel()
	f, url, cache := own21Cached(t)
	ctx := context.Background()
	p := filepath.Join(storeOf(t, cache), "ctx-commits")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(p); err != nil {
		t.Skip(err)
	}
	_, err := New(Options{CacheDir: cache}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: "docs/guides/deep"}, filepath.Join(t.TempDir(), "b"))
	if err != nil && !errors.Is(err, boundedfile.ErrNotRegular) {
		t.Errorf("Materialize with a fifo for ctx-commits: %v; want it done, or refused naming the fifo", err)
	}
	t.Logf("Materialize: %v", err)
}

// own21Cached is a served repository, fetched once at c1 into a new
// cache: the fixture, its URL and the cache root.
func own21Cached(t *testing.T) (f *fixture, url, cache string) {
	t.Helper()
	f = newFixture(t)
	url = f.serve(gittest.ServeOptions{}).URL + "/repo.git"
	cache = t.TempDir()
	if _, err := New(Options{CacheDir: cache}).Materialize(context.Background(), FetchRequest{URL: url, Commit: f.c1, Path: "src"}, filepath.Join(t.TempDir(), "a")); err != nil {
		t.Fatal(err)
	}
	return f, url, cache
}
