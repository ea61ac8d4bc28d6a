//go:build linux && (amd64 || arm64)

package fileid

import (
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fstatat is unix.Fstatat(fd, rel, st, AT_SYMLINK_NOFOLLOW) made as a raw
// system call, with the name in a buffer on the stack (issue 31). A
// search's freshness check makes one fstatat per document (7,279 for the
// shared corpus's three packages): through syscall.Syscall6 each one
// enters and leaves the scheduler (entersyscall/exitsyscall), and sysmon,
// seeing a P in a system call again and again, keeps waking every 20 µs
// to hand Ps off, which cost a third of the stats' CPU on a 2-core VM
// (bench/README.md, "The CLI search, round 11"). A raw call keeps its P
// for the call's length: right for an fstatat of a name under a folder
// already open, which only looks up an inode. When that lookup must read
// the disk (a cold cache) the P waits for it instead of being handed to
// another goroutine; the check waits for every stat anyway. Darwin and
// the other Linux architectures (other system call numbers and Stat_t
// layouts) keep unix.Fstatat (fstatat_other.go).
func (t *Tree) fstatat(fd int, rel string, st *unix.Stat_t) error {
	var name [256]byte // NUL-terminated, on the stack
	if len(rel) >= len(name) || strings.IndexByte(rel, 0) >= 0 {
		// A long name, or one unix.Fstatat refuses (EINVAL for a NUL).
		return unix.Fstatat(fd, rel, st, unix.AT_SYMLINK_NOFOLLOW)
	}
	copy(name[:], rel)
	_, _, e := syscall.RawSyscall6(fstatatTrap, uintptr(fd), uintptr(unsafe.Pointer(&name[0])), uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
