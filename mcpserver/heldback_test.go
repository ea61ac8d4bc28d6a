package mcpserver

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/project"
)

// TestFreshCheckSaysHeldBack (review18e finding 5): a server started on an
// index that is fresh, of a committed dir source with a document git does
// not track, says on stderr that it is held back, once: not on each check.
func TestFreshCheckSaysHeldBack(t *testing.T) {
	if !gittest.Available() {
		t.Skip("no git")
	}
	root := t.TempDir()
	gittest.MustGit(t, root, "init", "-q", "-b", "main")
	gittest.WriteFiles(t, root, map[string]string{
		"docs/a.md":                    "# A\n\nzanzibar\n",
		".context/context.config.json": `{"index": {}, "packages": [{"alias": "d", "kind": "dir", "source": "./docs"}]}` + "\n",
		".context/context.lock":        `{"version": 1, "packages": {}}` + "\n",
	})
	gittest.MustGit(t, root, "add", "-A")
	gittest.MustGit(t, root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "c")
	gittest.WriteFiles(t, root, map[string]string{"docs/new.md": "# New\n\nuntracked\n"})
	p, err := project.At(root)
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.ReadManifest()
	if err != nil {
		t.Fatal(err)
	}
	pkgs := p.Live(m)
	if len(pkgs) != 1 || pkgs[0].Tracked == nil {
		t.Fatalf("Live = %+v; want docs with its tracked files", pkgs)
	}
	if _, err := indexer.Sync(context.Background(), filepath.Join(root, ".context"), pkgs, indexer.Options{Warn: func(string) {}}); err != nil {
		t.Fatal(err)
	}
	log := &lockedBuffer{}
	s, err := New(Options{ProjectDir: root, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checks := 0
	s.freshness = func(r *indexer.Reader, pkgs []indexer.Package) (indexer.Freshness, error) {
		checks++
		return r.Freshness(pkgs)
	}
	for range 2 {
		if w := s.freshen(context.Background(), nil, s.snapshot()); w != "" {
			t.Fatalf("freshen warned %q; want a fresh index", w)
		}
		s.mu.Lock()
		s.fresh.fresh = false // the next call checks again
		s.mu.Unlock()
	}
	if checks != 2 {
		t.Fatalf("%d freshness checks, want 2", checks)
	}
	if n := strings.Count(log.String(), "d: 1 document git does not track held back"); n != 1 {
		t.Fatalf("the held-back warning logged %d times, want once; log:\n%s", n, log.String())
	}
}
