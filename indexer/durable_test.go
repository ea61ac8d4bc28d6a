package indexer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// An incremental update writes recent.json and the catalogue (its new
// part, its top) with no fsync each, and syncs them in one pass before
// the meta.json that publishes them (durable). A crash before that pass
// may leave any of them torn: meta.json still says dirty (its mark was
// synced first), so a reader's freshness check says stale (not an error
// about a torn catalogue) and the next Sync rebuilds, finding the edit.
func TestCrashBeforeDurabilityPass(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	idx := filepath.Join(dir, "index")
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, "ops", map[string]string{"oncall.markdown": "# On-call\n\nThe wombat rota.\n"})
	crash := errors.New("killed")
	var seen []string
	opts := Options{
		Recent: func() []RecentChange {
			return []RecentChange{{Alias: "ops", When: time.Now(), Summary: "1 document changed"}}
		},
		beforeMeta: func() error {
			var m meta
			if err := readJSON(filepath.Join(idx, metaFile), &m); err != nil || !m.Dirty {
				t.Errorf("meta.json before the durability pass: %+v %v, want the dirty mark", m, err)
			}
			seen = append(seen, "beforeMeta")
			return crash
		},
	}
	if _, err := Sync(ctx, dir, testPackages(), opts); !errors.Is(err, crash) {
		t.Fatalf("Sync stopped before the pass: %v, want the crash", err)
	}
	if !slices.Equal(seen, []string{"beforeMeta"}) {
		t.Fatalf("hook calls %v", seen)
	}

	// What a crash may leave of files renamed but not synced: empty ones.
	torn := []string{filepath.Join(idx, catalogFile), filepath.Join(idx, recentFile)}
	for _, name := range partFiles(t, dir) {
		torn = append(torn, filepath.Join(idx, catalogDir, name))
	}
	for _, p := range torn {
		if err := os.Truncate(p, 0); err != nil {
			t.Fatal(err)
		}
	}

	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := r.Freshness(testPackages())
	r.Close()
	if err != nil || len(f.Stale) != 2 {
		t.Fatalf("freshness after the crash: %+v %v, want both packages stale", f, err)
	}
	// The torn catalogue is what the interrupted update may leave, not
	// the user's to mend: the rebuild says nothing of it (a warning that
	// quoted its JSON error and asked for `ctx index --rebuild` while
	// rebuilding was noise).
	var warns []string
	rep, err := Sync(ctx, dir, testPackages(), Options{Warn: func(m string) { warns = append(warns, m) }})
	if err != nil || !rep.Rebuilt {
		t.Fatalf("Sync after the crash: %+v %v, want a rebuild", rep, err)
	}
	for _, w := range warns {
		if strings.Contains(w, catalogFile) || strings.Contains(w, recentFile) || strings.Contains(w, catalogDir+string(filepath.Separator)) {
			t.Errorf("Sync after the crash warned %q; want the rebuild alone", w)
		}
	}
	checkPartsLive(t, dir)
	r, err = OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hits, err := r.Search(ctx, Query{Text: "wombat"})
	if err != nil || len(hits) != 1 || hits[0].Path != "oncall.markdown" {
		t.Errorf("search after recovery: %+v %v, want the edit", hits, err)
	}
}

// TestDurabilityPassBeforeMeta: the pass that syncs what an incremental
// update wrote with no fsync of its own (the catalogue's new part, its
// top, recent.json) runs while meta.json is still dirty, before the
// meta.json that publishes them, in Sync and in a Stream's Finish: a
// crash before the pass leaves the dirty mark, so a torn catalogue is
// rebuilt, never served. (Moving the pass after meta.json passed every
// other test.)
func TestDurabilityPassBeforeMeta(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, how := range []string{"Sync", "Stream"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			dir := setupCorpus(t)
			idx := filepath.Join(dir, "index")
			if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
				t.Fatal(err)
			}
			writeFiles(t, dir, "ops", map[string]string{"oncall.markdown": "# On-call\n\nThe wombat rota.\n"})
			var passes [][]string
			opts := Options{
				Recent: func() []RecentChange {
					return []RecentChange{{Alias: "ops", When: time.Now(), Summary: "1 document changed"}}
				},
				durableSynced: func(paths []string) {
					var m meta
					if err := readJSON(filepath.Join(idx, metaFile), &m); err != nil || !m.Dirty {
						t.Errorf("meta.json when the pass synced %q: %+v %v; want it still dirty", paths, m, err)
					}
					passes = append(passes, slices.Sorted(slices.Values(paths)))
				},
			}
			if how == "Sync" {
				if _, err := Sync(ctx, dir, testPackages(), opts); err != nil {
					t.Fatal(err)
				}
			} else {
				s, err := StartSync(ctx, dir, opts)
				if err != nil {
					t.Fatal(err)
				}
				s.Landed(Package{Alias: "ops"})
				if _, err := s.Finish(ctx, testPackages()); err != nil {
					t.Fatal(err)
				}
			}
			if len(passes) != 1 {
				t.Fatalf("passes %q; want one", passes)
			}
			var top, recent, part bool
			for _, p := range passes[0] {
				top = top || p == filepath.Join(idx, catalogFile)
				recent = recent || p == filepath.Join(idx, recentFile)
				part = part || filepath.Dir(p) == filepath.Join(idx, catalogDir)
			}
			if !top || !recent || !part {
				t.Errorf("the pass synced %q; want catalog.json, recent.json and the new part", passes[0])
			}
			var m meta
			if err := readJSON(filepath.Join(idx, metaFile), &m); err != nil || m.Dirty {
				t.Errorf("meta.json after: %+v %v; want it published", m, err)
			}
		})
	}
}
