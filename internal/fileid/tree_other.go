//go:build !linux && !darwin

package fileid

import (
	"io"
	"io/fs"
	"os"
)

// tree holds nothing where the system has no fstatat: each file is
// stat'ed by its whole path.
type tree struct{}

// lstat is byPath: this system has no fstatat.
func (t *Tree) lstat(rel string) (Stamp, bool, error) { return t.byPath(rel) }

// Close releases nothing on this system: no descriptor is held.
func (t *Tree) Close() {}

// info is infoByPath: this system has no fstatat.
func (t *Tree) info(rel string) (fs.FileInfo, error) { return t.infoByPath(rel) }

// readFile is readByPath: this system has no openat.
func (t *Tree) readFile(rel string, buf []byte) ([]byte, error) { return t.readByPath(rel, buf) }

// openNoFollow opens the file at p for readByPath, refusing a symbolic
// link (this system has no O_NOFOLLOW: the path is looked at first) and
// what is not a regular file.
func openNoFollow(p string) (*os.File, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrInvalid}
	}
	return os.Open(p)
}

// readByPath is ReadFile by the whole path (byPath's form).
func (t *Tree) readByPath(rel string, buf []byte) ([]byte, error) {
	f, err := openNoFollow(t.join(rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
