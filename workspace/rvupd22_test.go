package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestPatchStagedStateLostRecovers: a patch's new state is written to
// .tmp/ with no sync of .tmp/ (writeStagedState, upd23): a power cut may
// lose its name there, alone or with the old state already moved to
// .tmp/<alias>.oldstate. Either disk is one recovery finishes: the
// journal's delta applied to the old state, wherever it is, restamped
// from the disk; the lock, the state and the files then agree and
// nothing reads as edited. (The stop comes just before the write, which
// leaves the disk as the lost name does; it passes on main too: the
// rule the cut relies on.)
func TestPatchStagedStateLostRecovers(t *testing.T) {
	t.Parallel()
	for _, old := range []string{"kept", "moved", "lost"} {
		t.Run("old="+old, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			w, err := Open(f.project, f.opts())
			if err != nil {
				t.Fatal(err)
			}
			f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides", Alias: "g"}}, AddOptions{}))
			newRev := f.commit("two", map[string]string{"guides/other.md": "# Other\n\nrevised\n"})
			w.opts.testHook = func(stage, alias string) error {
				if stage == "write:swap-state" {
					return errStopped
				}
				return nil
			}
			if _, err := w.Update(bg, nil, UpdateOptions{}); err == nil {
				t.Fatal("the update did not stop")
			}
			w.Close()
			staged, oldState := w.tmp("g.state"), w.tmp("g.oldstate")
			if exists(staged) || !exists(w.tmp("g.journal")) {
				t.Fatalf("stopped before the staged state's write: staged %v, journal %v", exists(staged), exists(w.tmp("g.journal")))
			}
			if j, err := os.ReadFile(w.tmp("g.journal")); err != nil || !strings.Contains(string(j), `"op": "patch"`) {
				t.Fatalf("not a patch's journal: %s %v", j, err)
			}
			switch old {
			case "moved":
				if err := os.Rename(w.statePath("g"), oldState); err != nil {
					t.Fatal(err)
				}
			case "lost":
				// Its removal from .state/ kept, its name in .tmp/ lost
				// (a system that does not keep the order of the two
				// folders' writes, rv-upd23): recovery reads the files.
				if err := os.Remove(w.statePath("g")); err != nil {
					t.Fatal(err)
				}
			}
			w2 := f.open(f.project)
			if e := readLock(t, f.project).Packages["g"]; e.Rev != newRev {
				t.Errorf("lock at %s after recovery, want %s", e.Rev, newRev)
			}
			st, err := w2.readState("g")
			if err != nil || st.Rev != newRev {
				t.Fatalf("state after recovery: %+v %v", st, err)
			}
			if got := readFile(t, filepath.Join(w2.pkgDir("g"), "other.md")); got != "# Other\n\nrevised\n" {
				t.Errorf("other.md = %q", got)
			}
			if exists(oldState) || exists(staged) {
				t.Errorf("left in .tmp/: oldstate %v, state %v", exists(oldState), exists(staged))
			}
			checkClean(t, w2)
		})
	}
}
