// Package boundedfile reads a whole file, bounded: the one rule of "read
// this file into memory" for a file ctx did not necessarily write (a git
// index, a shared cache's record, a document's side file, a state file, a
// registry): a regular file only, never waiting on a fifo (the open does
// not block: O_NONBLOCK on Unix), at most a bound of bytes, checked on the
// open file (its size) and again while read (a file that grows), and an
// error that names the file and the bound. Whoever can write the folder
// can put a link to /dev/zero there, a fifo, or a sparse file of
// terabytes, which a plain whole-file read follows to the end of memory or
// forever (own20 for the git index; own21 gave the rule one owner).
package boundedfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular: the file is a folder, a fifo, a device, a socket or (with
// Options.NoFollow) a symbolic link, not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge: the file holds more bytes than the bound.
var ErrTooLarge = errors.New("over the bound")

// Error is why a file was not read: Kind is ErrNotRegular (Mode says what
// it is) or ErrTooLarge (Size is its size, or -1 when it grew past Max
// while read). Callers that have their own wording match it with
// errors.As; Error() names the file and the bound.
type Error struct {
	Path string
	Kind error
	Mode fs.FileMode
	Size int64
	Max  int64
}

func (e *Error) Error() string {
	if e.Kind == ErrNotRegular {
		return fmt.Sprintf("%s: not a regular file (%s): ctx reads only a regular file there", e.Path, Describe(e.Mode))
	}
	if e.Size < 0 {
		return fmt.Sprintf("%s: more than the %d bytes ctx reads of it (it grew while read)", e.Path, e.Max)
	}
	return fmt.Sprintf("%s: %d bytes, more than the %d bytes ctx reads of it", e.Path, e.Size, e.Max)
}

func (e *Error) Unwrap() error { return e.Kind }

// Describe names a file's type for a message: "a folder", "a fifo", …
func Describe(m fs.FileMode) string {
	switch t := m.Type(); {
	case t&fs.ModeDir != 0:
		return "a folder"
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	case t&fs.ModeNamedPipe != 0:
		return "a fifo"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeDevice != 0:
		return "a device"
	case t == 0:
		return "a regular file"
	default:
		return "not a regular file: " + t.String()
	}
}

// Options are Read's choices.
type Options struct {
	// NoFollow refuses a symbolic link at the path's end (ErrNotRegular)
	// instead of following it: for a file read beside another that must
	// not lead elsewhere (a document's side file). O_NOFOLLOW on Unix;
	// elsewhere the path is looked at first.
	NoFollow bool
}

// ReadFile is the whole file at path, at most max bytes, following a link
// at its end (as git follows a linked index): Read with no Options.
func ReadFile(path string, max int64) ([]byte, error) {
	data, _, err := Read(path, max, Options{})
	return data, err
}

// Read is the whole file at path, at most max bytes, and its stat taken
// on the open file; an *Error when it is not a regular file or holds
// more; the open's own error (fs.ErrNotExist, …) as it is.
func Read(path string, max int64, o Options) ([]byte, fs.FileInfo, error) {
	if o.NoFollow && !noFollowOpen {
		if fi, err := os.Lstat(path); err != nil {
			return nil, nil, err
		} else if fi.Mode().Type() == fs.ModeSymlink {
			return nil, nil, &Error{Path: path, Kind: ErrNotRegular, Mode: fi.Mode()}
		}
	}
	f, err := openFlags(path, o.NoFollow)
	if err != nil {
		if o.NoFollow && isLoop(err) {
			return nil, nil, &Error{Path: path, Kind: ErrNotRegular, Mode: fs.ModeSymlink}
		}
		return nil, nil, err
	}
	defer f.Close()
	return ReadOpen(f, path, max)
}

// Open opens the file at path for a reader that streams it (a JSON
// decoder that stops early): the checks of Read (a regular file, no wait
// on a fifo, at most max bytes by its size), not the read. The caller
// closes it.
func Open(path string, max int64) (*os.File, error) {
	f, err := openFlags(path, false)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case !fi.Mode().IsRegular():
		err = &Error{Path: path, Kind: ErrNotRegular, Mode: fi.Mode()}
	case fi.Size() > max:
		err = &Error{Path: path, Kind: ErrTooLarge, Size: fi.Size(), Max: max}
	default:
		return f, nil
	}
	f.Close()
	return nil, err
}

// ReadIn is ReadFile of name inside root (os.Root: nothing outside it is
// opened, a link inside is followed).
func ReadIn(root *os.Root, name string, max int64) ([]byte, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|NonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, _, err := ReadOpen(f, name, max)
	return data, err
}

// ReadOpen reads f, opened by the caller (without blocking on a fifo),
// as Read does; name is what its errors call it.
func ReadOpen(f *os.File, name string, max int64) ([]byte, fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, &Error{Path: name, Kind: ErrNotRegular, Mode: fi.Mode()}
	}
	if fi.Size() > max {
		return nil, fi, &Error{Path: name, Kind: ErrTooLarge, Size: fi.Size(), Max: max}
	}
	// The size is known: one buffer of it (and a byte to see growth, as
	// os.ReadFile sizes its own), never read past max+1.
	buf := make([]byte, 0, fi.Size()+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // it grew while read: more room
		}
		end := int64(cap(buf))
		if end > max+1 {
			end = max + 1
		}
		n, err := f.Read(buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return nil, fi, &Error{Path: name, Kind: ErrTooLarge, Size: -1, Max: max}
		}
		if err == io.EOF {
			return buf, fi, nil
		}
		if err != nil {
			return nil, fi, err
		}
	}
}
