//go:build unix

package testtmp

import "golang.org/x/sys/unix"

// alive reports whether a process with this id exists (or may: a process
// of another user answers EPERM).
func alive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || err == unix.EPERM
}

// freeBytes is the space an unprivileged user can still write under dir.
func freeBytes(dir string) (uint64, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return st.Bavail * uint64(st.Bsize), true
}
