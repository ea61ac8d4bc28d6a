package fileid

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestTreeLstatAsLstat: a Tree's stamps are Lstat's of the joined paths
// (a final link not followed, a folder's too), in any order and after
// Close; "." is os.Stat's of the root.
func TestTreeLstatAsLstat(t *testing.T) {
	root := t.TempDir()
	rels := []string{"top.md", "a-b/x.md", "a.b/x.md", "a/x.md", "a/b/c/deep.md", "a/b/y.md", "a/z.md", "a0/x.md", "a/b/c/d/e/f.md", "z/.hidden.md", "a/link.md", "a/sub"}
	for _, rel := range rels[:len(rels)-2] {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(rel), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("x.md", filepath.Join(root, "a", "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "a", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	sorted := slices.Sorted(slices.Values(rels))
	shuffled := slices.Clone(sorted)
	rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	tr := NewTree(root)
	defer tr.Close()
	for _, order := range [][]string{sorted, shuffled, sorted} {
		for _, rel := range order {
			s, regular, err := tr.Lstat(rel)
			want, wantRegular, wantErr := Lstat(filepath.Join(root, filepath.FromSlash(rel)))
			if err != nil || wantErr != nil || s != want || regular != wantRegular {
				t.Errorf("%s: Tree.Lstat = %+v, %v, %v; Lstat = %+v, %v, %v", rel, s, regular, err, want, wantRegular, wantErr)
			}
		}
		tr.Close()
	}
	fi, err := os.Stat(root)
	if err != nil {
		t.Fatal(err)
	}
	if s, regular, err := tr.Lstat("."); err != nil || regular || s != Of(fi) {
		t.Errorf(`Tree.Lstat(".") = %+v, %v, %v; want os.Stat's %+v`, s, regular, err, Of(fi))
	}
}

// TestTreeMissingAndLinks: a missing file or folder is fs.ErrNotExist
// as a *fs.PathError; as Lstat of the joined path, a link among the
// folders below the root is followed and a final link is not (tested in
// TestTreeLstatAsLstat); a root that is a link is followed.
func TestTreeMissingAndLinks(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	for _, d := range []string{"root/real", "elsewhere"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"root/real/x.md", "elsewhere/x.md"} {
		if err := os.WriteFile(filepath.Join(base, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(base, "elsewhere"), filepath.Join(root, "linked")); err != nil {
		t.Fatal(err)
	}
	tr := NewTree(root)
	defer tr.Close()
	for _, rel := range []string{"nope.md", "real/nope.md", "gone/x.md", "gone/deeper/x.md"} {
		_, _, err := tr.Lstat(rel)
		var pe *fs.PathError
		if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Path != filepath.Join(root, filepath.FromSlash(rel)) {
			t.Errorf("%s: err = %v; want fs.ErrNotExist as a *fs.PathError naming the joined path", rel, err)
		}
	}
	want, _, err := Lstat(filepath.Join(root, "linked", "x.md"))
	if err != nil {
		t.Fatalf("Lstat through the link: %v", err)
	}
	if s, regular, err := tr.Lstat("linked/x.md"); err != nil || !regular || s != want {
		t.Errorf("linked/x.md: %+v, %v, %v; want Lstat's %+v", s, regular, err, want)
	}
	via := filepath.Join(base, "via")
	if err := os.Symlink(root, via); err != nil {
		t.Fatal(err)
	}
	tv := NewTree(via)
	defer tv.Close()
	want, _, _ = Lstat(filepath.Join(root, "real", "x.md"))
	if s, regular, err := tv.Lstat("real/x.md"); err != nil || !regular || s != want {
		t.Errorf("through a linked root: %+v, %v, %v; want %+v", s, regular, err, want)
	}
	if _, _, err := NewTree(filepath.Join(base, "none")).Lstat("x.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing root: %v; want fs.ErrNotExist", err)
	}
}

// TestTreeOneDescriptor: a Tree holds one descriptor (its root) however
// many folders its files are in, and none after Close.
func TestTreeOneDescriptor(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts /proc/self/fd")
	}
	root := t.TempDir()
	var rels []string
	for i := range 20 {
		rel := filepath.ToSlash(filepath.Join(string(rune('a'+i)), "b", "f.md"))
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		rels = append(rels, rel)
	}
	fds := func() int {
		es, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(es)
	}
	before := fds()
	tr := NewTree(root)
	for _, rel := range rels {
		if _, _, err := tr.Lstat(rel); err != nil {
			t.Fatal(err)
		}
		if n := fds() - before; n != 1 {
			t.Fatalf("%d descriptors open after %s; want 1", n, rel)
		}
	}
	tr.Close()
	if n := fds() - before; n != 0 {
		t.Errorf("%d descriptors left open after Close", n)
	}
}

// TestTreeRefusesPathsOutsideRoot: a rel that fs.ValidPath refuses
// (absolute, "..", unclean) is an error, never a file found from the
// root's descriptor elsewhere on the machine.
func TestTreeRefusesPathsOutsideRoot(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(parent, "outside.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := NewTree(root)
	defer tr.Close()
	for _, rel := range []string{"../outside.md", filepath.ToSlash(filepath.Join(parent, "outside.md")), "./x.md", "a//b.md", ""} {
		if _, _, err := tr.Lstat(rel); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Lstat(%q): err %v, want fs.ErrInvalid", rel, err)
		}
	}
}

// TestTreeOddNames: a name with a NUL is refused, not cut at the NUL (the
// raw fstatat builds its own C string: "top.md\x00x" must not stat
// top.md), and a name too long for the system fails as Lstat of the
// joined path does; a short name after a long one is its own name.
func TestTreeOddNames(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "top.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := NewTree(root)
	defer tr.Close()
	if s, _, err := tr.Lstat("top.md\x00x"); err == nil {
		t.Errorf(`Tree.Lstat("top.md\x00x") = %+v, nil; want an error`, s)
	}
	long := strings.Repeat("n", 300) + ".md"
	_, _, err := tr.Lstat(long)
	_, _, wantErr := Lstat(filepath.Join(root, long))
	if err == nil || wantErr == nil || !errors.Is(err, errors.Unwrap(wantErr)) {
		t.Errorf("a 303-byte name: Tree.Lstat error %v; Lstat's %v", err, wantErr)
	}
	s, regular, err := tr.Lstat("top.md")
	want, _, _ := Lstat(filepath.Join(root, "top.md"))
	if err != nil || !regular || s != want {
		t.Errorf("top.md after a long name: %+v, %v, %v; want %+v", s, regular, err, want)
	}
}
