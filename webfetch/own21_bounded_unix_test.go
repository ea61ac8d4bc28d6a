//go:build unix

package webfetch

import (
	"errors"
	"io"
	"net/http"
	"os"
	"syscall"
	"testing"
)

// The https cache may be shared: a snapshot record replaced by a fifo
// held Cached's open forever (no writer). It is read bounded (own21,
// internal/boundedfile) and taken as not cached: fetched again.
func TestOwn21SnapshotFifo(t *testing.T) {
	t.Parallel()
	s := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "content "+r.URL.Path) })
	c := newClient(t, Options{})
	snap := fetchOK(t, c, Request{URL: s.URL + "/a.md", AllowPrivate: true})
	h, _ := revHex(snap.Rev)
	p := c.dir("snapshots", h+".json")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	if _, err := c.Cached(snap.Rev); !errors.Is(err, ErrNotCached) {
		t.Errorf("Cached with a fifo for its record: %v; want ErrNotCached", err)
	}
}

// A blob of the shared https cache replaced by a fifo held Cached's
// check of it (verifyBlob: c.Open, then a hash to the end) forever, as
// the snapshot record did before own21; a link to /dev/zero was hashed
// forever. Open takes only a regular file, without waiting: the blob is
// not cached, and fetched again (review of own21).
func TestRvOwn21BlobFifo(t *testing.T) {
	t.Parallel()
	s := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "content "+r.URL.Path) })
	c := newClient(t, Options{})
	snap := fetchOK(t, c, Request{URL: s.URL + "/a.md", AllowPrivate: true})
	blob := c.dir("blobs", snap.Items[0].Blob)
	if err := os.Remove(blob); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(blob, 0o644); err != nil {
		t.Skip(err)
	}
	if _, err := c.Cached(snap.Rev); !errors.Is(err, ErrNotCached) {
		t.Errorf("Cached with a fifo for its blob: %v; want ErrNotCached", err)
	}
	if err := os.Remove(blob); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", blob); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Cached(snap.Rev); !errors.Is(err, ErrNotCached) {
		t.Errorf("Cached with a link to /dev/zero for its blob: %v; want ErrNotCached", err)
	}
}
