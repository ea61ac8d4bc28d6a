package webfetch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// docServer serves each path's text as a markdown document.
func docServer(t *testing.T, docs map[string]string) *server {
	return serve(t, func(w http.ResponseWriter, r *http.Request) {
		body, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		io.WriteString(w, body)
	})
}

// age sets p's file time to d before now.
func age(t *testing.T, p string, d time.Duration) {
	t.Helper()
	old := time.Now().Add(-d)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
}

func snapshotPath(t *testing.T, cache, rev string) string {
	t.Helper()
	h, err := revHex(rev)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(cache, "https", "snapshots", h+".json")
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestGCKeepRule: a snapshot not used within the keep period goes with the
// blobs only it names; a used one stays with its blobs, however old they
// are; a blob written within the period stays though no snapshot names it;
// a dry run changes nothing; the old 404 records go.
func TestGCKeepRule(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	s := docServer(t, map[string]string{"/old.md": "# Old\n", "/used.md": "# Used\n", "/shared.md": "# Shared\n"})
	c := New(Options{CacheDir: cache, backoff: time.Millisecond})
	old := fetchOK(t, c, Request{URL: s.URL + "/old.md", AllowPrivate: true})
	used := fetchOK(t, c, Request{URL: s.URL + "/used.md", AllowPrivate: true})
	fetchErr(t, c, Request{URL: s.URL + "/gone.md", AllowPrivate: true}, KindNotFound)
	c.Close()
	blobs := filepath.Join(cache, "https", "blobs")
	oldBlob, usedBlob := filepath.Join(blobs, old.Items[0].Blob), filepath.Join(blobs, used.Items[0].Blob)
	for _, p := range []string{snapshotPath(t, cache, old.Rev), snapshotPath(t, cache, used.Rev), oldBlob, usedBlob} {
		age(t, p, 30*24*time.Hour)
	}
	notFound, _ := filepath.Glob(filepath.Join(cache, "https", "notfound", "*"))
	if len(notFound) != 1 {
		t.Fatalf("404 records %v", notFound)
	}
	age(t, notFound[0], 2*notFoundTTL)
	// A blob written now that no snapshot names yet (a Fetch in flight).
	c2 := New(Options{CacheDir: cache})
	fresh, _, err := c2.storeBlob(strings.NewReader("in flight"), 100)
	if err != nil {
		t.Fatal(err)
	}
	// An install uses the "used" snapshot: its use is recorded.
	if _, err := c2.Cached(used.Rev); err != nil {
		t.Fatal(err)
	}
	c2.Close()

	before, err := Usage(cache)
	if err != nil {
		t.Fatal(err)
	}
	dry, err := GC(context.Background(), cache, GCOptions{Keep: 14 * 24 * time.Hour, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if dry.DroppedSnapshots != 1 || dry.DroppedBlobs != 1 || dry.Snapshots != 2 || dry.Blobs != 3 || dry.BytesAfter >= dry.BytesBefore {
		t.Errorf("dry run %+v", dry)
	}
	if after, _ := Usage(cache); after != before {
		t.Errorf("dry run changed the cache: %+v, was %+v", after, before)
	}

	res, err := GC(context.Background(), cache, GCOptions{Keep: 14 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if res.Skipped != "" || res.DroppedSnapshots != 1 || res.DroppedBlobs != 1 || res.BytesAfter != dry.BytesAfter {
		t.Errorf("gc %+v, dry run said %+v", res, dry)
	}
	for p, want := range map[string]bool{
		snapshotPath(t, cache, old.Rev):  false,
		oldBlob:                          false,
		notFound[0]:                      false,
		snapshotPath(t, cache, used.Rev): true,
		usedBlob:                         true,
		filepath.Join(blobs, fresh):      true,
	} {
		if exists(p) != want {
			t.Errorf("%s: exists %v, want %v", p, !want, want)
		}
	}
	c3 := New(Options{CacheDir: cache})
	defer c3.Close()
	if _, err := c3.Cached(used.Rev); err != nil {
		t.Errorf("the used snapshot does not serve after gc: %v", err)
	}
	if _, err := c3.Cached(old.Rev); !errors.Is(err, ErrNotCached) {
		t.Errorf("the dropped snapshot: %v, want ErrNotCached (fetch again)", err)
	}

	// Keep 0 drops everything not in use.
	c3.Close()
	if res, err := GC(context.Background(), cache, GCOptions{}); err != nil || res.BytesAfter != 0 {
		t.Errorf("gc --keep 0: %+v, %v", res, err)
	}
}

// TestGCWaitsForUsers: while a Client uses the cache, GC skips it (or
// waits, up to Wait); once the Client is closed, GC collects, and a Client
// started during a GC waits for it instead of reading a half-collected
// cache.
func TestGCWaitsForUsers(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	s := docServer(t, map[string]string{"/a.md": "# A\n"})
	c := New(Options{CacheDir: cache, backoff: time.Millisecond})
	snap := fetchOK(t, c, Request{URL: s.URL + "/a.md", AllowPrivate: true})

	res, err := GC(context.Background(), cache, GCOptions{})
	if err != nil || res.Skipped == "" {
		t.Fatalf("gc while a client holds the cache: %+v, %v; want skipped", res, err)
	}
	if _, err := c.Cached(snap.Rev); err != nil {
		t.Fatalf("the client lost its snapshot to gc: %v", err)
	}
	done := make(chan GCResult)
	go func() {
		res, err := GC(context.Background(), cache, GCOptions{Wait: time.Minute})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	time.Sleep(100 * time.Millisecond) // GC is waiting
	c.Close()
	if res := <-done; res.Skipped != "" || res.DroppedSnapshots != 1 {
		t.Errorf("gc after the client closed: %+v", res)
	}
	if exists(snapshotPath(t, cache, snap.Rev)) {
		t.Error("the snapshot is still there after gc --keep 0")
	}

	// A Client's first use waits for a GC in progress.
	gcLock := flock.New(filepath.Join(cache, lockName))
	if ok, err := gcLock.TryLock(); !ok || err != nil {
		t.Fatalf("lock: %v %v", ok, err)
	}
	c2 := New(Options{CacheDir: cache})
	defer c2.Close()
	used := make(chan error)
	go func() {
		_, err := c2.Cached(snap.Rev)
		used <- err
	}()
	time.Sleep(100 * time.Millisecond)
	select {
	case err := <-used:
		t.Fatalf("a client read the cache while gc held it: %v", err)
	default:
	}
	gcLock.Unlock()
	if err := <-used; !errors.Is(err, ErrNotCached) {
		t.Errorf("after gc: %v, want ErrNotCached", err)
	}
}
