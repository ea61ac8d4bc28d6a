package project

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A .context/ that is a symbolic link: the folder it leads to holds the
// lock, the manifest and context.local.json, so it is owner-checked and
// mode-checked as .context/ itself is (git's safe.directory checks the
// git directory a .git file or link leads to, not the link). Before
// own21 only the link was asked, whose mode means nothing.
func TestFindSymlinkedContextTarget(t *testing.T) {
	base := findTree(t, "p/sub/", "shared/context.config.json")
	root := filepath.Join(base, "p")
	target := filepath.Join(base, "shared")
	if err := os.Symlink(target, filepath.Join(root, DirName)); err != nil {
		t.Fatal(err)
	}
	start := filepath.Join(root, "sub")
	if got, err := Find(start, FindOptions{PrivateGroup: func(int, int) bool { return false }}); err != nil || got != root {
		t.Fatalf("Find = %s, %v; want %s (the user's own target)", got, err, root)
	}
	// The target writable by every user: refused, naming it.
	if err := os.Chmod(target, 0o777); err != nil {
		t.Fatal(err)
	}
	_, err := Find(start, FindOptions{PrivateGroup: func(int, int) bool { return false }})
	if !errors.Is(err, ErrWritable) || !strings.Contains(err.Error(), target) {
		t.Errorf("world-writable target: Find = %v; want ErrWritable naming %s", err, target)
	}
	if err := os.Chmod(target, 0o755); err != nil {
		t.Fatal(err)
	}
	// The target another user's (the link and the manifest the user's).
	theirs := func(fi fs.FileInfo) (int, bool) {
		if fi.Name() == "shared" {
			return 1001, true
		}
		return 1000, true
	}
	_, err = Find(start, FindOptions{Owner: theirs, UID: func() int { return 1000 }})
	if !errors.Is(err, ErrNotOwned) || !strings.Contains(err.Error(), target) || !strings.Contains(err.Error(), "user 1001's") {
		t.Errorf("another user's target: Find = %v; want ErrNotOwned naming %s", err, target)
	}
	// A manifest that is a link: the file it leads to is checked too.
	if err := os.Rename(filepath.Join(target, ManifestName), filepath.Join(base, "m.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "m.json"), filepath.Join(target, ManifestName)); err != nil {
		t.Fatal(err)
	}
	theirFile := func(fi fs.FileInfo) (int, bool) {
		if fi.Name() == "m.json" {
			return 1001, true
		}
		return 1000, true
	}
	_, err = Find(start, FindOptions{Owner: theirFile, UID: func() int { return 1000 }})
	if !errors.Is(err, ErrNotOwned) || !strings.Contains(err.Error(), "m.json") {
		t.Errorf("another user's manifest behind a link: Find = %v; want ErrNotOwned naming it", err)
	}
}
