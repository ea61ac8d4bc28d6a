package gitengine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// review20-own20: an index over MaxIndexSize was refused saying only its
// size; the error says what to do (the preamble's rule): a planted or
// broken one is written again by `git reset` after it is removed.
func TestIndexOverTheBoundSaysWhatToDo(t *testing.T) {
	t.Parallel()
	dir := review18eRepo(t)
	p := filepath.Join(dir, ".git", "index")
	if err := os.Truncate(p, MaxIndexSize+1); err != nil {
		t.Fatal(err)
	}
	_, _, err := TrackedUnder(dir, filepath.Join(dir, "docs"))
	if !errors.Is(err, errIndex) || !strings.Contains(err.Error(), "over the 1073741824 bytes ctx reads of a git index") || !strings.Contains(err.Error(), "git status") || !strings.Contains(err.Error(), "git reset") {
		t.Fatalf("TrackedUnder with an index over the bound: %v; want the bound and what to do", err)
	}
}
