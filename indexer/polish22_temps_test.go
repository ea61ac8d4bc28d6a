package indexer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSyncSweepsStaleTemps (review22-upd22 F2): an atomic write's temp that
// a kill left in index/ (meta.json's, a cache's) stayed for ever. A Sync
// that publishes removes those older than atomicfile.StaleAge from the
// folder read it already makes (removeStaleDirs); a fresh one, a write in
// flight of another process, stays.
func TestSyncSweepsStaleTemps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	pkgs := testPackages()
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(dir, "index")
	old, fresh := filepath.Join(idx, ".meta.json.123.tmp"), filepath.Join(idx, ".meta.json.456.tmp")
	for p, mtime := range map[string]time.Time{old: time.Now().Add(-2 * time.Hour), fresh: time.Now()} {
		if err := os.WriteFile(p, []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Sync(ctx, dir, pkgs, Options{Rebuild: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(old); err == nil {
		t.Errorf("%s, 2 hours old, is still there", old)
	}
	if _, err := os.Lstat(fresh); err != nil {
		t.Errorf("the fresh temp was removed: %v", err)
	}
}
