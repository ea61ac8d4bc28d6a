//go:build unix

package gittest

import (
	"io/fs"
	"syscall"
)

// device is the file system a file is on, when the system says.
func device(fi fs.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Dev), true // Dev is int32 on darwin
}
