package indexer

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/project"
)

// TestWalkRecordKeepsHeldBack (review18e finding 5): a committed dir
// source with a document git does not track is held back with a warning;
// that warning is no reason to walk the source again on every check. The
// walk record keeps the count: the second check stats the documents from
// the record (no walk) and still gives the warning (Freshness.Held), and
// Sync's warning is the same line. Removing the untracked document moves
// its folder: a full walk, and no warning.
func TestWalkRecordKeepsHeldBack(t *testing.T) {
	if !gittest.Available() {
		t.Skip("no git")
	}
	root := t.TempDir()
	gittest.MustGit(t, root, "init", "-q", "-b", "main")
	gittest.WriteFiles(t, root, map[string]string{"docs/a.md": "# A\n\nzanzibar\n"})
	gittest.MustGit(t, root, "add", "-A")
	gittest.MustGit(t, root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "c")
	gittest.WriteFiles(t, root, map[string]string{"docs/new.md": "# New\n\nuntracked\n"})
	p, err := project.At(root)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := p.Live(&project.Manifest{Packages: []project.PackageSpec{{Alias: "d", Kind: project.KindDir, Source: "./docs"}}})
	if len(pkgs) != 1 || pkgs[0].Tracked == nil {
		t.Fatalf("Live = %+v; want docs with its tracked files", pkgs)
	}
	ctxDir := filepath.Join(root, ".context")
	var warned []string
	if _, err := Sync(context.Background(), ctxDir, pkgs, Options{Warn: func(s string) { warned = append(warned, s) }}); err != nil {
		t.Fatal(err)
	}
	want := []string{heldBack(pkgs[0], 1)}
	if !slices.Equal(warned, want) || !strings.Contains(want[0], "d: 1 document git does not track held back") {
		t.Fatalf("Sync warned %q, want %q", warned, want)
	}
	pastClock(t, t.TempDir(), root)
	r, err := OpenReader(ctxDir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.walkSettle = 0
	for round, walks := range [][2]int64{{0, 1}, {1, 1}} {
		f, err := r.Freshness(pkgs)
		if err != nil || !f.Fresh || !slices.Equal(f.Held, want) {
			t.Fatalf("check %d: Freshness = %+v, %v; want fresh, held %q", round+1, f, err, want)
		}
		if got := [2]int64{r.walks[0].Load(), r.walks[1].Load()}; got != walks {
			t.Fatalf("check %d: packages from the record, walked = %v, want %v", round+1, got, walks)
		}
	}
	if err := os.Remove(filepath.Join(root, "docs", "new.md")); err != nil {
		t.Fatal(err)
	}
	f, err := r.Freshness(pkgs)
	if err != nil || !f.Fresh || len(f.Held) != 0 {
		t.Fatalf("untracked document removed: Freshness = %+v, %v; want fresh, nothing held", f, err)
	}
	if got := [2]int64{r.walks[0].Load(), r.walks[1].Load()}; got != [2]int64{1, 2} {
		t.Fatalf("untracked document removed: packages from the record, walked = %v, want [1 2]", got)
	}
}
