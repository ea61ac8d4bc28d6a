//go:build linux || darwin

package fileid

import (
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestTreeReadFileFifo: a fifo where a file was (a swap after its stat)
// does not hang ReadFile: with no writer it reads nothing.
func TestTreeReadFileFifo(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := unix.Mkfifo(filepath.Join(root, "f.md"), 0o644); err != nil {
		t.Skip(err)
	}
	tr := NewTree(root)
	defer tr.Close()
	got, err := tr.ReadFile("f.md", nil)
	if err == nil && len(got) != 0 {
		t.Fatalf("ReadFile(fifo) = %q", got)
	}
}
