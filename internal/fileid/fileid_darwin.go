package fileid

import "syscall"

// times is st's modification and inode change times (unix nanoseconds):
// the fields' names are the system's.
func times(st *syscall.Stat_t) (mtime, ctime int64) {
	return st.Mtimespec.Nano(), st.Ctimespec.Nano()
}
