package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/project"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMissingPackageFolderKeepsIndexMD: a locked package whose folder is
// deleted while the server runs is not installed. The server re-indexes
// without it, exactly as `ctx index` does (project.Installed), so the two
// never rewrite INDEX.md back and forth (issue 10, D2).
func TestMissingPackageFolderKeepsIndexMD(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	cs := connect(t, p.dir)
	var lc ListContextsOut
	if res := call(t, cs, "list_contexts", nil, &lc); res.IsError {
		t.Fatal(text(res))
	}
	if err := os.RemoveAll(filepath.Join(p.ctxDir, "packages", "many")); err != nil {
		t.Fatal(err)
	}
	lc = ListContextsOut{}
	if res := call(t, cs, "list_contexts", nil, &lc); res.IsError {
		t.Fatal(text(res))
	}
	if lc.Total != 4 {
		t.Errorf("list_contexts lists %d packages, want the 4 of the lock", lc.Total)
	}
	for _, pi := range lc.Packages {
		if pi.Missing != (pi.Alias == "many") {
			t.Errorf("%s: missing = %v", pi.Alias, pi.Missing)
		}
	}
	// get_overview waits for INDEX.md's render, which follows the re-index.
	if res := call(t, cs, "get_overview", nil, nil); res.IsError {
		t.Fatal(text(res))
	}
	served, err := os.ReadFile(filepath.Join(p.ctxDir, "INDEX.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(served), "## many") {
		t.Errorf("the server indexed the missing package:\n%s", served)
	}

	// What ctx index writes from the same lock is byte for byte the same.
	proj, err := project.At(p.dir)
	if err != nil {
		t.Fatal(err)
	}
	l, err := proj.ReadLock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Sync(context.Background(), p.ctxDir, proj.Installed(nil, l), indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(filepath.Join(p.ctxDir, "INDEX.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(served) {
		t.Errorf("INDEX.md changed when indexed with project.Installed:\n--- server\n%s\n--- index\n%s", served, again)
	}
}

// TestNotInstalledHereListed: a locked package whose folder is there but
// that ctx did not install on this machine (no .state/<alias>.json: a
// committed packages/) is neither served nor, in list_contexts and
// ctx://manifest, installed: list_contexts says notInstalledHere (not
// missing: its files are there), the manifest installed false (listhere21).
func TestNotInstalledHereListed(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	proj, err := project.At(p.dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(proj.StatePath("many")); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, p.dir)
	var lc ListContextsOut
	if res := call(t, cs, "list_contexts", nil, &lc); res.IsError {
		t.Fatal(text(res))
	}
	for _, pi := range lc.Packages {
		if pi.NotInstalledHere != (pi.Alias == "many") || pi.Missing {
			t.Errorf("%s: notInstalledHere = %v, missing = %v", pi.Alias, pi.NotInstalledHere, pi.Missing)
		}
	}
	r, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "ctx://manifest"})
	if err != nil {
		t.Fatal(err)
	}
	var m Manifest
	if err := json.Unmarshal([]byte(r.Contents[0].Text), &m); err != nil {
		t.Fatal(err)
	}
	for _, mp := range m.Packages {
		if mp.Installed != (mp.Alias != "many") {
			t.Errorf("ctx://manifest: %s: installed = %v", mp.Alias, mp.Installed)
		}
	}
}
