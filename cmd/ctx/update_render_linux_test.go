package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// TestUpdateRendersIndexMDOnce: `ctx update` of a package whose documents
// changed writes INDEX.md, and the catalogue's top, once: the changes
// summary is worked out while the index is brought up to date and goes
// into INDEX.md's "Recently changed" in the same render (issue 31: it was
// rendered and written twice, once by the index, again by the summary).
func TestUpdateRendersIndexMDOnce(t *testing.T) {
	t.Parallel()
	proj, repo := installedProject(t, map[string]string{"docs/a.md": "# Alpha\n\nalpha words.\n", "docs/b.md": "# Beta\n\nbeta words.\n"})
	gittest.Commit(t, repo, "edit", map[string]string{"docs/a.md": "# Alpha\n\n## Usage\n\nnew words.\n"})
	ctxDir := filepath.Join(proj, ".context")
	// Files renamed into place (an atomic write's last step), by folder.
	r := gittest.WatchFiles(t, syscall.IN_MOVED_TO, map[string]string{ctxDir: ".context", filepath.Join(ctxDir, "index"): "index"})
	code, stdout, stderr := runCtx("", "-C", proj, "update")
	if code != 0 {
		t.Fatalf("ctx update: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "docs: 1 document") {
		t.Errorf("no summary of what changed:\n%s", stdout)
	}
	got := r.Count(t)
	if got[".context/INDEX.md"] != 1 || got["index/catalog.json"] != 1 {
		t.Errorf("INDEX.md written %d times, catalog.json %d times; want once each (all renames: %v)", got[".context/INDEX.md"], got["index/catalog.json"], got)
	}
	t.Logf("renames: %v", got)
	md, err := os.ReadFile(filepath.Join(ctxDir, "INDEX.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## Recently changed\n") || !strings.Contains(string(md), "`a.md: ") {
		t.Errorf("INDEX.md does not say what changed:\n%s", md)
	}
}
