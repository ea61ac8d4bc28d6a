package workspace

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// watchOpens counts, with inotify, the opens of the files (not the
// folders) under a folder tree that exists when it starts, keyed by their
// paths relative to root (gittest.FileEvents).
func watchOpens(t *testing.T, root string) *gittest.FileEvents {
	t.Helper()
	labels := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		labels[p] = filepath.ToSlash(rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return gittest.WatchFiles(t, syscall.IN_OPEN, labels)
}

// TestUpdateOneOf500Opens: an update in which 1 of a package's 500 files
// changed upstream opens, of the package's files, the changed one only:
// the guard, the audience rules, the h1: hash and the index trust the
// stamps the state recorded for the other 499 (internal/fileid's Proves)
// and the sums it keeps of them. (What it must read besides: the new
// version in the stage, which the fetch writes and the audience rules,
// the hash and the indexer read; the index; the state; the lock.)
func TestUpdateOneOf500Opens(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.add500(t)
	// The install's last files may share the clock tick in which the
	// state was written, and are then read (racily clean): as when the
	// update runs later than one tick after the install, the state is
	// dated after them.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(w.statePath("docs"), later, later); err != nil {
		t.Fatal(err)
	}
	const changed = "d3/f123.md"
	f.commit("one file", map[string]string{"docs/" + changed: "# File 123, second edition\n"})
	c := watchOpens(t, w.pkgDir("docs"))
	r := f.must(w.Update(bg, nil, UpdateOptions{}))
	if got := actions(r); got != "docs:updated" {
		t.Fatalf("update: %s", got)
	}
	if r.Index == nil || r.Index.Updated != 1 || r.Index.Added != 0 || r.Index.Removed != 0 {
		t.Fatalf("index: %+v", r.Index)
	}
	opened := c.Count(t)
	var others []string
	for p, n := range opened {
		if p != changed {
			others = append(others, fmt.Sprintf("%s ×%d", p, n))
		}
	}
	sort.Strings(others)
	if len(others) > 0 {
		t.Errorf("the update opened %d files it did not change: %v", len(others), others)
	}
	t.Logf("opens of the package's files: %v", opened)
	if got := readFile(t, filepath.Join(w.pkgDir("docs"), changed)); got != "# File 123, second edition\n" {
		t.Errorf("%s = %q", changed, got)
	}
	checkClean(t, w)
}
