//go:build unix

package project

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ctx-dev/ctx/internal/boundedfile"
)

// The lock, the manifest and the local file come with a clone: one
// committed as a fifo (or a link to /dev/zero) held ReadLock's open
// forever (or read to the end of memory). They are read bounded (own21).
func TestOwn21ProjectFilesBounded(t *testing.T) {
	for _, name := range []string{LockName, LocalName} {
		dir := t.TempDir()
		p := Project{root: dir}
		if err := os.MkdirAll(filepath.Join(dir, DirName), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p.Path(ManifestName), []byte(`{"packages": []}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p.Path(name), 0o644); err != nil {
			t.Skip(err)
		}
		var err error
		if name == LockName {
			_, err = p.ReadLock()
		} else {
			_, err = p.ReadManifest()
		}
		if !errors.Is(err, boundedfile.ErrNotRegular) {
			t.Errorf("%s a fifo: %v; want a refusal", name, err)
		}
	}
	fifo := filepath.Join(t.TempDir(), "docs.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	if _, err := ReadStateHead(fifo); !errors.Is(err, boundedfile.ErrNotRegular) {
		t.Errorf("ReadStateHead(fifo) = %v; want a refusal", err)
	}
}
