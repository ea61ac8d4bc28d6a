package gitengine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
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
	if want := f.git("rev-parse", f.c2+":docs/guides/deep/a.md"); asked["a.md"] != want {
		t.Errorf("KnownSize asked about a.md with blob %q, want %s", asked["a.md"], want)
	}
}
