//go:build unix

package prewalk

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFindRecordNotRegular (review of red23): the early walk of `ctx
// search` read .context/index/walks.bin with a plain os.ReadFile before
// main ran, and the check waits for it (Take): a fifo there (a project
// unpacked from a tar archive keeps fifos) hung every search for ever,
// though the indexer's own read of the record (readWalks) no longer
// waits; a link there to /dev/zero filled memory. On main this test
// hangs. A record that is no regular file is
// no record: no early walk.
func TestFindRecordNotRegular(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	idx := filepath.Join(root, contextDir, indexDir)
	if err := os.MkdirAll(idx, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(idx, recordFile), 0o644); err != nil {
		t.Skip("no fifo:", err)
	}
	if w := Start(root).Take(idx); w != nil {
		t.Errorf("an early walk of a fifo at %s: %+v; want none", recordFile, w)
	}
	// A link to a device that never ends: the plain read filled memory.
	if _, err := os.Stat("/dev/zero"); err != nil {
		return
	}
	if err := os.Remove(filepath.Join(idx, recordFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(idx, recordFile)); err != nil {
		t.Skip("no symbolic link:", err)
	}
	if w := Start(root).Take(idx); w != nil {
		t.Errorf("an early walk of a link to /dev/zero at %s: %+v; want none", recordFile, w)
	}
}
