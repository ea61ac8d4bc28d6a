package fileid

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// times is st's modification and inode change times (unix nanoseconds):
// the fields' names are the system's.
func times(st *syscall.Stat_t) (mtime, ctime int64) {
	return st.Mtim.Nano(), st.Ctim.Nano()
}

// dirOpenFlags opens a folder for Tree's fstatat only: no read
// permission needed.
const dirOpenFlags = unix.O_PATH
