//go:build linux || darwin

package fileid

import (
	"io/fs"
	"strings"

	"golang.org/x/sys/unix"
)

// tree is a Tree's open folders: the root's descriptor and the stack of
// folders below it on the path to the last file stat'ed, each inside the
// one before.
type tree struct {
	opened  bool
	rootFD  int
	rootErr error
	stack   []openDir
	st      unix.Stat_t
}

// openDir is one open folder of the stack: its path under the root, and
// its descriptor or why it could not be opened (then fd is -1).
type openDir struct {
	path string
	fd   int
	err  error
}

// rootDir opens the root once (following it, as os.Stat does).
func (t *Tree) rootDir() (int, error) {
	if !t.opened {
		t.opened = true
		t.rootFD, t.rootErr = openDirAt(unix.AT_FDCWD, t.root, 0)
		if t.rootErr != nil {
			t.rootFD, t.rootErr = -1, &fs.PathError{Op: "open", Path: t.root, Err: t.rootErr}
		}
	}
	return t.rootFD, t.rootErr
}

// openDirAt opens the folder name in the folder dirfd, with flags added
// (unix.O_NOFOLLOW below the root), for fstatat: O_PATH where the system
// has it (no read permission needed, as a path's lookup needs none).
func openDirAt(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, dirOpenFlags|unix.O_DIRECTORY|unix.O_CLOEXEC|flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// dirFD is the descriptor of the folder dir under the root ("" is the
// root): the stack is cut back to dir or the deepest folder above it, and
// the folders from there down opened one name at a time.
func (t *Tree) dirFD(dir string) (int, error) {
	fd, err := t.rootDir()
	if err != nil || dir == "" {
		return fd, err
	}
	for n := len(t.stack); n > 0; n-- {
		top := t.stack[n-1]
		if top.path == dir || strings.HasPrefix(dir, top.path) && dir[len(top.path)] == '/' {
			break
		}
		if top.fd >= 0 {
			unix.Close(top.fd)
		}
		t.stack = t.stack[:n-1]
	}
	start, parent := 0, fd
	if n := len(t.stack); n > 0 {
		top := t.stack[n-1]
		if top.err != nil {
			return -1, top.err
		}
		if top.path == dir {
			return top.fd, nil
		}
		start, parent = len(top.path)+1, top.fd
	}
	for {
		end := len(dir)
		if i := strings.IndexByte(dir[start:], '/'); i >= 0 {
			end = start + i
		}
		fd, err := openDirAt(parent, dir[start:end], unix.O_NOFOLLOW)
		d := openDir{path: dir[:end], fd: fd}
		if err != nil {
			d.fd, d.err = -1, &fs.PathError{Op: "open", Path: t.join(d.path), Err: err}
		}
		t.stack = append(t.stack, d)
		if d.err != nil || end == len(dir) {
			return d.fd, d.err
		}
		parent, start = fd, end+1
	}
}

func (t *Tree) lstat(rel string) (Stamp, bool, error) {
	st := &t.st
	if rel == "." {
		fd, err := t.rootDir()
		if err != nil {
			return Stamp{}, false, err
		}
		for err = unix.Fstat(fd, st); err == unix.EINTR; err = unix.Fstat(fd, st) {
		}
		if err != nil {
			return Stamp{}, false, &fs.PathError{Op: "stat", Path: t.root, Err: err}
		}
		return unixStamp(st), st.Mode&unix.S_IFMT == unix.S_IFREG, nil
	}
	dir, name := splitRel(rel)
	fd, err := t.dirFD(dir)
	if err != nil {
		return Stamp{}, false, err
	}
	for err = unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW); err == unix.EINTR; err = unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW) {
	}
	if err != nil {
		return Stamp{}, false, &fs.PathError{Op: "lstat", Path: t.join(rel), Err: err}
	}
	return unixStamp(st), st.Mode&unix.S_IFMT == unix.S_IFREG, nil
}

func (t *Tree) close() {
	for _, d := range t.stack {
		if d.fd >= 0 {
			unix.Close(d.fd)
		}
	}
	t.stack = t.stack[:0]
	if t.opened && t.rootFD >= 0 {
		unix.Close(t.rootFD)
	}
	t.opened, t.rootFD, t.rootErr = false, -1, nil
}

// unixStamp is st's stamp, as Of gives it from os.Lstat's fs.FileInfo.
func unixStamp(st *unix.Stat_t) Stamp {
	return Stamp{Size: st.Size, MTime: st.Mtim.Nano(), CTime: st.Ctim.Nano(), Ino: uint64(st.Ino)}
}
