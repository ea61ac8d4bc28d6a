//go:build unix

package project

import (
	"io/fs"
	"syscall"
)

// fileOwner is the user id that owns fi (Find's ownership rule).
func fileOwner(fi fs.FileInfo) (uid int, known bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
