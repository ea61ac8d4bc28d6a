//go:build linux || darwin

package fileid

import (
	"os"
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

// TestTreeReadFileFifoWriter: a fifo held open by a writer that writes
// nothing does not hang ReadFile, from the open root or by the whole
// path (the fallback where the root cannot be opened, as on too many
// open files): the read is an error, not a wait for the writer. The
// fallback opened the fifo with os.OpenFile, whose poller waits on a
// non-blocking descriptor's EAGAIN, so it hung until the writer wrote
// or closed (review21).
func TestTreeReadFileFifoWriter(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p := filepath.Join(root, "f.md")
	if err := unix.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	w, err := unix.Open(p, unix.O_RDWR|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skip(err)
	}
	defer unix.Close(w)
	tr := NewTree(root)
	defer tr.Close()
	if got, err := tr.ReadFile("f.md", nil); err == nil {
		t.Errorf("ReadFile(fifo with a writer) = %q, no error", got)
	}
	if got, err := tr.readByPath("f.md", nil); err == nil {
		t.Errorf("readByPath(fifo with a writer) = %q, no error", got)
	}
	// The fallback reads a file as ReadFile does, and not a final link.
	if err := os.WriteFile(filepath.Join(root, "a.md"), []byte("# a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.md", filepath.Join(root, "link.md")); err != nil {
		t.Fatal(err)
	}
	if got, err := tr.readByPath("a.md", make([]byte, 0, 2)); err != nil || string(got) != "# a\n" {
		t.Errorf("readByPath(a.md) = %q, %v", got, err)
	}
	if got, err := tr.readByPath("link.md", nil); err == nil {
		t.Errorf("readByPath(link.md) = %q: followed the link", got)
	}
}
