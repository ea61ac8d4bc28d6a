//go:build unix

package boundedfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A fifo (no writer) and /dev/zero: refused at once, not waited on or
// read to the end of memory.
func TestReadFileSpecial(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	if _, err := ReadFile(fifo, 1<<20); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a fifo") {
		t.Errorf("a fifo: %v; want ErrNotRegular", err)
	}
	if _, err := ReadFile("/dev/zero", 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("/dev/zero: %v; want ErrNotRegular", err)
	}
	if f, err := Open(fifo, 1<<20); !errors.Is(err, ErrNotRegular) {
		if f != nil {
			f.Close()
		}
		t.Errorf("Open(fifo): %v; want ErrNotRegular", err)
	}
	// Inside an os.Root (the MCP server's documents): the root's open
	// does not wait either (review of own21: untested).
	root, err := os.OpenRoot(filepath.Dir(fifo))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, err := ReadIn(root, "fifo", 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadIn(fifo): %v; want ErrNotRegular", err)
	}
}
