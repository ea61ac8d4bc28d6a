package indexer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// planCounts sums up a plan: files to read that are new, files to read that
// were catalogued, unchanged records, and removed documents.
func planCounts(p *syncPlan) (added, changed, unchanged, removed int) {
	for _, j := range p.jobs {
		if j.old == nil {
			added++
		} else {
			changed++
		}
	}
	unchanged = countRecords(p.unchanged)
	for _, part := range p.keep {
		unchanged += part.Records // a package none of whose files changed
	}
	return added, changed, unchanged, p.removed
}

func plan(t *testing.T, dir string, pkgs []Package, rebuild bool) *syncPlan {
	t.Helper()
	p, err := planSync(dir, filepath.Join(dir, "index"), pkgs, rebuild, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlanSync checks the plan step alone, and that Sync does what its plan
// says.
func TestPlanSync(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	pkgs := testPackages()

	p := plan(t, dir, pkgs, false)
	if !p.rebuild || p.why != "no search index yet" {
		t.Fatalf("first plan: rebuild %v (%q), want a rebuild because there is no index", p.rebuild, p.why)
	}
	a, c, u, r := planCounts(p)
	if a != 6 || c != 0 || u != 0 || r != 0 {
		t.Fatalf("first plan: added %d, changed %d, unchanged %d, removed %d; want 6 0 0 0", a, c, u, r)
	}
	rep, err := Sync(ctx, dir, pkgs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Rebuilt || rep.Added != a || rep.Removed != 0 {
		t.Fatalf("first Sync: %+v, plan said rebuild, %d added", rep, a)
	}

	p = plan(t, dir, pkgs, false)
	if a, c, u, r := planCounts(p); p.rebuild || a+c+r != 0 || u != 6 || len(p.deletes) != 0 {
		t.Fatalf("plan of an unchanged corpus: rebuild %v (%q), added %d, changed %d, unchanged %d, removed %d", p.rebuild, p.why, a, c, u, r)
	}
	if p := plan(t, dir, pkgs, true); !p.rebuild || p.why != "asked" || len(p.jobs) != 6 {
		t.Fatalf("plan with rebuild asked: rebuild %v (%q), %d jobs", p.rebuild, p.why, len(p.jobs))
	}

	// Edit one file, touch another without changing it, add one, delete
	// one, and drop the ops package (2 documents).
	later := time.Now().Add(time.Hour)
	writeFiles(t, dir, "guides", map[string]string{"style/go.md": "# Go style\n\nShort now.\n", "new.md": "# New\n\nA new page.\n"})
	if err := os.Chtimes(filepath.Join(dir, "packages/guides/style/go.md"), later, later); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(dir, "packages/guides/deploy.md"), later, later); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "packages/guides/sub/empty.mdx")); err != nil {
		t.Fatal(err)
	}
	pkgs = pkgs[:1]
	p = plan(t, dir, pkgs, false)
	a, c, u, r = planCounts(p)
	if p.rebuild || a != 1 || c != 2 || u != 1 || r != 3 {
		t.Fatalf("plan after edits: rebuild %v (%q), added %d, changed %d, unchanged %d, removed %d; want no rebuild, 1 2 1 3", p.rebuild, p.why, a, c, u, r)
	}
	if len(p.deletes) == 0 {
		t.Fatal("plan after edits deletes no chunks")
	}
	rep, err = Sync(ctx, dir, pkgs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// deploy.md was touched, not changed: the parse step finds it unchanged.
	if rep.Rebuilt || rep.Added != 1 || rep.Updated != 1 || rep.Unchanged != 2 || rep.Removed != 3 {
		t.Fatalf("Sync after edits: %+v; want 1 added, 1 updated, 2 unchanged, 3 removed", rep)
	}

	// The live directory gone: rebuild, and say why.
	p = plan(t, dir, pkgs, false)
	if err := os.RemoveAll(filepath.Join(dir, "index", p.m.Bleve)); err != nil {
		t.Fatal(err)
	}
	if p := plan(t, dir, pkgs, false); !p.rebuild || p.why != "the search index directory is missing" || len(p.jobs) != 4 {
		t.Fatalf("plan without the live directory: rebuild %v (%q), %d jobs", p.rebuild, p.why, len(p.jobs))
	}
}
