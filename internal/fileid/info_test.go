//go:build unix

package fileid

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// TestTreeInfoAsLstat: Tree.Info is os.Lstat of the joined path (os.Stat
// of the root for "."): the same name, size, mode (type, permissions,
// setuid and sticky bits), mtime and stamp, for a plain file, an
// executable, a final link (not followed), a folder, a FIFO and a Latin-1
// name (not UTF-8: not fs.ValidPath, and no way out of the root); a missing
// file is fs.ErrNotExist naming the joined path, an invalid rel
// fs.ErrInvalid.
func TestTreeInfoAsLstat(t *testing.T) {
	root := t.TempDir()
	write := func(rel string, mode fs.FileMode) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(rel), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	write("plain.md", 0o644)
	write("a/b/exec.sh", 0o755)
	write("a/odd", 0o600|fs.ModeSetuid|fs.ModeSticky)
	if err := os.Symlink("../plain.md", filepath.Join(root, "a", "link.md")); err != nil {
		t.Fatal(err)
	}
	rels := []string{".", "plain.md", "a", "a/b", "a/b/exec.sh", "a/odd", "a/link.md"}
	if err := syscall.Mkfifo(filepath.Join(root, "a", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	rels = append(rels, "a/fifo")
	if runtime.GOOS == "linux" { // a name that is not UTF-8 (darwin's APFS refuses them)
		write("a/caf\xe9.md", 0o644)
		rels = append(rels, "a/caf\xe9.md")
	}
	tr := NewTree(root)
	defer tr.Close()
	for _, rel := range rels {
		got, err := tr.Info(rel)
		var want fs.FileInfo
		var wantErr error
		if rel == "." {
			want, wantErr = os.Stat(root)
		} else {
			want, wantErr = os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
		}
		if err != nil || wantErr != nil {
			t.Fatalf("%s: Info: %v; os.Lstat: %v", rel, err, wantErr)
		}
		if got.Name() != want.Name() || got.Size() != want.Size() || got.Mode() != want.Mode() ||
			!got.ModTime().Equal(want.ModTime()) || got.IsDir() != want.IsDir() || Of(got) != Of(want) {
			t.Errorf("%s: Info = %s %d %v %v %v %+v; os.Lstat = %s %d %v %v %v %+v", rel,
				got.Name(), got.Size(), got.Mode(), got.ModTime(), got.IsDir(), Of(got),
				want.Name(), want.Size(), want.Mode(), want.ModTime(), want.IsDir(), Of(want))
		}
		if c, i := Change(got); runtime.GOOS == "linux" && (c == 0 || i == 0) {
			t.Errorf("%s: Change = %d, %d; want the ctime and inode", rel, c, i)
		}
	}
	_, err := tr.Info("a/nope.md")
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Path != filepath.Join(root, "a", "nope.md") {
		t.Errorf("a missing file: %v; want fs.ErrNotExist naming the joined path", err)
	}
	for _, rel := range []string{"../x", "/etc/passwd", "a/../plain.md", ""} {
		if _, err := tr.Info(rel); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("%q: %v; want fs.ErrInvalid", rel, err)
		}
	}
}
