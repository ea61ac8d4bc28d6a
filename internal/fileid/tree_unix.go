//go:build linux || darwin

package fileid

import (
	"errors"
	"io/fs"

	"golang.org/x/sys/unix"
)

// tree is a Tree's open root.
type tree struct {
	opened  bool
	rootFD  int
	rootErr error
	st      unix.Stat_t
}

// rootDir opens the root once (following it, as os.Stat does): O_PATH
// where the system has it (no read permission needed, as a path's lookup
// needs none).
func (t *Tree) rootDir() (int, error) {
	if !t.opened {
		t.opened = true
		for {
			t.rootFD, t.rootErr = unix.Open(t.root, dirOpenFlags|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if t.rootErr != unix.EINTR {
				break
			}
		}
		if t.rootErr != nil {
			t.rootFD, t.rootErr = -1, &fs.PathError{Op: "open", Path: t.root, Err: t.rootErr}
		}
	}
	return t.rootFD, t.rootErr
}

// lstat is Lstat from the open root (rel is valid): one fstatat. Where
// the root cannot be opened though it is there, by the whole path.
func (t *Tree) lstat(rel string) (Stamp, bool, error) {
	fd, err := t.rootDir()
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return Stamp{}, false, err
		}
		return t.byPath(rel)
	}
	st := &t.st
	if rel == "." {
		for err = unix.Fstat(fd, st); err == unix.EINTR; err = unix.Fstat(fd, st) {
		}
		if err != nil {
			return Stamp{}, false, &fs.PathError{Op: "stat", Path: t.root, Err: err}
		}
	} else {
		for err = t.fstatat(fd, rel, st); err == unix.EINTR; err = t.fstatat(fd, rel, st) {
		}
		if err != nil {
			return Stamp{}, false, &fs.PathError{Op: "lstat", Path: t.join(rel), Err: err}
		}
	}
	return unixStamp(st), st.Mode&unix.S_IFMT == unix.S_IFREG, nil
}

// Close releases the root's descriptor. t may be stat'ed with again
// after, opening it again.
func (t *Tree) Close() {
	if t.opened && t.rootFD >= 0 {
		unix.Close(t.rootFD)
	}
	t.opened, t.rootFD, t.rootErr = false, -1, nil
}

// unixStamp is st's stamp, as Of gives it from os.Lstat's fs.FileInfo.
func unixStamp(st *unix.Stat_t) Stamp {
	return Stamp{Size: st.Size, MTime: st.Mtim.Nano(), CTime: st.Ctim.Nano(), Ino: uint64(st.Ino)}
}
