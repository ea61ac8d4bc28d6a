//go:build unix

package workspace

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/project"
)

// own21 bounded the lock's read (project.ReadLock), but `ctx changes`
// and the record of the lock before a change read it again with
// os.ReadFile (review of own21): a lock that is a fifo held them
// forever, and one committed as a link to /dev/zero was read to the end
// of memory. They read it through the project's bounded reader.
func TestRvOwn21LockReadBounded(t *testing.T) {
	f := newFixture(t)
	w := f.open(f.project)
	lock := w.path(project.LockName)
	if err := os.Remove(lock); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(lock, 0o644); err != nil {
		t.Skip(err)
	}
	_, err := w.Changes(bg, ChangesOptions{})
	if !errors.Is(err, boundedfile.ErrNotRegular) || !strings.Contains(err.Error(), lock) {
		t.Errorf("Changes with a fifo for the lock: %v; want a refusal naming it", err)
	}
	w.keepPrevious([]byte("{}")) // returns: nothing to record
	if _, err := os.Stat(w.path(project.StateDir, project.PreviousLockName)); err == nil {
		t.Errorf("a previous lock was recorded from a fifo")
	}
}
