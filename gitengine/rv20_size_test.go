package gitengine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// TestRV20ForgedSizeDoesNotDropAFile (review of red20): red20 checks
// every object read from the cache against its id, but the size limit
// (dropLarge) read a blob's size from the object's header alone: a
// writer of the shared cache planted, under the id of one of the
// commit's files, an object larger than the limit, and the file was left
// out of the install as "over the size limit" (and out of the lock's hash
// on add or update) with no error. A file is skipped for its size only
// when its object is the blob its id names.
func TestRV20ForgedSizeDoesNotDropAFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{})
	url := s.URL + "/repo.git"
	const sub = "docs/guides/deep"
	cache := t.TempDir()
	ctx := context.Background()
	opts := Options{CacheDir: cache, MaxFileSize: 100}
	if _, err := New(opts).Materialize(ctx, FetchRequest{URL: url, Commit: f.c1, Path: "src"}, filepath.Join(t.TempDir(), "src")); err != nil {
		t.Fatal(err)
	}
	store := storeOf(t, cache)
	plantObject(t, store, f.objectAt(f.c2, sub+"/a.md"), "blob", []byte(strings.Repeat("x", 200)))
	dest := filepath.Join(t.TempDir(), "deep")
	res, err := New(opts).Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Ref: "master", Path: sub}, dest)
	if err == nil {
		for _, sk := range res.Skipped {
			if sk.Path == "a.md" {
				t.Fatalf("a.md (21 bytes) was skipped (%s) for the size of a forged object in the cache", sk.Reason)
			}
		}
		if b, _ := os.ReadFile(filepath.Join(dest, "a.md")); string(b) != "# A\n\nalpha, revised\n" {
			t.Fatalf("a.md = %q", b)
		}
		return // refetched: the genuine content
	}
	if !strings.Contains(err.Error(), store) {
		t.Errorf("error %q does not name the cache's store %s", err, store)
	}
}

// TestRV20ForgedLinkSizeDoesNotDropALink (review of red20): readTarget
// took a link's blob over 4 KiB from its header alone as an unsafe link
// and skipped it: a forged object under a link's id left the link out of
// the install with no error. Such a size is believed only from the blob
// its id names.
func TestRV20ForgedLinkSizeDoesNotDropALink(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{})
	url := s.URL + "/repo.git"
	const sub = "docs/guides/deep"
	cache := t.TempDir()
	ctx := context.Background()
	if _, err := New(Options{CacheDir: cache}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c1, Path: "src"}, filepath.Join(t.TempDir(), "src")); err != nil {
		t.Fatal(err)
	}
	store := storeOf(t, cache)
	plantObject(t, store, f.objectAt(f.c2, sub+"/link.md"), "blob", []byte(strings.Repeat("x", 5000)))
	dest := filepath.Join(t.TempDir(), "deep")
	res, err := New(Options{CacheDir: cache}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Ref: "master", Path: sub}, dest)
	if err == nil {
		for _, sk := range res.Skipped {
			if sk.Path == "link.md" {
				t.Fatalf("link.md was skipped (%s) for the size of a forged object in the cache", sk.Reason)
			}
		}
		if target, _ := os.Readlink(filepath.Join(dest, "link.md")); target != "a.md" {
			t.Fatalf("link.md -> %q", target)
		}
		return
	}
	if !strings.Contains(err.Error(), store) {
		t.Errorf("error %q does not name the cache's store %s", err, store)
	}
}
