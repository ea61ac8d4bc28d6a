package indexer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/project"
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

// TestIndexMDBehindTheLock (red22's Left): a package whose state records
// another commit than the lock (a pull brought a new lock, no install
// yet) is named in INDEX.md at the commit installed, behind the lock; an
// install that rewrites only the state (the same files: Package.State
// changes) renders INDEX.md again, without the note.
func TestIndexMDBehindTheLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	pkgs := testPackages()
	installed, locked := strings.Repeat("3", 40), pkgs[0].Rev
	state := filepath.Join(dir, project.StateDir, pkgs[0].Alias+".json")
	writeState := func(commit string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(state), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(state, []byte(`{"withheld":null,"commit":"`+commit+`","files":[]}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeState(installed)
	pkgs[0].State = "1"
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "INDEX.md"))
	want := "commit `3333333` · behind the lock (locked `1111111`: run `ctx install`)"
	if !strings.Contains(string(md), want) || strings.Contains(string(md), "commit `1111111`") {
		t.Fatalf("INDEX.md lacks %q:\n%s", want, md)
	}
	if strings.Count(string(md), "behind the lock") != 1 {
		t.Errorf("the package at its lock is said behind too:\n%s", md)
	}
	writeState(locked)
	pkgs[0].State = "2"
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	md, _ = os.ReadFile(filepath.Join(dir, "INDEX.md"))
	if strings.Contains(string(md), "behind") || !strings.Contains(string(md), "commit `1111111`") {
		t.Errorf("after the install INDEX.md is:\n%s", md)
	}
}
