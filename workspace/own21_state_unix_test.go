//go:build unix

package workspace

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ctx-dev/ctx/internal/boundedfile"
)

// A state file is read bounded (own21): a fifo put at
// .state/ALIAS.json held the open forever (no writer), and a link to
// /dev/zero was read to the end of memory. Both are refused, naming the
// file.
func TestOwn21StateFileBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "docs.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	for _, p := range []string{fifo, "/dev/zero"} {
		_, err := readStateFile(p)
		if !errors.Is(err, boundedfile.ErrNotRegular) || !strings.Contains(err.Error(), p) {
			t.Errorf("readStateFile(%s) = %v; want a refusal naming it", p, err)
		}
	}
}
