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
