//go:build unix

package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// TestRed23OpenFifos (red23): a fifo where Open reads a file of its own
// (a project unpacked from a tar archive keeps fifos) hung every command
// that takes the project lock (and search, and status, which finish an
// interrupted change first): .context/.gitignore (ignoreLocal) and a
// journal in .tmp/ (recover) were read with os.ReadFile. On main this test
// hangs. Now a fifo journal is ignored, with a warning naming it, and
// removed with the rest of .tmp/; a fifo .gitignore, the user's file, is
// an error naming it.
func TestRed23OpenFifos(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := filepath.Join(f.project, project.DirName)
	journal := filepath.Join(dir, project.TmpDir, "guides.journal")
	if err := os.MkdirAll(filepath.Dir(journal), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(journal, 0o644); err != nil {
		t.Skip("no fifo:", err)
	}
	w := f.open(f.project)
	w.Close()
	if !strings.Contains(f.log.String(), journal) {
		t.Errorf("no warning naming the fifo journal; log:\n%s", f.log)
	}
	if _, err := os.Lstat(journal); err == nil {
		t.Errorf("the fifo journal %s is still there", journal)
	}

	gi := filepath.Join(dir, project.GitignoreName)
	if err := os.Remove(gi); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(gi, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Open(f.project, f.opts())
	if err == nil {
		w.Close()
		t.Fatalf("Open with a fifo at %s: no error", gi)
	}
	if !strings.Contains(err.Error(), gi) || !strings.Contains(err.Error(), "fifo") {
		t.Errorf("Open with a fifo at .gitignore: %v, want an error naming it as a fifo", err)
	}
}
