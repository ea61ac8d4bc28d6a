package indexer

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestRed23NonUTF8NameIndexedOnce (red23): a document whose name is not
// UTF-8 (a Linux file name is any bytes; a repository or a folder may
// hold one) was recorded in its catalogue part through encoding/json,
// which writes such bytes as U+FFFD: the recorded path was never the
// file's, so every Sync (every `ctx search`, every ctx mcp call's
// freshness check) found one document removed and one added, and read,
// parsed and indexed it again, for ever; and the part's stamp was "" for
// such a package, so the index was never fresh: every search re-planned
// it file by file. The part keeps the name's bytes, and its stamp.
func TestRed23NonUTF8NameIndexedOnce(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("the file system takes only UTF-8 names")
	}
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "p", map[string]string{"ok.md": "# OK\n\nfine words\n"})
	name := filepath.Join(dir, "packages", "p", "bad\xff\xfename.md")
	if err := os.WriteFile(name, []byte("# Bad name\n\ndeploy words\n"), 0o644); err != nil {
		t.Skip("no such name here:", err)
	}
	pkgs := []Package{{Alias: "p"}}
	ctx := context.Background()
	if rep, err := Sync(ctx, dir, pkgs, Options{}); err != nil || rep.Added != 2 {
		t.Fatalf("first sync: %+v, %v", rep, err)
	}
	rep, err := Sync(ctx, dir, pkgs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != 0 || rep.Removed != 0 || rep.Updated != 0 {
		t.Errorf("a second sync with nothing changed: %d added, %d updated, %d removed, want none", rep.Added, rep.Updated, rep.Removed)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if f, err := r.Freshness(pkgs); err != nil || !f.Fresh {
		t.Errorf("after a sync: fresh %v (stale %v), %v; want fresh (each search re-indexed the package)", f.Fresh, f.Stale, err)
	}
	hits, err := r.Search(ctx, Query{Text: "deploy", Limit: 5})
	if err != nil || len(hits) != 1 || hits[0].Path != "bad\xff\xfename.md" {
		t.Errorf("search: %+v, %v; want the document by its name", hits, err)
	}
}
