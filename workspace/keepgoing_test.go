package workspace

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// With KeepGoing, a spec that cannot be added fails alone: the others are
// installed and recorded; without it, the whole Add is refused.
func TestAddKeepGoing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	gone := filepath.Join(f.tmp, "gone")
	specs := []project.PackageSpec{
		{Alias: "team", Source: f.upstream, Path: "team"},
		{Alias: "gone", Source: gone},
	}
	if _, err := w.Add(bg, specs, AddOptions{}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("add without KeepGoing: %v", err)
	}
	r, err := w.Add(bg, specs, AddOptions{KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	if actions(r) != "gone:failed team:installed" || !r.Partial() {
		t.Fatalf("add: %s", actions(r))
	}
	var ms *MissingSourceError
	if !errors.As(r.Packages[0].Err, &ms) || ms.Source != gone {
		t.Fatalf("gone's error: %v", r.Packages[0].Err)
	}
	m := w.Manifest()
	if _, ok := m.Spec("gone"); ok {
		t.Fatal("the failed spec was recorded")
	}
	if _, ok := m.Spec("team"); !ok || !exists(filepath.Join(w.pkgDir("team"), "handbook.md")) {
		t.Fatal("team not installed")
	}
}
