//go:build unix

package project

import (
	"io/fs"
	"syscall"
)

// systemOwner is what the system says of the file at path (fi its
// os.Lstat) for Find's ownership rule (trust): its owner, group and mode.
func systemOwner(_ string, fi fs.FileInfo) ownerFacts {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ownerFacts{}
	}
	return ownerFacts{known: true, uid: int(st.Uid), gid: int(st.Gid), modes: true, mode: fi.Mode()}
}
