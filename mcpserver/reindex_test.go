package mcpserver

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// slowSync is a seam for Server.sync: each re-index signals started, then
// waits for release (or its context) before running the real indexer.Sync.
type slowSync struct {
	once    sync.Once
	calls   atomic.Int32
	started chan struct{}
	release chan struct{}
}

func newSlowSync() *slowSync {
	return &slowSync{started: make(chan struct{}, 10), release: make(chan struct{})}
}

// unblock lets every re-index run (again and again: it is idempotent).
func (w *slowSync) unblock() { w.once.Do(func() { close(w.release) }) }

func (w *slowSync) sync(ctx context.Context, dir string, pkgs []indexer.Package, opts indexer.Options) (*indexer.SyncReport, error) {
	w.calls.Add(1)
	w.started <- struct{}{}
	select {
	case <-w.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return indexer.Sync(ctx, dir, pkgs, opts)
}

// wait bounds how long a test waits for something that must happen (a
// hang, not a speed check).
const wait = time.Minute

// TestReindexSurvivesCancel: a call cancelled while the re-index it started
// runs does not stop the re-index; the next call does not start another:
// it waits for the one running (with progress for its token) and is
// answered from the new index.
func TestReindexSurvivesCancel(t *testing.T) {
	t.Parallel()
	dir := smallProject(t)
	w := newSlowSync()
	cs, progress := connectProgress(t, dir, func(s *Server) { s.sync = w.sync })
	t.Cleanup(w.unblock) // before the server stops, even when the test fails
	writeFile(t, filepath.Join(dir, ".context", "packages", "api", "new.md"), "# New\n\nThe okapi lives here.\n")

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "okapi"}})
		errc <- err
	}()
	select {
	case <-w.started:
	case <-time.After(wait):
		t.Fatal("the call did not start a re-index")
	}
	cancel() // the client gives up: notifications/cancelled
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}

	// The next call shares the re-index that still runs.
	params := &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "okapi"}}
	params.SetProgressToken("tok-next")
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		ctx2, cancel2 := context.WithTimeout(context.Background(), wait)
		defer cancel2()
		res, err := cs.CallTool(ctx2, params)
		if err != nil {
			t.Errorf("call during the re-index: %v", err)
		}
		done <- res
	}()
	select {
	case pn := <-progress:
		if pn.ProgressToken != "tok-next" || !strings.Contains(pn.Message, "re-indexing packages api") {
			t.Errorf("progress = %+v", pn)
		}
	case <-time.After(wait):
		t.Fatal("the next call did not wait for the re-index")
	}
	w.unblock()
	res := <-done
	if res == nil {
		t.Fatal("the call that waited failed")
	}
	var out SearchOut
	decode(t, res, &out)
	if res.IsError || len(out.Hits) != 1 || out.Hits[0].Path != "new.md" || out.Warning != "" {
		t.Errorf("call that waited: hits %+v, warning %q", out.Hits, out.Warning)
	}
	if n := w.calls.Load(); n != 1 {
		t.Errorf("%d re-indexes, want 1: the cancelled call's goes on and is shared", n)
	}
}

// TestReindexStopsWithServer: Close stops a re-index that is running.
func TestReindexStopsWithServer(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	w := newSlowSync()
	var srv *Server
	cs := connect(t, p.dir, func(s *Server) { s.sync, srv = w.sync, s })
	t.Cleanup(w.unblock) // before the server stops, even when the test fails
	writeFile(t, filepath.Join(p.ctxDir, "packages", "api", "new.md"), "# New\n\nThe okapi lives here.\n")
	ctx, cancel := context.WithCancel(context.Background())
	go cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "okapi"}})
	<-w.started
	cancel()
	closed := make(chan error, 1)
	go func() { closed <- srv.Close() }()
	select {
	case <-closed:
	case <-time.After(wait):
		t.Fatal("Close did not stop the re-index")
	}
}

// TestReindexProgress: a call that waits for a re-index sends
// notifications/progress to a client that set a progress token.
func TestReindexProgress(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	w := newSlowSync()
	s, err := New(Options{ProjectDir: p.dir, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	s.sync = w.sync
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	progress := make(chan *mcp.ProgressNotificationParams, 100)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			progress <- r.Params
		},
	}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.unblock(); cs.Close(); ss.Wait(); s.Close() })
	writeFile(t, filepath.Join(p.ctxDir, "packages", "api", "new.md"), "# New\n\nThe okapi lives here.\n")

	params := &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "okapi"}}
	params.SetProgressToken("tok-1")
	type result struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := cs.CallTool(ctx, params)
		done <- result{res, err}
	}()
	select {
	case pn := <-progress:
		if pn.ProgressToken != "tok-1" || !strings.Contains(pn.Message, "re-indexing packages api") {
			t.Errorf("progress = %+v", pn)
		}
	case <-time.After(wait):
		t.Fatal("no progress notification while re-indexing")
	}
	w.unblock()
	r := <-done
	if r.err != nil || r.res.IsError {
		t.Fatalf("call: %v %v", r.err, r.res)
	}
	var out SearchOut
	decode(t, r.res, &out)
	if len(out.Hits) != 1 || out.Warning != "" {
		t.Errorf("after the re-index: %+v, warning %q", out.Hits, out.Warning)
	}
}

// decode decodes a successful result into out (decodeResult).
func decode(t *testing.T, res *mcp.CallToolResult, out any) {
	t.Helper()
	if res.IsError {
		return
	}
	decodeResult(t, res, out)
}
