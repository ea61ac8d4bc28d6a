package fileid

import (
	"io/fs"
	"syscall"
)

// Change returns fi's inode change time (unix nanoseconds) and inode
// number; 0, 0 when the system does not say.
func Change(fi fs.FileInfo) (ctime int64, ino uint64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return st.Ctim.Nano(), st.Ino
}
