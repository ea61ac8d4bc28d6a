package gitengine

import (
	"errors"
	"fmt"

	"github.com/ctx-dev/ctx/internal/boundedfile"
)

// MaxIndexSize bounds a git index file the index readers read (the
// index, and a split index's sharedindex.* file): 1 GiB. A real one is
// about 100 bytes a file (git for Windows' own, of 3.5 million files, is
// some 400 MB). Whoever can write the git folder can put a link to
// /dev/zero there, a fifo, or a sparse file of terabytes, which a
// whole-file read follows to the end of memory or forever (own20).
const MaxIndexSize = 1 << 30

// rewriteIndex is what to do about an index over MaxIndexSize: one put
// there or broken is written again by git; a real one is too large for
// ctx.
const rewriteIndex = "if `git status` fails on it too, remove it and run `git reset` in the repository to write it again; if git reads it, the repository is larger than ctx's reader of the index takes"

// readIndexFile reads the git index file at path, bounded: it must be a
// regular file (a link to one is followed, as git follows it) of at most
// MaxIndexSize bytes, else the error names it and why. internal/boundedfile
// owns the rule (no wait on a fifo, the size checked on the open file and
// while read); the words are the index's. The one read of both files
// (readIndex, unsplit).
func readIndexFile(path string) ([]byte, error) {
	data, err := boundedfile.ReadFile(path, MaxIndexSize)
	var be *boundedfile.Error
	switch {
	case !errors.As(err, &be):
		return data, err
	case be.Kind == boundedfile.ErrNotRegular:
		return nil, fmt.Errorf("%s: %w: not a regular file (%s); git writes one: remove it and run `git reset` (or `git update-index --no-split-index`) in the repository", path, errIndex, be.Mode.Type())
	case be.Size >= 0:
		return nil, fmt.Errorf("%s: %w: %d bytes, over the %d bytes ctx reads of a git index (some ten million files); %s", path, errIndex, be.Size, int64(MaxIndexSize), rewriteIndex)
	}
	// it grew while read
	return nil, fmt.Errorf("%s: %w: over the %d bytes ctx reads of a git index (some ten million files); %s", path, errIndex, int64(MaxIndexSize), rewriteIndex)
}
