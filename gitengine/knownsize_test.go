package gitengine

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/internal/treehash"
)

// TestMaterializeKnownSize: the size limit takes a file's size from
// FetchRequest.KnownSize when it knows it (the caller's copy of the blob),
// and reads the object only for the others.
func TestMaterializeKnownSize(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// run.sh is 18 bytes, a.md 20: a limit of 19 keeps run.sh only, unless
	// KnownSize says otherwise.
	e := New(Options{CacheDir: t.TempDir(), MaxFileSize: 19})
	dest := filepath.Join(t.TempDir(), "pkg")
	asked := map[string]string{}
	req := FetchRequest{URL: "file://" + f.bare, Commit: f.c2, Path: "docs/guides/deep", KnownSize: func(p, blob string) (int64, bool) {
		asked[p] = blob
		switch p {
		case "a.md":
			return 5, true
		case "run.sh":
			return 100, true
		}
		return 0, false
	}}
	res, err := e.Materialize(context.Background(), req, dest)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Path != "run.sh" {
		t.Errorf("skipped %+v, want run.sh only", res.Skipped)
	}
	if _, err := os.Lstat(filepath.Join(dest, "a.md")); err != nil {
		t.Errorf("a.md: %v", err)
	}
	if want := f.objectAt(f.c2, "docs/guides/deep/a.md"); asked["a.md"] != want {
		t.Errorf("KnownSize asked about a.md with blob %q, want %s", asked["a.md"], want)
	}
}

// TestMaterializeSums: each written file's Sum is treehash.FileSum of what
// is on disk (a link's target for a link), computed as it was written; a
// Kept file has none.
func TestMaterializeSums(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	e := New(Options{CacheDir: t.TempDir()})
	dest := filepath.Join(t.TempDir(), "pkg")
	req := FetchRequest{URL: "file://" + f.bare, Commit: f.c2, Path: "docs/guides/deep", Have: func(p, _ string, _ fs.FileMode) bool { return p == "a.md" }}
	res, err := e.Materialize(context.Background(), req, dest)
	if err != nil {
		t.Fatal(err)
	}
	links := 0
	for _, file := range res.Files {
		if file.Kept {
			if file.Sum != "" {
				t.Errorf("kept %s has a sum", file.Path)
			}
			continue
		}
		want, err := treehash.FileSum(filepath.Join(dest, filepath.FromSlash(file.Path)))
		if err != nil || file.Sum != want {
			t.Errorf("%s: Sum %q, on disk %q %v", file.Path, file.Sum, want, err)
		}
		if file.Mode&fs.ModeSymlink != 0 {
			links++
		}
	}
	if links == 0 || len(res.Files) < 3 {
		t.Fatalf("the fixture lacks a link or files: %+v", res.Files)
	}
}
