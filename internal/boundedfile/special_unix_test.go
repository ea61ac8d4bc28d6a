//go:build unix

package boundedfile

import (
	"errors"
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
}
