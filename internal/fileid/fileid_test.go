package fileid

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestStampSameAndProves(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	s := Of(fi)
	if s.Size != 5 || s.MTime != fi.ModTime().UnixNano() {
		t.Fatalf("Of = %+v", s)
	}
	if !s.Same(s) {
		t.Fatal("a stamp is not the same as itself")
	}
	for name, other := range map[string]Stamp{
		"size":  {Size: s.Size + 1, MTime: s.MTime, CTime: s.CTime, Ino: s.Ino},
		"mtime": {Size: s.Size, MTime: s.MTime + 1, CTime: s.CTime, Ino: s.Ino},
		"ctime": {Size: s.Size, MTime: s.MTime, CTime: s.CTime + 1, Ino: s.Ino},
		"ino":   {Size: s.Size, MTime: s.MTime, CTime: s.CTime, Ino: s.Ino + 1},
	} {
		if s.Same(other) || s.Proves(other, s.CTime+1) {
			t.Errorf("%s moved: still the same", name)
		}
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		if s.Proves(s, time.Now().UnixNano()) {
			t.Fatal("a stamp without ctime proves a file unchanged")
		}
		return
	}
	if s.CTime == 0 || s.Ino == 0 {
		t.Fatalf("no ctime or inode on %s: %+v", runtime.GOOS, s)
	}
	if !s.Proves(s, s.CTime+1) {
		t.Error("a stamp recorded before the record was written does not prove the file unchanged")
	}
	// Racily clean: the record was written in the same tick as the file
	// (or before it), so an edit in that tick would keep every field.
	if s.Proves(s, s.CTime) || s.Proves(s, s.CTime-1) {
		t.Error("a stamp as recent as its record proves the file unchanged")
	}
	// A stamp recorded without ctime (an older record) proves nothing.
	old := s
	old.CTime, old.Ino = 0, 0
	if old.Proves(old, s.CTime+1) || old.Same(s) {
		t.Error("a stamp without ctime proves the file unchanged")
	}
}

// TestLstat: Lstat is Of(os.Lstat) and says a regular file from a folder
// or a link; a missing file is fs.ErrNotExist.
func TestLstat(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("f", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		regular bool
	}{{"f", true}, {"link", false}, {".", false}} {
		q := filepath.Join(dir, c.name)
		fi, err := os.Lstat(q)
		if err != nil {
			t.Fatal(err)
		}
		s, regular, err := Lstat(q)
		if err != nil || s != Of(fi) || regular != c.regular {
			t.Errorf("Lstat(%s) = %+v, %v, %v; want %+v, %v", c.name, s, regular, err, Of(fi), c.regular)
		}
	}
	if _, _, err := Lstat(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Lstat(missing) = %v, want fs.ErrNotExist", err)
	}
}
