package mcpserver

import (
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
)

// fixB19: a call whose bound went to waiting on the index (a freshness
// walk, another call's check holding the one check-and-start, a
// re-index) answered "narrow the query", advice that cannot help. It now
// says the index is being brought up to date and to call again; and the
// call does not wait past its bound on the walk nor on the other call's
// check. The walk here blocks until the test ends (or 20 s: then the old
// code answers, with the narrowing advice, and the test fails instead of
// hanging); the call's bound is 500 ms, so the call cannot finish in it.
//
// flake21: under load (~15-17, -race, three copies beside a package
// run) the 50 ms bound ended before the first call reached the walk, and
// a bound spent before the wait is, by design, not the index's: the
// answer said to narrow the query (14 failures in 120 runs). Two causes:
// the server's first use of the project (the snapshot: manifest and lock
// read, the watch set on every folder; the index opened) took 44-111 ms
// inside the first call's bound, so it is now done before the calls; and
// a 50 ms bound is within a loaded machine's scheduling delay (1 failure
// in 120 with that cost gone), so the bound is 500 ms. The calls still
// cannot finish in it: the walk blocks until the test ends.
func TestCallBoundSpentOnTheIndexSaysSo(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var srv *Server
	cs := connect(t, sharedProject(t).dir, func(s *Server) {
		srv = s
		s.callTimeout = 500 * time.Millisecond
		s.freshness = func(r *indexer.Reader, pkgs []indexer.Package) (indexer.Freshness, error) {
			select {
			case <-release:
			case <-time.After(20 * time.Second):
			}
			return r.Freshness(pkgs)
		}
	})
	t.Cleanup(func() { close(release) }) // before connect's: its Close waits for the walk
	srv.snapshot()
	if _, err := srv.reader(); err != nil {
		t.Fatal(err)
	}
	// The first call waits on the walk; the second on the first's
	// check-and-start, which the walk still holds.
	for i := range 2 {
		res := call(t, cs, "search", map[string]any{"query": "zanzibar widgets"}, nil)
		wantError(t, res, "search: stopped after 500ms", "the index is being brought up to date", "call again")
		if got := text(res); strings.Contains(got, "narrow") {
			t.Errorf("call %d: %q gives the narrowing advice for time spent waiting on the index", i+1, got)
		}
	}
}
