package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestWriteFile: the file holds the new bytes with its mode, a rewrite
// replaces them, and no temp file is left beside it.
func TestWriteFile(t *testing.T) {
	t.Parallel()
	testWrite(t, WriteFile)
}

// TestWriteCache: the same as WriteFile for readers (it only skips the
// fsyncs).
func TestWriteCache(t *testing.T) {
	t.Parallel()
	testWrite(t, WriteCache)
}

func testWrite(t *testing.T, WriteFile func(string, []byte, os.FileMode) error) {
	dir := t.TempDir()
	name := filepath.Join(dir, "x.json")
	for _, data := range []string{"one\n", "two, longer\n", "two, longer\n", ""} {
		if err := WriteFile(name, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil || string(got) != data {
			t.Fatalf("after writing %q: %q, %v", data, got, err)
		}
	}
	if fi, err := os.Stat(name); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", fi.Mode(), err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries in the folder, want the file alone: %v", len(ents), ents)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x"), []byte("x"), 0o644); err == nil {
		t.Error("a write into a missing folder succeeded")
	}
}

// TestFailedRenameLeavesNoTemp: a write whose rename fails (the name is a
// folder that is not empty) leaves the folder as it was, its temp file
// removed.
func TestFailedRenameLeavesNoTemp(t *testing.T) {
	t.Parallel()
	for _, write := range []func(string, []byte, os.FileMode) error{WriteFile, WriteCache} {
		dir := t.TempDir()
		name := filepath.Join(dir, "x.json")
		if err := os.MkdirAll(filepath.Join(name, "inside"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := write(name, []byte("data"), 0o644); err == nil {
			t.Fatal("a write over a folder that is not empty succeeded")
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 || ents[0].Name() != "x.json" {
			t.Errorf("entries after a failed write: %v, want x.json alone", ents)
		}
	}
}
