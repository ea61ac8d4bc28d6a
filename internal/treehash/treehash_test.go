package treehash

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/dirhash"
)

func TestHashDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a/b"), 0o755)
	os.WriteFile(filepath.Join(dir, "a/b/x.md"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "top.md"), []byte("top\n"), 0o755)
	os.Symlink("top.md", filepath.Join(dir, "link.md"))
	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)
	h, err := HashDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !ValidHash(h) {
		t.Fatalf("bad hash %q", h)
	}
	// Same content elsewhere gives the same hash (go.sum semantics), empty dirs do not count.
	dir2 := t.TempDir()
	os.MkdirAll(filepath.Join(dir2, "a/b"), 0o755)
	os.WriteFile(filepath.Join(dir2, "a/b/x.md"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(dir2, "top.md"), []byte("top\n"), 0o644)
	os.Symlink("top.md", filepath.Join(dir2, "link.md"))
	if h2, _ := HashDir(dir2); h2 != h {
		t.Fatalf("hash differs for same content: %s vs %s", h, h2)
	}
	os.WriteFile(filepath.Join(dir2, "a/b/x.md"), []byte("hello!\n"), 0o644)
	if h2, _ := HashDir(dir2); h2 == h {
		t.Fatal("hash did not change with content")
	}
	// The link's target, not the file it points to, is hashed.
	os.Remove(filepath.Join(dir2, "link.md"))
	os.Symlink("a/b/x.md", filepath.Join(dir2, "link.md"))
	os.WriteFile(filepath.Join(dir2, "a/b/x.md"), []byte("hello\n"), 0o644)
	if h2, _ := HashDir(dir2); h2 == h {
		t.Fatal("hash did not change with the link target")
	}
	// The same files spread over two folders hash as one folder.
	dir3 := t.TempDir()
	os.WriteFile(filepath.Join(dir3, "top.md"), []byte("top\n"), 0o644)
	if h3, err := HashTree(map[string]string{"a/b/x.md": dir, "link.md": dir, "top.md": dir3}); err != nil || h3 != h {
		t.Fatalf("HashTree: %s %v, want %s", h3, err, h)
	}
	if _, err := HashTree(map[string]string{"a/b/x.md": dir3}); err == nil {
		t.Fatal("HashTree of a missing file succeeded")
	}
}

// TestHashTreeSums: the h1: hash written here is dirhash.Hash1's,
// and a known sum is used in place of reading the file.
func TestHashTreeSums(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{}
	for i, name := range []string{"a.md", "b/c.md", "b/d e.md", "z/ü.md", "e.md"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat("x", i*1000)), 0o644); err != nil {
			t.Fatal(err)
		}
		files[name] = dir
	}
	if err := os.Symlink("a.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	files["link.md"] = dir
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	want, err := dirhash.Hash1(names, func(name string) (io.ReadCloser, error) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if target, err := os.Readlink(p); err == nil {
			return io.NopCloser(strings.NewReader(target)), nil
		}
		return os.Open(p)
	})
	if err != nil {
		t.Fatal(err)
	}
	h, sums, err := HashTreeSums(files, nil)
	if err != nil || h != want {
		t.Fatalf("HashTreeSums = %s %v, dirhash.Hash1 = %s", h, err, want)
	}
	if len(sums) != len(files) || sums["link.md"] != SumOf([]byte("a.md")) || sums["a.md"] != SumOf(nil) {
		t.Fatalf("sums: %v", sums)
	}
	// A known sum is not read: the file may even be gone.
	known := map[string]string{"b/c.md": sums["b/c.md"]}
	if err := os.Remove(filepath.Join(dir, "b", "c.md")); err != nil {
		t.Fatal(err)
	}
	if h2, _, err := HashTreeSums(files, known); err != nil || h2 != want {
		t.Fatalf("with a known sum: %s %v, want %s", h2, err, want)
	}
	if _, _, err := HashTreeSums(files, nil); err == nil {
		t.Fatal("a missing file without its sum hashed")
	}
	known["b/c.md"] = SumOf([]byte("other"))
	if h3, _, _ := HashTreeSums(files, known); h3 == want {
		t.Fatal("the known sum was not used")
	}
}

// TestWalkFiles: the files HashDir hashes, by slash path in lexical order:
// a link (to a folder too) is a file and never followed, folders are not
// named, and fn's error ends the walk.
func TestWalkFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, p := range []string{"a/b", "a/c", "empty"} {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"a/b/x.md", "a/c/y.md", "top.md"} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a", filepath.Join(dir, "dirlink")); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := WalkFiles(dir, func(rel string, d fs.DirEntry) error {
		got = append(got, rel+":"+strconv.FormatBool(d.Type()&fs.ModeSymlink != 0))
		return nil
	})
	want := []string{"a/b/x.md:false", "a/c/y.md:false", "dirlink:true", "top.md:false"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("WalkFiles = %q, %v; want %q", got, err, want)
	}
	stop := errors.New("stop")
	n := 0
	if err := WalkFiles(dir, func(string, fs.DirEntry) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("fn's error: %v after %d files, want stop after 1", err, n)
	}
	if err := WalkFiles(filepath.Join(dir, "missing"), func(string, fs.DirEntry) error { return nil }); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing folder: %v", err)
	}
}
