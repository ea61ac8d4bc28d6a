package gitengine

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// TestConnectionsReused: one Engine reuses its connections to a host for
// as many fetches as run at once (http.DefaultTransport keeps two idle a
// host, so a second wave of parallel fetches opened new ones: over https,
// a TLS handshake each).
func TestConnectionsReused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const n = 6
	for i := range n {
		f.copyBare(fmt.Sprintf("r%d.git", i))
	}
	// Each response waits, so the fetches of a wave overlap.
	s := f.serve(gittest.ServeOptions{Latency: 100 * time.Millisecond})
	e := New(Options{CacheDir: t.TempDir()})
	ctx := context.Background()
	for wave := range 2 {
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req := FetchRequest{URL: fmt.Sprintf("%s/r%d.git", s.URL, i), Commit: []string{f.c1, f.c2}[wave], Path: "docs/guides/deep"}
				_, errs[i] = e.Materialize(ctx, req, filepath.Join(t.TempDir(), "p"))
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if s.Requests() < 3*n {
		t.Fatalf("%d requests, want at least %d", s.Requests(), 3*n)
	}
	if s.Conns() > n {
		t.Errorf("%d requests over %d connections, want at most %d (one per fetch running at once)", s.Requests(), s.Conns(), n)
	}
}
