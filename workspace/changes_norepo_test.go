package workspace

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// TestChangesOutsideGit (agent21 audit): in a project that is not in a git
// repository (the demo's), what_changed with no earlier lock told the
// agent to name one with since, and since then failed with "not inside a
// git repository": a loop with no way out. The note says why there is
// none and what will make one; since says to leave it out.
func TestChangesOutsideGit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	set, err := w.Changes(bg, ChangesOptions{SinceName: "since"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(set.Note, "name one with since") || !strings.Contains(set.Note, "not in a git repository") {
		t.Errorf("note %q: want why there is no earlier lock, not advice to name one with since", set.Note)
	}
	_, err = w.Changes(bg, ChangesOptions{Since: "HEAD~1", SinceName: "since"})
	if err == nil || !strings.Contains(err.Error(), "not inside a git repository") || !strings.Contains(err.Error(), "leave since out") {
		t.Errorf("since HEAD~1 outside git: %v", err)
	}
}

// TestChangesOnlyDirSources (agent21 audit): when every package is a dir
// source (read live, never locked), what_changed said to name an earlier
// lock with since, which would list nothing either.
func TestChangesOnlyDirSources(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFile(t, filepath.Join(f.project, "notes", "a.md"), "# A\n")
	w := f.open(f.project)
	if _, err := w.Add(bg, []project.PackageSpec{{Source: "./notes", Kind: project.KindDir}}, AddOptions{}); err != nil {
		t.Fatal(err)
	}
	set, err := w.Changes(bg, ChangesOptions{SinceName: "since"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(set.Note, "since") || !strings.Contains(set.Note, "dir source") {
		t.Errorf("note %q: want that dir sources have nothing locked to compare", set.Note)
	}
}
