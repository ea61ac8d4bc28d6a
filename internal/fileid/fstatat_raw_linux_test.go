//go:build linux && (amd64 || arm64)

package fileid

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRawOnlyOnLocalDisks: a Tree makes raw stats only where the root's
// file system is a local disk's (localFS); /proc, as any other file
// system (NFS, FUSE, 9p), gets unix.Fstatat, and its answers are still
// right.
func TestRawOnlyOnLocalDisks(t *testing.T) {
	t.Parallel()
	proc := NewTree("/proc/self")
	defer proc.Close()
	if _, _, err := proc.Lstat("status"); err != nil {
		t.Fatal(err)
	}
	if proc.raw {
		t.Error("a Tree on /proc makes raw stats")
	}

	dir := t.TempDir()
	if err := os.WriteFile(dir+"/a", []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	var s unix.Statfs_t
	if err := unix.Statfs(dir, &s); err != nil {
		t.Fatal(err)
	}
	local := NewTree(dir)
	defer local.Close()
	if _, _, err := local.Lstat("a"); err != nil {
		t.Fatal(err)
	}
	if s.Type == unix.EXT4_SUPER_MAGIC || s.Type == unix.TMPFS_MAGIC {
		if !local.raw {
			t.Errorf("a Tree on %#x (ext4 or tmpfs) makes no raw stats", s.Type)
		}
	}
}
