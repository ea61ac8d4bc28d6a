package workspace

import (
	"slices"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// TestStateSyncedBeforeLock (rv-upd22): the swap renames the package's
// state into .state/ (and the old one out); .state/ is synced before the
// lock that commits the change is written, on an install and on an
// update. Up to round 21 an update's only sync of .state/ was the
// previous lock's (upd22 made it a cache) and an install had none.
func TestStateSyncedBeforeLock(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	var stages []string
	w.opts.testHook = func(stage, alias string) error {
		if stage == "write:lock" || stage == "synced:"+project.StateDir {
			stages = append(stages, stage)
		}
		return nil
	}
	want := []string{"synced:" + project.StateDir, "write:lock"}
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides", Alias: "g"}}, AddOptions{}))
	if !slices.Equal(stages, want) {
		t.Errorf("install: %q; want %q", stages, want)
	}
	stages = nil
	f.commit("two", map[string]string{"guides/other.md": "# Other\n\nrevised\n"})
	f.must(w.Update(bg, nil, UpdateOptions{}))
	if !slices.Equal(stages, want) {
		t.Errorf("update: %q; want %q", stages, want)
	}
	w.opts.testHook = nil
}
