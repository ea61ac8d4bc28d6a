package gittest

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRepoStateWatchSeesEveryChange: a served repository's digest is made
// again only after something under it changed, and every kind of change
// makes it again: a file rewritten in place at the same size and
// modification time, a mode, a new folder and then a file in it (its
// watch), a folder above the repository swapped for another, a file
// removed, a second name made outside the repository and a write through
// it.
func TestRepoStateWatchSeesEveryChange(t *testing.T) {
	t.Parallel()
	tr := watchedRepoTree(t)
	top := filepath.Join(t.TempDir(), "top")
	dir := filepath.Join(top, "repo.git")
	if err := tr.WriteAsIs(dir); err != nil {
		t.Fatal(err)
	}

	last, _ := repoState(dir)
	// same checks the digest is last's without a walk; moved, that it is
	// made again, by a walk, and differs. Walks are dir's own (the
	// process's count moves with parallel tests' servers), each with its
	// reason, so that an unexpected one says what caused it.
	same := func(what string) {
		t.Helper()
		n := len(stateWatches.walksOf(dir))
		got, ok := repoState(dir)
		walked := unexpectedWalks(t, stateWatches.walksOf(dir)[n:])
		if !ok || got != last || len(walked) > 0 {
			t.Errorf("%s: ok %v, digest moved %v, walked for %v; want the same digest and no walk", what, ok, got != last, walked)
		}
	}
	moved := func(what string) {
		t.Helper()
		n := len(stateWatches.walksOf(dir))
		got, ok := repoState(dir)
		if walked := unexpectedWalks(t, stateWatches.walksOf(dir)[n:]); !ok || got == last || len(walked) == 0 {
			t.Errorf("%s: ok %v, digest moved %v, walked for %v; want a new digest from a walk", what, ok, got != last, walked)
		}
		last = got
		same(what + ", then nothing")
	}
	same("nothing changed")

	desc := filepath.Join(dir, "description")
	fi, err := os.Stat(desc)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(desc, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("X"), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(desc, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	moved("a byte written in place, the mtime put back")

	if err := os.Chmod(desc, 0o600); err != nil {
		t.Fatal(err)
	}
	moved("a mode")

	if err := os.MkdirAll(filepath.Join(dir, "objects", "zz"), 0o755); err != nil {
		t.Fatal(err)
	}
	moved("a new folder")
	if err := os.WriteFile(filepath.Join(dir, "objects", "zz", "new"), []byte("new"), 0o444); err != nil {
		t.Fatal(err)
	}
	moved("a file in the new folder")

	// The folder above swapped for a copy with other bytes: no event
	// reaches the old folders' watches.
	other := filepath.Join(t.TempDir(), "other")
	if err := tr.WriteAsIs(filepath.Join(other, "repo.git")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(top, top+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, top); err != nil {
		t.Fatal(err)
	}
	moved("the folder above swapped")

	if err := os.Remove(desc); err != nil {
		t.Fatal(err)
	}
	moved("a file removed")

	// A second name outside the repository, then a write through it.
	head := filepath.Join(dir, "HEAD")
	outside := filepath.Join(t.TempDir(), "HEAD")
	if err := os.Link(head, outside); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	// The digest is the same (the bytes are); a walk may be made.
	if got, ok := repoState(dir); !ok || got != last {
		t.Errorf("a second name made outside: ok %v, digest moved %v; want the same", ok, got != last)
	}
	if err := os.WriteFile(outside, []byte("ref: refs/heads/other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	moved("a file written through its second name")
}

// TestRepoStateChangeDuringWalk: a change made while a digest's walk runs
// makes the next request walk again, whatever the walk read of it (not
// parallel: the hook is the process's).
func TestRepoStateChangeDuringWalk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo.git")
	if err := watchedRepoTree(t).WriteAsIs(dir); err != nil {
		t.Fatal(err)
	}
	repoState(dir) // every folder and file watched
	desc := filepath.Join(dir, "description")
	if err := os.WriteFile(desc, []byte("before the walk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	entered := 0
	hook := func(string) {
		if entered++; entered == 1 {
			if err := os.WriteFile(desc, []byte("during the walk\n"), 0o644); err != nil {
				t.Error(err)
			}
		}
	}
	stateWalkHook.Store(&hook)
	repoState(dir)
	stateWalkHook.Store(nil)
	if entered == 0 {
		t.Fatal("the request did not walk")
	}
	n := len(stateWatches.walksOf(dir))
	got, ok := repoState(dir)
	want, _ := walkState(dir, nil)
	walked := stateWatches.walksOf(dir)[n:]
	if !ok || got != want || len(walked) != 1 {
		t.Fatalf("after a change during the walk: ok %v, digest is a fresh walk's %v, walked for %v; want all three", ok, got == want, walked)
	}
	unexpectedWalks(t, walked) // a forced walk skips: the change's event is not what it shows
	if why := walked[0]; why.what != reasonEvent || why.path != desc {
		t.Errorf("the walk after a change during the walk was for %v; want an event on %s", why, desc)
	}
}

// watchedRepoTree skips t where there is no inotify, and returns the
// fixture's bare repository to write a copy of (the bare clone's objects
// are hard links to its source's, so the tests change a copy).
func watchedRepoTree(t *testing.T) *Tree {
	t.Helper()
	stateWatches.once.Do(stateWatches.init)
	if stateWatches.fd < 0 {
		t.Skip("no inotify: every request walks")
	}
	root, _ := setup(t)
	tr, err := ReadTree(filepath.Join(root, "repo.git"))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestRepoStateLateEventIsNoChange: the events the kernel sends when a
// file's last reference goes (a write's close, a removed file's or
// folder's inode freed) come late when another reference outlived the change: a child
// process forked meanwhile holds every open file until its exec closes
// them, and parallel tests start processes all the time. Such an event
// says nothing changed after the walk, so it must not make the next
// request walk; the change itself is seen by its own event, made in the
// system call (a write, a link count). A dup of the descriptor stands for
// the child's reference.
func TestRepoStateLateEventIsNoChange(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "repo.git")
	if err := watchedRepoTree(t).WriteAsIs(dir); err != nil {
		t.Fatal(err)
	}
	desc := filepath.Join(dir, "description")
	sub := filepath.Join(dir, "objects", "zz")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	last, _ := repoState(dir)
	check := func(what string, change, release func()) {
		t.Helper()
		change()
		n := len(stateWatches.walksOf(dir))
		got, ok := repoState(dir)
		if walked := unexpectedWalks(t, stateWatches.walksOf(dir)[n:]); !ok || got == last || len(walked) == 0 {
			t.Errorf("%s: ok %v, digest moved %v, walked for %v; want a new digest from a walk", what, ok, got != last, walked)
		}
		last = got
		release()
		n = len(stateWatches.walksOf(dir))
		got, ok = repoState(dir)
		if walked := unexpectedWalks(t, stateWatches.walksOf(dir)[n:]); !ok || got != last || len(walked) > 0 {
			t.Errorf("%s, then the last reference closed: ok %v, digest moved %v, walked for %v; want the same digest and no walk", what, ok, got != last, walked)
		}
	}

	var held int
	check("a file written and closed, another reference open", func() {
		f, err := os.OpenFile(desc, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if held, err = syscall.Dup(int(f.Fd())); err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("written\n"); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}, func() { syscall.Close(held) })

	check("a file removed, another reference open", func() {
		f, err := os.Open(desc)
		if err != nil {
			t.Fatal(err)
		}
		if held, err = syscall.Dup(int(f.Fd())); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := os.Remove(desc); err != nil {
			t.Fatal(err)
		}
	}, func() { syscall.Close(held) })

	// A folder's IN_DELETE_SELF and IN_IGNORED come when its inode is
	// freed: late, when a descriptor of it (a child's copy, a process's
	// working folder) outlived its removal.
	check("a folder removed, another reference open", func() {
		f, err := os.Open(sub)
		if err != nil {
			t.Fatal(err)
		}
		if held, err = syscall.Dup(int(f.Fd())); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := os.Remove(sub); err != nil {
			t.Fatal(err)
		}
	}, func() { syscall.Close(held) })
}

// unexpectedWalks returns walked, and skips t when the system forced one
// of them (events lost when the queue overflowed, as parallel tests'
// servers write a lot; a watch refused at the user's limit, as the whole
// suite's processes hold watches): such a walk is by design, but then the
// test cannot tell whether the watches saw what it checks (a refused
// watch forces every walk after it), and passing would prove nothing.
func unexpectedWalks(t *testing.T, walked []walkReason) []walkReason {
	t.Helper()
	for _, why := range walked {
		if why.what == reasonLostEvents || why.what == reasonWatchRefused && errors.Is(why.err, syscall.ENOSPC) {
			t.Skipf("the system forced a walk, so the watches cannot be checked: %v", why)
		}
	}
	return walked
}
