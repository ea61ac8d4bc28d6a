package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/project"
)

// TestOpenSweepsStaleTemps (review22-upd22 F2): a kill between an atomic
// write's temp and its rename leaves .context/.context.lock.N.tmp (and the
// like in .state/) for ever, shown by git status. Open, under the project
// lock, removes those older than atomicfile.StaleAge; a fresh one (a
// write in flight: ctx mcp writes INDEX.md without the project lock) and
// what is not an atomic write's temp stay.
func TestOpenSweepsStaleTemps(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := filepath.Join(f.project, project.DirName)
	old := time.Now().Add(-2 * time.Hour)
	files := map[string]time.Time{
		".context.lock.123.tmp":                     old,
		".INDEX.md.456.tmp":                         old,
		"..gitignore.7.tmp":                         old,        // "." + ".gitignore"
		".INDEX.md.789.tmp":                         time.Now(), // in flight
		"notes.tmp":                                 old,        // not ctx's name
		".notes.1.tmp":                              old,        // the user's, though named like a temp (rv-polish22)
		".context.lock.tmp.5.tmp":                   old,        // the temp of no file ctx writes here
		project.StateDir + "/.guides.json.1.tmp":    old,
		project.StateDir + "/.guides.json.2.tmp":    time.Now(),
		project.IndexDir + "/.store.json.3.tmp":     old, // the indexer's folder: not Open's
		project.PackagesDir + "/g/.readme.md.4.tmp": old, // a package's file, never touched
	}
	for rel, mtime := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	w := f.open(f.project)
	w.Close()
	gone := map[string]bool{".context.lock.123.tmp": true, "..gitignore.7.tmp": true, ".INDEX.md.456.tmp": true, project.StateDir + "/.guides.json.1.tmp": true}
	for rel := range files {
		_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel)))
		if gone[rel] && err == nil {
			t.Errorf("%s (a killed write's temp, 2 hours old) is still there", rel)
		}
		if !gone[rel] && err != nil {
			t.Errorf("%s was removed: %v", rel, err)
		}
	}
}

// TestGitignoreIgnoresTemps: a new project's .gitignore keeps an atomic
// write's leftover temp in .context/ out of git status (review22-upd22 F2).
func TestGitignoreIgnoresTemps(t *testing.T) {
	t.Parallel()
	if !gittest.Available() {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, project.DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, project.DirName, project.GitignoreName), []byte(project.Gitignore), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".context.lock.123.tmp", ".context.config.json.9.tmp", ".INDEX.md.77.tmp", "..gitignore.5.tmp", ".context.local.json.3.tmp", ".notes.1.tmp"} {
		if err := os.WriteFile(filepath.Join(dir, project.DirName, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput()
	if err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	out, err = exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=all").CombinedOutput()
	if err != nil {
		t.Fatalf("git status: %v %s", err, out)
	}
	// A user's own file named like a temp is not ctx's: git shows it, as
	// the sweep keeps it (sweptHere; rv-polish22).
	if got := strings.ReplaceAll(string(out), ".context/.notes.1.tmp", ""); strings.Contains(got, ".tmp") || !strings.Contains(got, ".context/.gitignore") || !strings.Contains(string(out), ".context/.notes.1.tmp") {
		t.Errorf("git status shows the temps (or not the .gitignore, or not the user's .notes.1.tmp):\n%s", out)
	}
}
