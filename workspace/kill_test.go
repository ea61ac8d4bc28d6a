package workspace

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/project"
)

// TestKillHelper is not a test: TestKillDuringUpdate runs the test binary
// with CTX_WS_KILL_PROJECT set, and this function then runs an update that
// parks at a stage until the parent kills the process.
func TestKillHelper(t *testing.T) {
	proj := os.Getenv("CTX_WS_KILL_PROJECT")
	if proj == "" {
		t.Skip("helper process for TestKillDuringUpdate")
	}
	stage, fail := os.Getenv("CTX_WS_KILL_STAGE"), os.Getenv("CTX_WS_KILL_FAIL")
	o := Options{Jobs: 1, EngineOptions: gitengine.Options{CacheDir: os.Getenv("CTX_WS_KILL_CACHE")}}
	o.testHook = func(s, alias string) error {
		if s == stage && alias == "guides" {
			os.WriteFile(filepath.Join(proj, "parked"), []byte(s), 0o644)
			select {} // wait to be killed
		}
		if s == fail {
			return &fs.PathError{Op: "write", Path: s, Err: syscall.ENOSPC}
		}
		return nil
	}
	w, err := Open(proj, o)
	if err != nil {
		t.Fatal(err)
	}
	w.Update(bg, nil, UpdateOptions{})
	t.Fatal("the update finished: the hook never parked")
}

// TestKillDuringUpdate kills a real process in the middle of an update, at
// each stage, and checks the next Open recovers: the project lock is free,
// every package is as it was or as it should be, and the lock is true to
// the disk.
func TestKillDuringUpdate(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs subprocesses")
	}
	for _, stage := range []string{"staged", "journaled", "swapped", "locked"} {
		t.Run(stage, func(t *testing.T) {
			t.Parallel() // each stage has its own fixture and child process
			f := newFixture(t)
			w := f.open(f.project)
			f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}, {Source: f.upstream, Path: "team"}}, AddOptions{}))
			w.Close()
			before := readLock(t, f.project)
			newCommit := f.commit("moves", map[string]string{"guides/other.md": "# v2\n", "team/handbook.md": "# v2\n"})

			killUpdateAt(t, f, stage, "")

			w2 := f.open(f.project) // the killed process's flock is gone with it
			l := readLock(t, f.project)
			want := map[string]bool{before.Packages["guides"].Rev: true, newCommit: true}
			for _, a := range []string{"guides", "team"} {
				e := l.Packages[a]
				st, err := w2.readState(a)
				if !want[e.Rev] || err != nil || st.Rev != e.Rev {
					t.Errorf("%s: lock %s, state %+v %v", a, e.Rev, st, err)
				}
			}
			if stage != "staged" && l.Packages["guides"].Rev != newCommit {
				t.Errorf("guides not rolled forward past its journal")
			}
			vr, _ := w2.Verify()
			for _, v := range vr {
				if !v.OK {
					t.Errorf("verify %+v", v)
				}
			}
			if st, _ := w2.Status(); len(st) != 0 {
				t.Errorf("dirty after recovery: %+v", st)
			}
			if ents, _ := os.ReadDir(filepath.Join(f.project, project.DirName, ".tmp")); len(ents) != 0 {
				t.Errorf("leftovers: %v", ents)
			}
			// Killed with the lock committed and the index's writer open
			// (indexer.Stream.AllLanded), nothing written into it: the
			// next index update is incremental, not a rebuild.
			if stage == "locked" {
				rep, err := w2.Reindex(bg, indexer.Options{})
				if err != nil || rep.Rebuilt {
					t.Errorf("the index update after a kill at %s: %+v %v, want no rebuild", stage, rep, err)
				}
			}
		})
	}
}

// killUpdateAt runs an update of f's project in a helper process, with the
// write point fail failing (ENOSPC) when not "", and kills it (SIGKILL)
// once it is parked at stage for the package guides.
func killUpdateAt(t *testing.T, f *fixture, stage, fail string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillHelper$")
	cmd.Env = append(os.Environ(), "CTX_WS_KILL_PROJECT="+f.project, "CTX_WS_KILL_STAGE="+stage, "CTX_WS_KILL_FAIL="+fail,
		"CTX_WS_KILL_CACHE="+f.opts().EngineOptions.CacheDir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	parked := filepath.Join(f.project, "parked")
	for !exists(parked) {
		select {
		case err := <-done:
			t.Fatalf("helper exited before parking: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	cmd.Process.Kill()
	<-done
	if err := os.Remove(parked); err != nil {
		t.Fatal(err)
	}
}

// TestKillDuringPatch kills a real process at each step of a churn-free
// update (patch.go) that adds, deletes, changes, changes a mode and turns
// a file into a folder and back: before the journal, after it, after the
// first file moved out, after the first file moved in (others not yet),
// after the swap, after the lock, and while a full disk had it put the
// package back. The next Open recovers each to the old tree or, past the
// journal, the new tree exactly; the lock and the state agree with it,
// verify and status are clean, a file the update only changed the mode
// of is still the same file, and nothing is left in .tmp/.
func TestKillDuringPatch(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs subprocesses")
	}
	for _, c := range []struct{ stage, fail string }{
		{"staged", ""}, {"journaled", ""}, {"patch-out", ""}, {"patch-in", ""}, {"write:swap-state", ""}, {"swapped", ""}, {"locked", ""},
		{"patch-back", "write:lock"},
	} {
		t.Run(c.stage, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.steps("reshapeBase", func() string { reshapeBase(t, f); return "" })
			w := f.open(f.project)
			f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}, {Source: f.upstream, Path: "team"}}, AddOptions{}))
			w.Close()
			before := readLock(t, f.project)
			pkg := filepath.Join(f.project, project.DirName, project.PackagesDir, "guides")
			oldTree, ids := layout(t, pkg), idents(t, pkg)
			newCommit := f.steps("team moves, reshape, reshapeTypes", func() string {
				f.commit("team moves", map[string]string{"team/handbook.md": "# v2\n"})
				reshape(t, f)
				return reshapeTypes(t, f)
			})
			newTree := layout(t, filepath.Join(f.upstream, "guides"))

			killUpdateAt(t, f, c.stage, c.fail)

			w2 := f.open(f.project) // recovery
			l := readLock(t, f.project)
			got := layout(t, pkg)
			switch e := l.Packages["guides"]; {
			case e.Rev == newCommit && reflect.DeepEqual(got, newTree):
			case c.stage == "staged" && e.Rev == before.Packages["guides"].Rev && reflect.DeepEqual(got, oldTree):
			default:
				t.Fatalf("lock at %s, folder:\n%v\nwant the new tree (%s):\n%v", naming.ShortRev(e.Rev, 12), got, naming.ShortRev(newCommit, 12), newTree)
			}
			if ids["api/v2/intro.md"].ino != idents(t, pkg)["api/v2/intro.md"].ino {
				t.Error("api/v2/intro.md, whose mode alone changed, was replaced")
			}
			for _, a := range []string{"guides", "team"} {
				st, err := w2.readState(a)
				if err != nil || st.Rev != l.Packages[a].Rev {
					t.Errorf("%s: lock %s, state %+v %v", a, l.Packages[a].Rev, st, err)
				}
			}
			checkClean(t, w2)
		})
	}
}
