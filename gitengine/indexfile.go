package gitengine

import (
	"fmt"
	"io"
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
// MaxIndexSize bytes, else the error names it and why. It is opened
// without waiting for a writer (openNoBlock: a fifo put there would hold
// the open), checked on the open file, then read up to the bound. The
// one read of both files (readIndex, unsplit).
func readIndexFile(path string) ([]byte, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w: not a regular file (%s); git writes one: remove it and run `git reset` (or `git update-index --no-split-index`) in the repository", path, errIndex, fi.Mode().Type())
	}
	if fi.Size() > MaxIndexSize {
		return nil, fmt.Errorf("%s: %w: %d bytes, over the %d bytes ctx reads of a git index (some ten million files); %s", path, errIndex, fi.Size(), int64(MaxIndexSize), rewriteIndex)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxIndexSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxIndexSize { // it grew while read
		return nil, fmt.Errorf("%s: %w: over the %d bytes ctx reads of a git index (some ten million files); %s", path, errIndex, int64(MaxIndexSize), rewriteIndex)
	}
	return data, nil
}
