package indexer

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestInLinksNameNotUTF8 (review of red23): inlinks.json is keyed by
// the documents' paths, and encoding/json wrote each byte of a name that
// is not UTF-8 as U+FFFD: the prior of such a document (here a hub: a
// page of links) was filed under a name no document has, and lost. Its
// name is kept whole (jsonName).
func TestInLinksNameNotUTF8(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("the file system takes only UTF-8 names")
	}
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "p", map[string]string{
		"a.md": "# A\n\nAlpha words.\n",
		"b.md": "# B\n\nBeta words.\n",
		"c.md": "# C\n\nGamma words.\n",
	})
	hub := "hub\xff.md"
	if err := os.WriteFile(filepath.Join(dir, "packages", "p", hub), []byte("# Hub\n\nStart with [the first](a.md) step, then read [the second](b.md) one.\n\nGo on to [the third](c.md).\n"), 0o644); err != nil {
		t.Skip("no such name here:", err)
	}
	if _, err := Sync(context.Background(), dir, []Package{dirPackage(dir, "p")}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	inl, err := r.inLinks()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := inl["p\x00"+hub], linkPrior(0, true); got != want {
		t.Errorf("prior of the hub %q: %v, want %v (priors: %v)", hub, got, want, inl)
	}
}
