package mcpserver

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/project"
)

// trackedProject is a git project whose committed manifest names the dir
// source d (./docs): docs/a.md is tracked, docs/new.md is not (held back),
// indexed as ctx index does. It returns the project's root.
func trackedProject(t *testing.T) string {
	t.Helper()
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
	gittest.WriteFiles(t, root, map[string]string{"docs/new.md": "# New\n\nlaterword\n"})
	indexLive(t, root)
	return root
}

// indexLive indexes root's dir sources as they are now (as ctx index does)
// and returns them.
func indexLive(t *testing.T, root string) []indexer.Package {
	t.Helper()
	p, err := project.At(root)
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.ReadManifest()
	if err != nil {
		t.Fatal(err)
	}
	pkgs := p.Live(m)
	if _, err := indexer.Sync(context.Background(), filepath.Join(root, ".context"), pkgs, indexer.Options{Warn: func(string) {}}); err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// wantCurrent fails unless the index matches root's dir sources as they
// are now (new.md, once git tracks it, is served).
func wantCurrent(t *testing.T, root, when string) {
	t.Helper()
	p, err := project.At(root)
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.ReadManifest()
	if err != nil {
		t.Fatal(err)
	}
	r, err := indexer.OpenReader(filepath.Join(root, ".context"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := r.Freshness(p.Live(m))
	if err != nil {
		t.Fatal(err)
	}
	if !f.Fresh {
		t.Fatalf("%s: the index is behind the project (stale %v): the server indexed a view older than the one it recorded", when, f.Stale)
	}
}

// TestFreshenRecordsTheSnapshotsStamps (issue 30; dir_tracked's MCP poll
// that timed out under load): a call's snapshot is read, then `git add`
// changes what a committed dir source serves, then the call's freshness
// check finds the index matching the snapshot. The check must be recorded
// against the stamps the snapshot was read at, not stamps taken after the
// `git add`: else the next call, with the new snapshot, finds the
// sentinel unchanged and never serves the added file.
func TestFreshenRecordsTheSnapshotsStamps(t *testing.T) {
	root := trackedProject(t)
	s, err := New(Options{ProjectDir: root, Log: &lockedBuffer{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	old := s.snapshot()
	gittest.MustGit(t, root, "add", "docs/new.md")
	if w := s.freshen(context.Background(), nil, old); w != "" {
		t.Fatalf("freshen warned %q; want the index fresh for the older snapshot", w)
	}
	if w := s.freshen(context.Background(), nil, s.snapshot()); w != "" {
		t.Fatalf("freshen warned %q", w)
	}
	wantCurrent(t, root, "after the next call")
}

// TestReindexReadsTheProjectUnderTheIndexLock (issue 30; dir_tracked's
// `ctx add` then `ctx search` that found nothing under load): a re-index
// the server starts from a snapshot read before another ctx changed the
// project (a `git add`, then that ctx's index, as `ctx add` writes the
// manifest and the lock before its index) must not write the older view
// over the newer index: it reads the project again once it holds the
// index's lock.
func TestReindexReadsTheProjectUnderTheIndexLock(t *testing.T) {
	root := trackedProject(t)
	s, err := New(Options{ProjectDir: root, Log: &lockedBuffer{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	old := s.snapshot()
	gittest.MustGit(t, root, "add", "docs/new.md")
	indexLive(t, root) // the other ctx, done before the server's re-index takes the lock
	s.lockSync(context.Background())
	job := s.startReindex(old, s.sentinel(old), 0, nil)
	s.unlockSync()
	<-job.done
	if job.err != nil {
		t.Fatal(job.err)
	}
	wantCurrent(t, root, "after the server's re-index")
}
