package gittest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPushLeavesHooksToGit: a push into a bare repository with a hook,
// or from a work tree with one, is git's (ErrNotInProcess), and Push then
// runs git push, which runs the hook. (TestInProcessPushIsGits proves the
// in-process push against git's.)
func TestPushLeavesHooksToGit(t *testing.T) {
	if !Available() {
		t.Skip("git not installed")
	}
	t.Parallel()
	tmp := t.TempDir()
	src, bare := filepath.Join(tmp, "src"), filepath.Join(tmp, "root.git")
	NewRepo(t, src, map[string]string{"README.md": "# r\n"})
	MustGit(t, tmp, "clone", "-q", "--bare", src, bare)
	c2 := Commit(t, src, "two", map[string]string{"README.md": "# r, again\n"})
	hook := func(gitDir, name string) {
		t.Helper()
		p := filepath.Join(gitDir, "hooks", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\ntouch \"$GIT_DIR/"+name+"-ran\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hook(filepath.Join(src, ".git"), "pre-push")
	if err := PushInProcess(src, bare, "master"); err != ErrNotInProcess {
		t.Errorf("from a work tree with a pre-push hook: %v, want ErrNotInProcess", err)
	}
	if err := os.Remove(filepath.Join(src, ".git", "hooks", "pre-push")); err != nil {
		t.Fatal(err)
	}
	hook(bare, "post-receive")
	if err := PushInProcess(src, bare, "master"); err != ErrNotInProcess {
		t.Errorf("into a bare repository with a hook: %v, want ErrNotInProcess", err)
	}
	Push(t, src, bare, "master")
	if _, err := os.Stat(filepath.Join(bare, "post-receive-ran")); err != nil {
		t.Errorf("the bare repository's hook did not run: %v", err)
	}
	if got := MustGit(t, bare, "rev-parse", "master"); got != c2 {
		t.Errorf("bare's master %s after the push, want %s", got, c2)
	}
}

// TestInProcessPushIsGits: PushInProcess (the scripts' git-push, the
// fixtures' Push) leaves the bare repository as `git push` does (the same refs, the same reachable objects, fsck clean), for
// a new commit, a new branch and a push with nothing new; a push git
// would refuse (not a fast-forward) is git's.
func TestInProcessPushIsGits(t *testing.T) {
	t.Parallel()
	if !Available() {
		t.Skip("no git")
	}
	base := t.TempDir()
	src := filepath.Join(base, "src")
	NewRepo(t, src, map[string]string{"a.md": "# a\n"})
	ours, theirs := filepath.Join(base, "ours.git"), filepath.Join(base, "theirs.git")
	MustGit(t, base, "clone", "-q", "--bare", src, ours)
	MustGit(t, base, "clone", "-q", "--bare", src, theirs)
	same := func(step string) {
		t.Helper()
		for _, args := range [][]string{
			{"for-each-ref", "--format=%(objectname) %(refname)"},
			{"rev-list", "--objects", "--all"},
			{"fsck", "--full", "--strict"},
		} {
			o, th := MustGit(t, ours, args...), MustGit(t, theirs, args...)
			if o != th {
				t.Errorf("%s: git %v:\nin process:\n%s\ngit push:\n%s", step, args, o, th)
			}
		}
	}
	push := func(step, branch string) {
		t.Helper()
		if err := PushInProcess(src, ours, branch); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		MustGit(t, src, "push", "-q", theirs, branch)
		same(step)
	}
	Commit(t, src, "v2", map[string]string{"b.md": "# b\n", "dir/c.md": "# c\n"})
	Commit(t, src, "v3", map[string]string{"b.md": "# b changed\n"})
	push("two new commits", "master")
	push("nothing new", "master")
	MustGit(t, src, "checkout", "-q", "-b", "topic")
	Commit(t, src, "topic", map[string]string{"t.md": "# t\n"})
	push("a new branch", "topic")
	MustGit(t, src, "checkout", "-q", "master")
	MustGit(t, src, "reset", "-q", "--hard", "HEAD~1")
	Commit(t, src, "diverged", map[string]string{"d.md": "# d\n"})
	if err := PushInProcess(src, ours, "master"); err != ErrNotInProcess {
		t.Errorf("a push that is not a fast-forward: %v, want ErrNotInProcess (git refuses it)", err)
	}
}
