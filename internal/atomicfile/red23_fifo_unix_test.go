//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRed23WriteOverFifo (red23): write compared the new bytes with the
// file there by reading it whole (os.ReadFile), so a fifo in its place (a
// project unpacked from a tar archive: meta.own.json, a state file)
// hung the write, and every search or install with it; on main this test
// hangs. The fifo is replaced by the rename, not waited on; WriteStaged
// (upd23, merged with red23 in a10ef1a) goes the same way.
func TestRed23WriteOverFifo(t *testing.T) {
	t.Parallel()
	for _, write := range []func(string, []byte, os.FileMode) error{WriteFile, WriteCache, WriteStaged} {
		p := filepath.Join(t.TempDir(), "state.json")
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skip("no fifo:", err)
		}
		if err := write(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(p); err != nil || string(b) != "{}\n" {
			t.Errorf("after the write: %q, %v", b, err)
		}
	}
}
