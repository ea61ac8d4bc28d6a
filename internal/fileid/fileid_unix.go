//go:build linux || darwin

package fileid

import (
	"io/fs"
	"syscall"
)

// Change returns fi's inode change time (unix nanoseconds) and inode
// number; 0, 0 when the system does not say.
func Change(fi fs.FileInfo) (ctime int64, ino uint64) {
	if i, ok := fi.(*info); ok {
		return i.stamp.CTime, i.stamp.Ino
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	_, ctime = times(st)
	return ctime, st.Ino
}

// Lstat is the stamp of the file at path (not following a final symbolic
// link) and whether it is a regular file: Of(os.Lstat(path)) without the
// fs.FileInfo (a freshness check stats thousands of files).
func Lstat(path string) (s Stamp, regular bool, err error) {
	var st syscall.Stat_t
	err = syscall.Lstat(path, &st)
	for err == syscall.EINTR { // as os.Lstat
		err = syscall.Lstat(path, &st)
	}
	if err != nil {
		return Stamp{}, false, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	mtime, ctime := times(&st)
	return Stamp{Size: st.Size, MTime: mtime, CTime: ctime, Ino: st.Ino}, st.Mode&syscall.S_IFMT == syscall.S_IFREG, nil
}
