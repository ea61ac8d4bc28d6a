//go:build unix

package indexer

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestProcessFileFifo: a fifo where the walk saw a regular file is not
// waited on (before the fix the read blocked for ever: this test hung).
func TestProcessFileFifo(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.md")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no fifo:", err)
	}
	if _, _, _, _, err := processFile("p", "p", "f.md", p, 10, 1, nil, nil, "", nil); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("fifo: %v, want not a regular file", err)
	}
}
