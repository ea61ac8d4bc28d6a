//go:build darwin || (linux && !amd64 && !arm64)

package fileid

import "golang.org/x/sys/unix"

// fstatat is unix.Fstatat with AT_SYMLINK_NOFOLLOW (the raw form,
// fstatat_raw_linux.go, is for linux/amd64 and linux/arm64).
func (t *Tree) fstatat(fd int, rel string, st *unix.Stat_t) error {
	return unix.Fstatat(fd, rel, st, unix.AT_SYMLINK_NOFOLLOW)
}

// rawRoot is false here: fstatat makes no raw calls.
func rawRoot(int, string) (bool, uint64) { return false, 0 }
