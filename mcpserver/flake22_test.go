package mcpserver

import (
	"context"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/project"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// walkedSync is a seam for Server.sync whose first re-index walks and
// publishes (the real indexer.Sync), then says so on walked and waits
// for release before it ends; later ones run at once.
type walkedSync struct {
	calls   atomic.Int32
	walked  chan struct{}
	release chan struct{}
}

func (w *walkedSync) sync(ctx context.Context, dir string, pkgs []indexer.Package, opts indexer.Options) (*indexer.SyncReport, error) {
	rep, err := indexer.Sync(ctx, dir, pkgs, opts)
	if w.calls.Add(1) == 1 {
		close(w.walked)
		select {
		case <-w.release:
		case <-ctx.Done():
		}
	}
	return rep, err
}

// TestCallAfterChangeNotAnsweredByOlderReindex (flake22): a call that
// arrives after the watch saw a change, while a re-index that began
// before that change runs, is answered from an index that holds it. It
// waited for the running re-index and was answered from it: that one had
// walked before the change. red22_packages_pulled_edit.txtar failed so
// (3 in ~500 runs at load 20-28): `git pull` removes a file and writes
// the new one; under load the two were more than watchSettle apart, the
// watch's re-index walked in between (the file "removed"), and
// read_relevant, called after the pull had ended, waited for that
// re-index and found no deploy.md.
func TestCallAfterChangeNotAnsweredByOlderReindex(t *testing.T) {
	t.Parallel()
	dir := smallProject(t)
	w := &walkedSync{walked: make(chan struct{}), release: make(chan struct{})}
	var srv *Server
	cs, progress := connectProgress(t, dir, func(s *Server) {
		s.sync, srv = w.sync, s
		s.live.settle = time.Hour // no re-index of the watch's own here (it still starts one within watchMaxDelay)
	})
	released := false
	release := func() {
		if !released {
			released = true
			close(w.release)
		}
	}
	t.Cleanup(release) // before the server stops, even when the test fails
	pk := filepath.Join(dir, ".context", project.PackagesDir)
	searchPaths(t, cs, map[string]any{"query": "zanzibar"}) // the watch starts

	// A change; a call starts the re-index, which walks and publishes it.
	renameInto(t, filepath.Join(pk, "api", "first.md"), "# First\n\nThe okapi lives here.\n")
	first := goSearch(t, cs, "okapi", "")
	select {
	case <-w.walked:
	case <-time.After(wait):
		t.Fatal("no re-index walked")
	}

	// Another change, seen by the watch after that walk, before the
	// re-index ends; then a call, which finds the re-index running.
	srv.mu.Lock()
	g0 := srv.live.gen
	srv.mu.Unlock()
	renameInto(t, filepath.Join(pk, "api", "second.md"), "# Second\n\nA narwhal appears.\n")
	for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
		srv.mu.Lock()
		g := srv.live.gen
		srv.mu.Unlock()
		if g > g0 {
			break
		}
		if time.Since(start) > wait {
			t.Fatal("the watch never saw second.md")
		}
	}
	second := goSearch(t, cs, "narwhal", "tok-second")
	select {
	case <-progress: // it waits for the re-index running
	case <-time.After(wait):
		t.Fatal("the second call did not wait for the re-index running")
	}
	release()

	if got, _ := hitPaths(t, <-first); !slices.Equal(got, []string{"api/first.md"}) {
		t.Errorf("first call: %q, want api/first.md", got)
	}
	if got, warning := hitPaths(t, <-second); !slices.Equal(got, []string{"api/second.md"}) {
		t.Errorf("a call after second.md was written: hits %q (warning %q), want api/second.md: answered by the re-index that walked before it", got, warning)
	}
}

// goSearch calls search for query on another goroutine (with a progress
// token when tok is not ""); the result arrives on the channel (nil on a
// protocol error, which t reports).
func goSearch(t *testing.T, cs *mcp.ClientSession, query, tok string) chan *mcp.CallToolResult {
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": query}}
		if tok != "" {
			params.SetProgressToken(tok)
		}
		res, err := cs.CallTool(context.Background(), params)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	return done
}

// hitPaths is a search result's hits as package/path, and its warning.
func hitPaths(t *testing.T, res *mcp.CallToolResult) ([]string, string) {
	t.Helper()
	if res == nil || res.IsError {
		t.Fatalf("search failed: %v", res)
	}
	var out SearchOut
	decode(t, res, &out)
	var got []string
	for _, h := range out.Hits {
		got = append(got, h.Package+"/"+h.Path)
	}
	return got, out.Warning
}
