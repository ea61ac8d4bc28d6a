package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/project"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// heldRender is a seam for Server.renderMD: once hold is set, a render
// signals started and waits for release (or its context: a re-index stops
// it) before running the real indexer.RenderIndexMD. Only the first held
// render waits when once is set.
type heldRender struct {
	hold    atomic.Bool
	once    bool
	held    atomic.Int32
	started chan struct{}
	release chan struct{}
	stopped chan error // what a stopped render returned
}

func newHeldRender(once bool) *heldRender {
	return &heldRender{once: once, started: make(chan struct{}, 20), release: make(chan struct{}), stopped: make(chan error, 20)}
}

func (h *heldRender) render(ctx context.Context, dir string, opts indexer.Options) (*indexer.SyncReport, error) {
	if h.hold.Load() && (!h.once || h.held.Add(1) == 1) {
		h.started <- struct{}{}
		select {
		case <-h.release:
		case <-ctx.Done():
			h.stopped <- ctx.Err()
			return nil, ctx.Err()
		}
	}
	return indexer.RenderIndexMD(ctx, dir, opts)
}

// searchAsync searches from another goroutine (t.Fatal may not be called
// there) and sends the hits as package/path, or the error.
func searchAsync(cs *mcp.ClientSession, query string) chan any {
	out := make(chan any, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": query}})
		if err != nil || res.IsError {
			out <- fmt.Errorf("search %q: %v %v", query, err, res)
			return
		}
		m, _ := res.StructuredContent.(map[string]any)
		hits, _ := m["hits"].([]any)
		var got []string
		for _, h := range hits {
			hm, _ := h.(map[string]any)
			got = append(got, fmt.Sprint(hm["package"], "/", hm["path"]))
		}
		out <- got
	}()
	return out
}

func readIndexFile(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, ".context", project.IndexName))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestWatchedEditSearchableBeforeIndexMD (issue 26): a watched edit is
// searchable as soon as the search index is published; INDEX.md's render
// comes after and the search does not wait for it (here it is held until
// the search has answered). get_overview waits for the render and shows
// the edit; INDEX.md on disk has it too.
func TestWatchedEditSearchableBeforeIndexMD(t *testing.T) {
	t.Parallel()
	dir := smallProject(t)
	h := newHeldRender(false)
	cs := connect(t, dir, func(s *Server) { s.renderMD = h.render })
	searchPaths(t, cs, map[string]any{"query": "zanzibar"}) // the first check, and the watch starts
	h.hold.Store(true)
	writeFile(t, filepath.Join(dir, ".context", project.PackagesDir, "api", "reference.md"), "# Aardvark API\n\nThe okapi endpoint returns widgets.\n")
	select {
	case <-h.started:
	case <-time.After(wait):
		t.Fatal("no INDEX.md render after a watched edit")
	}
	select {
	case got := <-searchAsync(cs, "okapi"):
		if hits, ok := got.([]string); !ok || !slices.Equal(hits, []string{"api/reference.md"}) {
			t.Errorf("search okapi while INDEX.md's render is held = %v, want api/reference.md", got)
		}
	case <-time.After(wait):
		t.Fatal("search waited for INDEX.md's render")
	}
	if md := readIndexFile(t, dir); strings.Contains(md, "Aardvark") {
		t.Errorf("INDEX.md has the edit while its render is held:\n%s", md)
	}
	close(h.release)
	var ov DocumentOut
	if res := call(t, cs, "get_overview", nil, &ov); res.IsError || !strings.Contains(ov.Text, "Aardvark API") {
		t.Errorf("get_overview after the render = %q (error %v), want the new title", ov.Text, res.IsError)
	}
	if md := readIndexFile(t, dir); !strings.Contains(md, "Aardvark API") {
		t.Errorf("INDEX.md after the render lacks the new title:\n%s", md)
	}
}

// TestReindexStopsIndexMDRender: a re-index that starts while INDEX.md is
// being rendered stops that render instead of waiting for it (the held
// render here never ends by itself: a re-index that waited would hang),
// publishes the next edit, and INDEX.md is rendered after it with that
// edit.
func TestReindexStopsIndexMDRender(t *testing.T) {
	t.Parallel()
	dir := smallProject(t)
	h := newHeldRender(true)
	var srv *Server
	cs := connect(t, dir, func(s *Server) { s.renderMD, srv = h.render, s })
	searchPaths(t, cs, map[string]any{"query": "zanzibar"})
	h.hold.Store(true)
	file := filepath.Join(dir, ".context", project.PackagesDir, "api", "reference.md")
	writeFile(t, file, "# Aardvark API\n\nThe okapi endpoint returns widgets.\n")
	select {
	case <-h.started:
	case <-time.After(wait):
		t.Fatal("no INDEX.md render after a watched edit")
	}
	writeFile(t, file, "# Numbat API\n\nThe numbat endpoint returns widgets.\n")
	indexed(t, srv, "numbat", "api/reference.md")
	select {
	case err := <-h.stopped:
		if err != context.Canceled {
			t.Errorf("the held render ended with %v, want context.Canceled", err)
		}
	case <-time.After(wait):
		t.Fatal("the re-index did not stop the render in progress")
	}
	var ov DocumentOut
	if res := call(t, cs, "get_overview", nil, &ov); res.IsError || !strings.Contains(ov.Text, "Numbat API") {
		t.Errorf("get_overview after the second edit = %q (error %v), want its title", ov.Text, res.IsError)
	}
	if md := readIndexFile(t, dir); !strings.Contains(md, "Numbat API") || strings.Contains(md, "Aardvark") {
		t.Errorf("INDEX.md after the second edit:\n%s", md)
	}
}

// TestIndexMDBehindAtStart: INDEX.md left behind the catalogue (a server
// stopped between a re-index and its render) is rendered by the next
// server's first read of it.
func TestIndexMDBehindAtStart(t *testing.T) {
	t.Parallel()
	dir := smallProject(t)
	ctxDir := filepath.Join(dir, ".context")
	writeFile(t, filepath.Join(ctxDir, project.PackagesDir, "api", "reference.md"), "# Aardvark API\n\nThe okapi endpoint returns widgets.\n")
	proj, err := project.At(dir)
	if err != nil {
		t.Fatal(err)
	}
	l, err := proj.ReadLock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Sync(context.Background(), ctxDir, proj.Installed(nil, l), indexer.Options{DeferIndexMD: true}); err != nil {
		t.Fatal(err)
	}
	if md := readIndexFile(t, dir); strings.Contains(md, "Aardvark") {
		t.Fatalf("INDEX.md rendered by a deferred Sync:\n%s", md)
	}
	cs := connect(t, dir)
	var ov DocumentOut
	if res := call(t, cs, "get_overview", nil, &ov); res.IsError || !strings.Contains(ov.Text, "Aardvark API") {
		t.Errorf("first get_overview = %q (error %v), want the title INDEX.md was behind on", ov.Text, res.IsError)
	}
	if md := readIndexFile(t, dir); !strings.Contains(md, "Aardvark API") {
		t.Errorf("INDEX.md after the first get_overview:\n%s", md)
	}
}
