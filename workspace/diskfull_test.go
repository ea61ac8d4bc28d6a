package workspace

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/treehash"
	"github.com/ctx-dev/ctx/project"
)

// TestDiskFullAtEveryWrite makes the n-th write of update, install, remove,
// update --force (with an edit) and an update that adds, deletes, changes
// a mode and turns a file into a folder and back (update-reshape: every
// kind of change a patch makes, see patch.go) fail with ENOSPC, for every
// n: the error says the disk is full, the lock describes the disk (every
// locked package's files hash to its entry and its state names its commit;
// nothing unlocked is left installed), an updated folder is exactly the old
// tree or the new one, the edit is still there, and the same command run
// again, with room, finishes.
func TestDiskFullAtEveryWrite(t *testing.T) {
	t.Parallel()
	var tries atomic.Int64
	t.Cleanup(func() { t.Logf("%d fault points tried", tries.Load()) })
	for _, cmd := range []string{"update", "install", "remove", "update-force", "update-reshape"} {
		// The commands are independent; the fault points of one are tried
		// in order, until the command makes no write the hook can fail.
		t.Run(cmd, func(t *testing.T) {
			t.Parallel()
			for n := 1; ; n++ {
				fired := false
				t.Run(fmt.Sprintf("%02d", n), func(t *testing.T) {
					fired = diskFullCell(t, cmd, n)
				})
				if !fired {
					break
				}
				tries.Add(1)
			}
		})
	}
}

func diskFullCell(t *testing.T, cmd string, n int) (fired bool) {
	f := newFixture(t)
	if cmd == "update-reshape" {
		f.steps("reshapeBase", func() string { reshapeBase(t, f); return "" })
	}
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}, {Source: f.upstream, Path: "team"}}, AddOptions{}))
	oldTree := layout(t, w.pkgDir("guides"))
	reshaped := cmd == "update-reshape"
	f.steps(fmt.Sprintf("upstream moves, reshaped %v", reshaped), func() string {
		f.commit("upstream moves", map[string]string{"guides/other.md": "# Other v2\n", "team/handbook.md": "# Handbook v2\n"})
		if reshaped {
			// Files added, deleted, a mode, a file for a folder and back.
			reshape(t, f)
			reshapeTypes(t, f)
		}
		return ""
	})
	newTree := layout(t, filepath.Join(f.upstream, "guides"))
	if cmd == "install" {
		f.teammate(func(wm *Workspace) { f.must(wm.Update(bg, nil, UpdateOptions{})) }, project.LockName)
	}
	edit := filepath.Join(w.pkgDir("guides"), "api/mine.md")
	if cmd == "update-force" {
		writeFile(t, edit, "mine\n")
	}
	// The packages are written in parallel (Options.Jobs): the hook
	// counts under a lock.
	var mu sync.Mutex
	count := 0
	w.opts.testHook = func(stage, alias string) error {
		if strings.HasPrefix(stage, "write:") {
			mu.Lock()
			defer mu.Unlock()
			count++
			if count == n {
				fired = true
				return &fs.PathError{Op: "write", Path: stage, Err: syscall.ENOSPC}
			}
		}
		return nil
	}
	run := func() (*Report, error) {
		switch cmd {
		case "update", "update-reshape":
			return w.Update(bg, nil, UpdateOptions{})
		case "update-force":
			return w.Update(bg, nil, UpdateOptions{Force: true})
		case "install":
			return w.Install(bg, InstallOptions{})
		}
		var left []string
		for _, s := range w.Manifest().Packages {
			left = append(left, s.Alias)
		}
		if len(left) == 0 { // recovery finished the remove
			return &Report{}, nil
		}
		return w.Remove(bg, left, RemoveOptions{})
	}
	r, err := run()
	w.opts.testHook = nil
	mu.Lock()
	hit := fired
	mu.Unlock()
	if !hit {
		if err != nil {
			t.Fatal(err)
		}
		return false
	}
	var msgs []string
	if err != nil {
		msgs = append(msgs, err.Error())
	}
	if r != nil {
		for _, p := range r.Packages {
			if p.Err != nil {
				msgs = append(msgs, p.Err.Error())
			}
		}
	}
	if len(msgs) == 0 || !strings.Contains(strings.Join(msgs, "\n"), "the disk is full") {
		t.Fatalf("write %d failed, but nothing says the disk is full: %q", n, msgs)
	}
	if cmd == "install" {
		// The pulled lock named other commits before the command ran: each
		// package is as it was or as the lock says, and its files are
		// what its state records.
		checkAsRecorded(t, w)
	} else {
		checkTrueToDisk(t, w)
	}
	if cmd == "update-force" {
		if got, _ := os.ReadFile(edit); string(got) != "mine\n" && !backedUp(t, f.project) {
			t.Fatal("the edit is lost")
		}
	}
	if cmd == "update" || cmd == "update-reshape" {
		// The folder is the old tree or the new one, exactly.
		if got := layout(t, w.pkgDir("guides")); !reflect.DeepEqual(got, oldTree) && !reflect.DeepEqual(got, newTree) {
			t.Fatalf("guides is neither the old tree nor the new one:\n%v", got)
		}
	}
	// With room again, the command finishes (after the same recovery a new process would run).
	w.Close()
	w2 := f.open(f.project)
	if cmd != "install" {
		checkTrueToDisk(t, w2)
	}
	w = w2
	f.must(run())
	checkTrueToDisk(t, w2)
	return true
}

// backedUp reports whether some backup holds the edit api/mine.md.
func backedUp(t *testing.T, dir string) bool {
	ents, _ := os.ReadDir(filepath.Join(dir, project.DirName, "backup"))
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join(dir, project.DirName, "backup", e.Name(), "api/mine.md")); err == nil && string(b) == "mine\n" {
			return true
		}
	}
	return false
}

// checkTrueToDisk: the lock describes packages/ exactly.
func checkTrueToDisk(t *testing.T, w *Workspace) {
	t.Helper()
	l := readLock(t, w.root)
	for alias, e := range l.Packages {
		h, err := treehash.HashDir(w.pkgDir(alias))
		if err != nil {
			t.Fatalf("%s is locked but not on disk: %v", alias, err)
		}
		st, err := w.readState(alias)
		if h != e.Hash && !dirtyOnlyBy(t, w, alias) {
			t.Fatalf("%s: lock says %s (commit %s), disk has %s", alias, e.Hash, naming.ShortRev(e.Rev, 12), h)
		}
		if err != nil || st.Rev != e.Rev {
			t.Fatalf("%s: state %+v (%v), lock commit %s", alias, st, err, e.Rev)
		}
	}
	for _, a := range w.packageDirs() {
		if _, ok := l.Packages[a]; !ok {
			t.Fatalf("%s is on disk but not in the lock", a)
		}
	}
}

// checkAsRecorded: every installed package is exactly what its state says
// ctx installed, at a commit the old or the new lock names.
func checkAsRecorded(t *testing.T, w *Workspace) {
	t.Helper()
	for _, a := range w.packageDirs() {
		loc, err := w.inspect(a, nil, true)
		if err != nil || loc.state == nil || len(loc.changes) != 0 {
			t.Fatalf("%s: not as recorded: %+v %v", a, loc, err)
		}
	}
}

// dirtyOnlyBy reports whether alias differs from what was installed only by
// the test's own edit.
func dirtyOnlyBy(t *testing.T, w *Workspace, alias string) bool {
	loc, err := w.inspect(alias, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	return len(loc.changes) == 1 && loc.changes[0].Path == "api/mine.md"
}
