package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/indexer"
)

// TestUpdateIndexWindowEdit: a one-file update's index takes the other
// files' stat data from the catalogue, not from a walk of the package
// (issue 31; indexer.Stream's carriedWalk). A file the update did not
// touch, edited after the guard and checkKept looked and before the index
// is published (here once the lock is committed; the edit keeps its size
// and mtime), is not in the update's index, but the catalogue records the
// stat data of what the index last read of it, never newer: the next
// freshness check finds the index stale, and the next `ctx index` (or
// search, which syncs first) reads the file.
func TestUpdateIndexWindowEdit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.add500(t)
	f.commit("one file", map[string]string{"docs/d3/f123.md": "# File 123, second edition\n"})
	edited := filepath.Join(w.pkgDir("docs"), "d7", "f007.md")
	w.opts.testHook = func(stage, alias string) error {
		if stage != "committed" {
			return nil
		}
		fi, err := os.Stat(edited)
		if err != nil {
			return err
		}
		if err := os.WriteFile(edited, []byte("# File 7\n\nSome kiwi.\n"), 0o644); err != nil {
			return err
		}
		return os.Chtimes(edited, fi.ModTime(), fi.ModTime())
	}
	r := f.must(w.Update(bg, nil, UpdateOptions{}))
	w.opts.testHook = nil
	if got := actions(r); got != "docs:updated" {
		t.Fatalf("update: %s", got)
	}
	if r.Index == nil || r.Index.Updated != 1 || r.Index.Added != 0 || r.Index.Removed != 0 {
		t.Fatalf("index of the update: %+v; want the changed file alone", r.Index)
	}
	if !w.IndexStale() {
		t.Fatal("after an edit in the update's window the index reads as fresh")
	}
	rep, err := w.Reindex(bg, indexer.Options{})
	if err != nil || rep.Updated != 1 || rep.Rebuilt {
		t.Fatalf("the next index: %+v %v; want the edited file read", rep, err)
	}
	rd, err := indexer.OpenReader(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	hits, err := rd.Search(bg, indexer.Query{Text: "kiwi"})
	if err != nil || len(hits) != 1 || hits[0].Path != "d7/f007.md" {
		t.Errorf("search kiwi: %+v %v; want d7/f007.md", hits, err)
	}
	if w.IndexStale() {
		t.Error("the index is stale after the next index")
	}
}
