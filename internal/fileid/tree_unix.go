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
	// raw says the root is on a local disk file system with no mount
	// below it (rawRoot), where fstatat makes its stats as raw system
	// calls; rootDev is the root's device, and a raw stat that answers
	// from another (a folder that became a link elsewhere) turns raw off.
	raw     bool
	rootDev uint64
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
		} else {
			t.raw, t.rootDev = rawRoot(t.rootFD, t.root)
		}
	}
	return t.rootFD, t.rootErr
}

// lstat is Lstat from the open root (rel is valid): one fstatat. Where
// the root cannot be opened though it is there, by the whole path.
func (t *Tree) lstat(rel string) (Stamp, bool, error) {
	byPath, err := t.stat(rel)
	if byPath {
		return t.byPath(rel)
	}
	if err != nil {
		return Stamp{}, false, err
	}
	return unixStamp(&t.st), t.st.Mode&unix.S_IFMT == unix.S_IFREG, nil
}

// info is Info from the open root (rel is valid), as lstat.
func (t *Tree) info(rel string) (fs.FileInfo, error) {
	byPath, err := t.stat(rel)
	if byPath {
		return t.infoByPath(rel)
	}
	if err != nil {
		return nil, err
	}
	return &info{name: t.base(rel), mode: fileMode(uint32(t.st.Mode)), stamp: unixStamp(&t.st)}, nil
}

// stat reads rel's stat data into t.st: fstat of the root for ".",
// fstatat from it (not following a final link) for any other. byPath
// says the root cannot be opened though it is there (lstat's fallback).
func (t *Tree) stat(rel string) (byPath bool, err error) {
	fd, err := t.rootDir()
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return false, err
		}
		return true, nil
	}
	st := &t.st
	if rel == "." {
		for err = unix.Fstat(fd, st); err == unix.EINTR; err = unix.Fstat(fd, st) {
		}
		if err != nil {
			return false, &fs.PathError{Op: "stat", Path: t.root, Err: err}
		}
		return false, nil
	}
	for err = t.fstatat(fd, rel, st); err == unix.EINTR; err = t.fstatat(fd, rel, st) {
	}
	if err != nil {
		return false, &fs.PathError{Op: "lstat", Path: t.join(rel), Err: err}
	}
	return false, nil
}

// fileMode is the fs.FileMode of a stat mode, as the os package gives it
// (os's fillFileStatFromSys, which it does not export).
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// Close releases the root's descriptor. t may be stat'ed with again
// after, opening it again.
func (t *Tree) Close() {
	if t.opened && t.rootFD >= 0 {
		unix.Close(t.rootFD)
	}
	t.opened, t.rootFD, t.rootErr, t.raw, t.rootDev = false, -1, nil, false, 0
}

// unixStamp is st's stamp, as Of gives it from os.Lstat's fs.FileInfo.
func unixStamp(st *unix.Stat_t) Stamp {
	return Stamp{Size: st.Size, MTime: st.Mtim.Nano(), CTime: st.Ctim.Nano(), Ino: uint64(st.Ino)}
}

// readFile is ReadFile from the open root (rel is valid): openat, the
// reads, close; no poller, no path walk from the top. Where the root
// cannot be opened though it is there, by the whole path.
func (t *Tree) readFile(rel string, buf []byte) ([]byte, error) {
	root, err := t.rootDir()
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return nil, err
		}
		return t.readByPath(rel, buf)
	}
	fd, err := unix.Openat(root, rel, readFlags, 0)
	for err == unix.EINTR {
		fd, err = unix.Openat(root, rel, readFlags, 0)
	}
	return readFD(fd, err, t.join(rel), buf)
}

// readByPath is ReadFile by the whole path (byPath's form), opened as
// readFile opens it and read the same way: a raw descriptor, never the
// os package's poller, which would wait on a fifo's EAGAIN for a writer
// that may never write (review21).
func (t *Tree) readByPath(rel string, buf []byte) ([]byte, error) {
	p := t.join(rel)
	fd, err := unix.Open(p, readFlags, 0)
	for err == unix.EINTR {
		fd, err = unix.Open(p, readFlags, 0)
	}
	return readFD(fd, err, p, buf)
}

// readFD reads the descriptor fd that opening p gave (with the open's
// error, err) into buf, grown as needed, and closes it.
func readFD(fd int, err error, p string, buf []byte) ([]byte, error) {
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	defer unix.Close(fd)
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: p, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// readFlags opens a file for ReadFile: not following a final link, not
// blocking on a fifo.
const readFlags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK
