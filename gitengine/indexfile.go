package gitengine

import (
	"bytes"
	"fmt"
	"io"
	"os"
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

// readIndexFile reads the git index file at path whole, bounded
// (openIndexFile): the one read of a split index and its shared index
// (unsplit).
func readIndexFile(path string) ([]byte, error) {
	f, size, err := openIndexFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readIndexData(f, size)
}

// openIndexFile opens the git index file at path to read it, bounded: it
// must be a regular file (a link to one is followed, as git follows it)
// of at most MaxIndexSize bytes, else the error names it and why. It is
// opened without waiting for a writer (openNoBlock: a fifo put there
// would hold the open) and checked on the open file; size is its size
// then. The one open of the index files (readIndex, readIndexFile).
func openIndexFile(path string) (f *os.File, size int64, err error) {
	if f, err = openNoBlock(path); err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case !fi.Mode().IsRegular():
		err = fmt.Errorf("%s: %w: not a regular file (%s); git writes one: remove it and run `git reset` (or `git update-index --no-split-index`) in the repository", path, errIndex, fi.Mode().Type())
	case fi.Size() > MaxIndexSize:
		err = fmt.Errorf("%s: %w: %d bytes, over the %d bytes ctx reads of a git index (some ten million files); %s", path, errIndex, fi.Size(), int64(MaxIndexSize), rewriteIndex)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// readIndexData reads the index file f (openIndexFile's, of size bytes)
// whole, up to the bound: one buffer of its size, with the room of the
// read that meets its end (io.ReadAll's growing chunks and final copy
// took twice the index in fresh memory). A file that grows while read is
// read on, up to the bound.
func readIndexData(f *os.File, size int64) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(size) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(f, MaxIndexSize+1)); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if len(data) > MaxIndexSize { // it grew while read
		return nil, fmt.Errorf("%s: %w: over the %d bytes ctx reads of a git index (some ten million files); %s", f.Name(), errIndex, int64(MaxIndexSize), rewriteIndex)
	}
	return data, nil
}
