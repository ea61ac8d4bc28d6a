package workspace

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/project"
)

// indexHas reports whether a search for q over w's index finds a document
// of the package alias.
func indexHas(t *testing.T, w *Workspace, q, alias string) bool {
	t.Helper()
	r, err := indexer.OpenReader(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hits, err := r.Search(bg, indexer.Query{Text: q, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Package == alias {
			return true
		}
	}
	return false
}

// Packages are indexed as they land, but a command whose lock write fails
// (the packages are put back) publishes nothing: no document of theirs is
// searchable, on a first build (no index yet) and on an index that exists.
// The same command run again indexes them.
func TestIndexWhileFetchingPublishesOnlyCommitted(t *testing.T) {
	t.Parallel()
	for _, first := range []bool{true, false} {
		f := newFixture(t)
		w := f.open(f.project)
		f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
		if first {
			if err := os.RemoveAll(filepath.Join(w.Dir(), project.IndexDir)); err != nil {
				t.Fatal(err)
			}
		}
		w.opts.testHook = func(stage, alias string) error {
			if stage == "write:lock" {
				return &fs.PathError{Op: "write", Path: "lock", Err: syscall.ENOSPC}
			}
			return nil
		}
		_, err := w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "team"}}, AddOptions{})
		if err == nil || !strings.Contains(err.Error(), "nothing was changed") {
			t.Fatalf("first=%v: add: %v", first, err)
		}
		w.opts.testHook = nil
		if first {
			ents, _ := os.ReadDir(filepath.Join(w.Dir(), project.IndexDir))
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), "bleve-") || e.Name() == "meta.json" {
					t.Errorf("first=%v: index/%s left by a failed command", first, e.Name())
				}
			}
		} else if indexHas(t, w, "handbook", "team") {
			t.Errorf("first=%v: the undone package is searchable", first)
		}
		rep := f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "team"}}, AddOptions{}))
		if rep.Index == nil || rep.Index.Rebuilt != first {
			t.Errorf("first=%v: index report %+v", first, rep.Index)
		}
		if !indexHas(t, w, "handbook", "team") || !indexHas(t, w, "intro", "guides") {
			t.Errorf("first=%v: after the second add, the packages are not both searchable", first)
		}
	}
}
