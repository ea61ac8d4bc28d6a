package gitengine

import (
	"errors"
	"fmt"
	"os"

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

// readIndexFile reads the git index file at path whole, bounded: the one
// read of a split index and its shared index (unsplit). The rule (a
// regular file, a link to one followed as git follows it, no wait on a
// fifo, at most MaxIndexSize bytes on the open file and while read) is
// internal/boundedfile's; the words are the index's (indexFileError).
func readIndexFile(path string) ([]byte, error) {
	data, err := boundedfile.ReadFile(path, MaxIndexSize)
	return data, indexFileError(path, err)
}

// openIndexFile opens the git index file at path to stream it
// (boundedfile.Open's checks, not the read); size is its size then. The
// one open of an index to stream (readIndex).
func openIndexFile(path string) (f *os.File, size int64, err error) {
	if f, err = boundedfile.Open(path, MaxIndexSize); err != nil {
		return nil, 0, indexFileError(path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// readIndexData reads the index file f (openIndexFile's) whole, up to the
// bound: a maybe-split index that unsplit reads whole.
func readIndexData(f *os.File) ([]byte, error) {
	data, _, err := boundedfile.ReadOpen(f, f.Name(), MaxIndexSize)
	return data, indexFileError(f.Name(), err)
}

// indexFileError says a boundedfile refusal of the index file at path in
// the index's words; other errors are returned as they are.
func indexFileError(path string, err error) error {
	var be *boundedfile.Error
	switch {
	case !errors.As(err, &be):
		return err
	case be.Kind == boundedfile.ErrNotRegular:
		return fmt.Errorf("%s: %w: not a regular file (%s); git writes one: remove it and run `git reset` (or `git update-index --no-split-index`) in the repository", path, errIndex, be.Mode.Type())
	case be.Size >= 0:
		return fmt.Errorf("%s: %w: %d bytes, over the %d bytes ctx reads of a git index (some ten million files); %s", path, errIndex, be.Size, int64(MaxIndexSize), rewriteIndex)
	}
	// it grew while read
	return fmt.Errorf("%s: %w: over the %d bytes ctx reads of a git index (some ten million files); %s", path, errIndex, int64(MaxIndexSize), rewriteIndex)
}
