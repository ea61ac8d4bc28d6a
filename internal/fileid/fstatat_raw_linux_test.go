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

// TestNoRawAcrossMounts: a root with a file system mounted below it makes
// no raw stats (a lookup from it can cross into NFS or FUSE), and the
// mount table is read as proc(5) writes it.
func TestNoRawAcrossMounts(t *testing.T) {
	t.Parallel()
	root := NewTree("/") // /proc is mounted below it
	defer root.Close()
	if _, _, err := root.Lstat("etc"); err != nil {
		t.Fatal(err)
	}
	if root.raw {
		t.Error("a Tree on / makes raw stats, with /proc mounted below it")
	}

	// A folder that is a link to another file system: the first answer
	// from it turns raw stats off.
	dir := t.TempDir()
	if err := os.Symlink("/proc/self", dir+"/p"); err != nil {
		t.Fatal(err)
	}
	linked := NewTree(dir)
	defer linked.Close()
	if _, _, err := linked.Lstat("p/status"); err != nil {
		t.Fatal(err)
	}
	if linked.raw {
		t.Error("raw stats go on after one reached /proc through a link")
	}
	info := "36 35 98:0 /mnt1 /srv/docs rw,noatime master:1 - ext3 /dev/root rw\n" +
		"37 35 0:40 / /srv/my\\040docs/nfs rw - nfs4 host:/x rw\n"
	for _, c := range []struct {
		dir  string
		want bool
	}{
		{"/srv", true},           // /srv/docs below it
		{"/srv/docs", false},     // itself, not below
		{"/srv/do", false},       // a prefix of a name is not a folder above
		{"/srv/my docs", true},   // \040 is a space
		{"/srv/my docs/", true},  // a trailing slash
		{"/srv/docs/sub", false}, // nothing mounted below
	} {
		if got := mountPointUnder(info, c.dir); got != c.want {
			t.Errorf("mountPointUnder(%q) = %v, want %v", c.dir, got, c.want)
		}
	}
}
