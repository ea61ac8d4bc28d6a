package boundedfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	want := bytes.Repeat([]byte("x"), 5000)
	if err := os.WriteFile(p, want, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile(p, 5000); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("ReadFile at the bound = %d bytes, %v", len(got), err)
	}
	_, err := ReadFile(p, 4999)
	var be *Error
	if !errors.As(err, &be) || !errors.Is(err, ErrTooLarge) || be.Size != 5000 || be.Max != 4999 ||
		!strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "4999") {
		t.Errorf("over the bound: %v; want ErrTooLarge naming the file and the bound", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile(filepath.Join(dir, "empty"), 0); err != nil || len(got) != 0 {
		t.Errorf("an empty file: %q, %v", got, err)
	}
	if _, err := ReadFile(dir, 1<<20); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a folder") {
		t.Errorf("a folder: %v; want ErrNotRegular", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 1); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v; want the open's error", err)
	}
	// A link is followed, unless NoFollow.
	link := filepath.Join(dir, "link")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile(link, 5000); err != nil || len(got) != 5000 {
		t.Errorf("through a link: %d, %v", len(got), err)
	}
	if _, _, err := Read(link, 5000, Options{NoFollow: true}); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a symbolic link") {
		t.Errorf("NoFollow through a link: %v; want ErrNotRegular", err)
	}
	// Open checks, a streaming reader reads.
	if f, err := Open(p, 5000); err != nil {
		t.Errorf("Open: %v", err)
	} else {
		f.Close()
	}
	if _, err := Open(p, 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Open over the bound: %v", err)
	}
	// Inside a root.
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if got, err := ReadIn(root, "f", 5000); err != nil || len(got) != 5000 {
		t.Errorf("ReadIn: %d, %v", len(got), err)
	}
	if _, err := ReadIn(root, "f", 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadIn over the bound: %v", err)
	}
}
