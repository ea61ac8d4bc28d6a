package workspace

import (
	"os"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// TestPreviousLockTornIsNone (upd22): the lock ctx last replaced is kept
// with no fsync (a convenience of `ctx changes`, off the update's path),
// so after a crash it may be torn: Changes then compares with nothing and
// says so, never fails, and the next update keeps a whole record again.
func TestPreviousLockTornIsNone(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides", Alias: "g"}}, AddOptions{}))
	f.commit("two", map[string]string{"guides/other.md": "# Other\n\nrevised\n"})
	f.must(w.Update(bg, nil, UpdateOptions{}))
	rec := w.path(project.StateDir, project.PreviousLockName)
	set, err := w.Changes(bg, ChangesOptions{LastChange: true})
	if err != nil || !strings.HasPrefix(set.Since, "the lock before ctx last changed it") {
		t.Fatalf("changes after an update: since %q, %v; want the kept lock", set.Since, err)
	}
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, torn := range [][]byte{nil, data[:len(data)/2]} {
		if err := os.WriteFile(rec, torn, 0o644); err != nil {
			t.Fatal(err)
		}
		set, err = w.Changes(bg, ChangesOptions{LastChange: true})
		if err != nil || set.Since != "none" {
			t.Errorf("changes with a torn record (%d bytes): since %q, %v; want none and no error", len(torn), set.Since, err)
		}
	}
	f.commit("three", map[string]string{"guides/other.md": "# Other\n\nrevised again\n"})
	f.must(w.Update(bg, nil, UpdateOptions{}))
	if set, err = w.Changes(bg, ChangesOptions{LastChange: true}); err != nil || !strings.HasPrefix(set.Since, "the lock before ctx last changed it") {
		t.Errorf("changes after the next update: since %q, %v; want the kept lock", set.Since, err)
	}
	if ents, _ := os.ReadDir(w.path(project.StateDir)); len(ents) > 0 {
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".tmp") {
				t.Errorf("a temp file left in .state: %s", e.Name())
			}
		}
	}
}
