package mcpserver

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// liveProject makes a project whose manifest has only dir sources (a
// folder and a single file at the root) and no lock: nothing installed.
func liveProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".context", "context.config.json"), `{"index":{},"packages":[
  {"alias":"project-docs","kind":"dir","source":"./docs"},
  {"alias":"agents","kind":"dir","source":"AGENTS.md"}
]}`)
	writeFile(t, filepath.Join(dir, "docs", "guide.md"), "# Guide\n\nDeploys follow the zanzibar procedure.\n")
	writeFile(t, filepath.Join(dir, "docs", "old.md"), "# Old\n\nThe quokka rule, soon gone.\n")
	writeFile(t, filepath.Join(dir, "docs", ".hidden", "h.md"), "# Hidden\n\nhiddenword\n")
	writeFile(t, filepath.Join(dir, "AGENTS.md"), "# Agents\n\nAgents follow the wombat rule.\n")
	writeFile(t, filepath.Join(dir, "README.md"), "# Readme\n\nNot a source: readmeword.\n")
	return dir
}

// connectStdio serves dir over newline-delimited JSON on pipes, as `ctx mcp`
// does on stdin and stdout, and returns the client session; s, when not nil,
// receives the server.
func connectStdio(t *testing.T, dir string, s **Server) *mcp.ClientSession {
	t.Helper()
	srv, err := New(Options{ProjectDir: dir, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	if s != nil {
		*s = srv
	}
	inR, inW := io.Pipe()   // client → server
	outR, outW := io.Pipe() // server → client
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, &LineTransport{In: inR, Out: outW}) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(wait):
			t.Error("server did not stop")
		}
		outW.Close()
		srv.Close()
	})
	return cs
}

// searchPaths returns the hits of a search as package/path.
func searchPaths(t *testing.T, cs *mcp.ClientSession, args map[string]any) []string {
	t.Helper()
	var out SearchOut
	if res := call(t, cs, "search", args, &out); res.IsError {
		t.Fatalf("search %v: %s", args, text(res))
	}
	var got []string
	for _, h := range out.Hits {
		got = append(got, h.Package+"/"+h.Path)
	}
	return got
}

// eventually polls search until cond holds, within wait (a bound on a
// hang, not a speed check).
func eventually(t *testing.T, cs *mcp.ClientSession, query string, cond func([]string) bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	var got []string
	for time.Now().Before(deadline) {
		got = searchPaths(t, cs, map[string]any{"query": query})
		if cond(got) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("search %q: still %q after %v", query, got, wait)
}

// TestDirSourcesLive: a project with only dir sources and no lock is served
// over stdio; an edit, a new file and a deleted file in a dir source show
// up in search and get_document of the running server without any command.
func TestDirSourcesLive(t *testing.T) {
	t.Parallel()
	dir := liveProject(t)
	cs := connectStdio(t, dir, nil)

	if got := searchPaths(t, cs, map[string]any{"query": "zanzibar"}); !slices.Equal(got, []string{"project-docs/guide.md"}) {
		t.Fatalf("search zanzibar = %q", got)
	}
	if got := searchPaths(t, cs, map[string]any{"query": "wombat"}); !slices.Equal(got, []string{"agents/AGENTS.md"}) {
		t.Errorf("search wombat = %q", got)
	}
	for _, q := range []string{"hiddenword", "readmeword"} {
		if got := searchPaths(t, cs, map[string]any{"query": q}); len(got) != 0 {
			t.Errorf("search %s = %q, want nothing (hidden, or not a source)", q, got)
		}
	}
	var doc DocumentOut
	if res := call(t, cs, "get_document", map[string]any{"package": "project-docs", "path": "guide.md"}, &doc); res.IsError || !strings.Contains(doc.Text, "zanzibar") {
		t.Fatalf("get_document guide.md: %s", text(res))
	}

	// Containment: hidden files, other files next to a single-file source,
	// and symlinks out of the folder are refused.
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "project-docs", "path": ".hidden/h.md"}, nil), "refused")
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "agents", "path": "README.md"}, nil), "not found")
	if err := os.Symlink(filepath.Join(dir, "README.md"), filepath.Join(dir, "docs", "out.md")); err == nil {
		wantError(t, call(t, cs, "get_document", map[string]any{"package": "project-docs", "path": "out.md"}, nil), "outside")
		os.Remove(filepath.Join(dir, "docs", "out.md"))
	}

	// list_contexts: the kind, no commit, and the kind filter.
	var lc ListContextsOut
	call(t, cs, "list_contexts", map[string]any{}, &lc)
	if len(lc.Packages) != 2 || lc.Packages[0].Kind != "dir" || lc.Packages[0].Commit != "" || lc.Packages[0].Missing {
		t.Errorf("list_contexts = %+v", lc.Packages)
	}
	lc = ListContextsOut{}
	call(t, cs, "list_contexts", map[string]any{"kind": "git"}, &lc)
	if len(lc.Packages) != 0 {
		t.Errorf("list_contexts kind git = %+v, want none", lc.Packages)
	}
	if got := searchPaths(t, cs, map[string]any{"query": "zanzibar", "kind": "git"}); len(got) != 0 {
		t.Errorf("search kind git = %q", got)
	}
	wantError(t, call(t, cs, "search", map[string]any{"query": "zanzibar", "kind": "svn"}, nil), "unknown kind", "git, dir, https")

	// Live: edit, add, delete.
	writeFile(t, filepath.Join(dir, "docs", "guide.md"), "# Guide\n\nDeploys now follow the okapi procedure.\n")
	writeFile(t, filepath.Join(dir, "docs", "new", "fresh.md"), "# Fresh\n\nA narwhal appears.\n")
	if err := os.Remove(filepath.Join(dir, "docs", "old.md")); err != nil {
		t.Fatal(err)
	}
	eventually(t, cs, "okapi", func(got []string) bool { return slices.Equal(got, []string{"project-docs/guide.md"}) })
	eventually(t, cs, "narwhal", func(got []string) bool { return slices.Equal(got, []string{"project-docs/new/fresh.md"}) })
	eventually(t, cs, "quokka", func(got []string) bool { return len(got) == 0 })
	if got := searchPaths(t, cs, map[string]any{"query": "zanzibar"}); len(got) != 0 {
		t.Errorf("search zanzibar after the edit = %q", got)
	}
	doc = DocumentOut{}
	if res := call(t, cs, "get_document", map[string]any{"package": "project-docs", "path": "guide.md"}, &doc); res.IsError || !strings.Contains(doc.Text, "okapi") {
		t.Errorf("get_document guide.md after the edit: %s", text(res))
	}
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "project-docs", "path": "old.md"}, nil), "not found")
}

// TestDirWatchReindexes: with the watch, a change to a dir source is
// re-indexed without any call: the index catches up on its own.
func TestDirWatchReindexes(t *testing.T) {
	t.Parallel()
	dir := liveProject(t)
	var srv *Server
	cs := connectStdio(t, dir, &srv)
	if got := searchPaths(t, cs, map[string]any{"query": "zanzibar"}); len(got) != 1 {
		t.Fatalf("search zanzibar = %q", got)
	}
	writeFile(t, filepath.Join(dir, "docs", "later.md"), "# Later\n\nThe capybara note.\n")
	r, err := srv.reader()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(wait)
	for {
		docs, err := r.Documents("project-docs")
		if err == nil && slices.ContainsFunc(docs, func(d indexer.Document) bool { return d.Path == "later.md" }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the index never got later.md without a call: %v %v", docs, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
