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
		return nil, fmt.Errorf("%s: %w: %d bytes, over the %d bytes ctx reads of a git index", path, errIndex, fi.Size(), int64(MaxIndexSize))
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxIndexSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxIndexSize { // it grew while read
		return nil, fmt.Errorf("%s: %w: over the %d bytes ctx reads of a git index", path, errIndex, int64(MaxIndexSize))
	}
	return data, nil
}
