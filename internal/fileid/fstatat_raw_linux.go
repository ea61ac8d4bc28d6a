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
// another goroutine; the check waits for every stat anyway. That holds
// for a local disk only: on a network or user-space file system (NFS,
// SMB, 9p, FUSE, virtiofs) a lookup can take seconds, and a P held that
// long stalls every other goroutine and the collector; there, and where
// the file system is not known, the stat goes through unix.Fstatat
// (localFS, t.raw). Darwin and the other Linux architectures (other
// system call numbers and Stat_t layouts) keep unix.Fstatat
// (fstatat_other.go).
func (t *Tree) fstatat(fd int, rel string, st *unix.Stat_t) error {
	var name [256]byte // NUL-terminated, on the stack
	if !t.raw || len(rel) >= len(name) || strings.IndexByte(rel, 0) >= 0 {
		// Not a local disk, a long name, or one unix.Fstatat refuses
		// (EINVAL for a NUL).
		return unix.Fstatat(fd, rel, st, unix.AT_SYMLINK_NOFOLLOW)
	}
	copy(name[:], rel)
	_, _, e := syscall.RawSyscall6(fstatatTrap, uintptr(fd), uintptr(unsafe.Pointer(&name[0])), uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// localFS reports whether the folder open as fd is on a local disk file
// system, whose lookups answer from memory or one local read: ext2/3/4,
// XFS, Btrfs, F2FS, tmpfs, or overlayfs (a container's root). Anything
// else, or a failed fstatfs, is not.
func localFS(fd int) bool {
	var s unix.Statfs_t
	if unix.Fstatfs(fd, &s) != nil {
		return false
	}
	switch uint32(s.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.F2FS_SUPER_MAGIC, unix.TMPFS_MAGIC, unix.OVERLAYFS_SUPER_MAGIC:
		return true
	}
	return false
}
