//go:build linux && (amd64 || arm64)

package fileid

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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
// (rawRoot, t.raw), as under a root with a file system mounted below it
// (a lookup crosses mount points). Darwin and the other Linux
// architectures (other
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
	if st.Dev != t.rootDev {
		t.raw = false // reached another file system (through a link): no more raw calls
	}
	return nil
}

// rawRoot reports whether a Tree rooted at root (open as fd) may make raw
// stats: its file system is a local disk's (localFS) and no file system is
// mounted below it (mountsUnder); and the root's device, which every raw
// answer must keep.
func rawRoot(fd int, root string) (bool, uint64) {
	var st unix.Stat_t
	if !localFS(fd) || unix.Fstat(fd, &st) != nil || mountsUnder(root) {
		return false, 0
	}
	return true, st.Dev
}

// mountsUnder reports whether a mount point of this process
// (/proc/self/mountinfo, read once a process) lies below root, or that
// cannot be told; one answer per root per process.
func mountsUnder(root string) bool {
	if v, ok := mountsUnderRoot.Load(root); ok {
		return v.(bool)
	}
	under := true
	if real, err := filepath.EvalSymlinks(root); err == nil {
		if info, ok := mountInfo(); ok {
			under = mountPointUnder(info, real)
		}
	}
	mountsUnderRoot.Store(root, under)
	return under
}

var (
	mountsUnderRoot sync.Map // root → mountsUnder's answer
	mountInfo       = sync.OnceValues(func() (string, bool) {
		data, err := os.ReadFile("/proc/self/mountinfo")
		return string(data), err == nil
	})
)

// mountPointUnder reports whether a mount point of mountinfo (its fifth
// field, octal-escaped: proc(5)) lies strictly below dir.
func mountPointUnder(mountinfo, dir string) bool {
	prefix := strings.TrimSuffix(dir, "/") + "/"
	for line := range strings.Lines(mountinfo) {
		f := strings.Fields(line)
		if len(f) > 4 && strings.HasPrefix(unescapeMount(f[4]), prefix) {
			return true
		}
	}
	return false
}

// unescapeMount undoes mountinfo's escapes of a path: \ooo (space, tab,
// newline, backslash).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
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
