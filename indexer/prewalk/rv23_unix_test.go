//go:build unix

package prewalk

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRv23RecordFifo (review of cli23): a fifo at the walk record
// (a project unpacked from a tar archive keeps fifos; red23 made every
// reader of the index's files take one as absent) hung every `ctx
// search` for ever: the early walk read walks.bin with os.ReadFile, which
// waits for a writer, and the check waits for the early walk's read
// (Take). Now the record is read as the indexer reads it
// (boundedfile: a regular file, no wait, bounded): no record, no walk.
// On cli23's code this test hangs.
func TestRv23RecordFifo(t *testing.T) {
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
		t.Fatalf("an early walk from a fifo: %+v", w)
	}
}
