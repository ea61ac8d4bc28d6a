package workspace

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/changes"
	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"
)

// TestChangesAgainst: a package's changes between two git trees list the
// documents that differ, whether both trees are in one store (each side
// listed against the other: gitengine's FetchRequest.Against), or only
// one side's store holds the other's tree (the source moved to a clone
// with one more commit: that side is read again whole, or the files the
// two share would count as removed).
func TestChangesAgainst(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := filepath.Join(f.tmp, "a"), filepath.Join(f.tmp, "b")
	files := map[string]string{"docs/x/b.md": "# B\n\nbeta\n"}
	for i := range 30 {
		files[fmt.Sprintf("docs/d%d/f%d.md", i%3, i)] = fmt.Sprintf("# F%d\n\ntext\n", i)
	}
	files["docs/a.md"] = "# A\n\nalpha\n"
	c1 := gittest.NewRepo(t, a, files)
	gittest.MustGit(t, f.tmp, "clone", "-q", a, b)
	c2 := gittest.Commit(t, a, "a", map[string]string{"docs/a.md": "# A\n\nalpha, revised\n"})
	c3 := gittest.Commit(t, b, "a in b", map[string]string{"docs/a.md": "# A\n\nalpha, revised in b\n"})
	entry := func(repo, c string) *lockfile.Entry {
		return &lockfile.Entry{Kind: project.KindGit, Source: repo, Path: "docs", Rev: c, Tree: gittest.MustGit(t, repo, "rev-parse", c+":docs")}
	}
	w := f.open(f.project)
	for name, c := range map[string]struct{ oe, ne *lockfile.Entry }{
		"one store":     {entry(a, c1), entry(a, c2)},
		"the new one's": {entry(a, c1), entry(b, c3)},
		"the old one's": {entry(b, c1), entry(a, c2)},
		"the same tree": {entry(a, c1), entry(b, c1)},
	} {
		p, err := w.packageChanges(bg, "docs", c.oe, c.ne, changes.Limits{}, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := ""
		for _, d := range p.Documents {
			got += d.Path + ":" + d.Change + " "
		}
		want := "a.md:modified "
		if c.oe.Tree == c.ne.Tree {
			want = ""
		}
		if got != want {
			t.Errorf("%s: %q (status %s, %s), want %q", name, got, p.Status, p.Note, want)
		}
	}
}
