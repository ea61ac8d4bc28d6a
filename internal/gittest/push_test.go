package gittest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPushInProcess: after Push in process, the bare repository is what
// git push makes of it: its branch is the commit, git fsck finds every
// object reachable and well formed (a 150-file commit among them), and
// its history is src's. A bare
// repository with a hook gets a real push, which runs the hook; a push that
// is not a fast-forward is git's. (cmd/ctx's TestInProcessPushIsGits
// compares the in-process push with git's, ref by ref and object by object.)
func TestPushInProcess(t *testing.T) {
	if !Available() {
		t.Skip("git not installed")
	}
	t.Parallel()
	tmp := t.TempDir()
	src, bare := filepath.Join(tmp, "src"), filepath.Join(tmp, "root.git")
	NewRepo(t, src, map[string]string{"README.md": "# r\n"})
	MustGit(t, tmp, "clone", "-q", "--bare", src, bare)
	files := map[string]string{}
	for i := 0; i < 150; i++ {
		files[filepath.ToSlash(filepath.Join("d", string(rune('a'+i%10)), strings.Repeat("p", 1+i/10)+".md"))] = strings.Repeat("line\n", i+1)
	}
	Commit(t, src, "bulk", files)
	if err := PushInProcess(src, bare, "master"); err != nil {
		t.Fatal(err)
	}
	c3 := Commit(t, src, "one", map[string]string{"README.md": "# r, changed\n"})
	if err := PushInProcess(src, bare, "master"); err != nil {
		t.Fatal(err)
	}
	if got := MustGit(t, bare, "rev-parse", "master"); got != c3 {
		t.Fatalf("bare's master %s, want %s", got, c3)
	}
	MustGit(t, bare, "fsck", "--strict", "--no-dangling")
	if got := MustGit(t, bare, "log", "--format=%s", "master"); got != "one\nbulk\ninitial" {
		t.Errorf("bare's history %q", got)
	}

	// Not a fast-forward: git's (which refuses it).
	MustGit(t, src, "reset", "-q", "--hard", "HEAD~1")
	Commit(t, src, "diverged", map[string]string{"d.md": "# d\n"})
	if err := PushInProcess(src, bare, "master"); err != ErrNotInProcess {
		t.Errorf("a push that is not a fast-forward: %v, want ErrNotInProcess", err)
	}
	MustGit(t, src, "reset", "-q", "--hard", c3)

	// A hook a push runs: Push leaves it to git push.
	hook := filepath.Join(bare, "hooks", "post-receive")
	if err := os.MkdirAll(filepath.Dir(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch \"$GIT_DIR/hook-ran\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c4 := Commit(t, src, "two", map[string]string{"README.md": "# r, again\n"})
	if err := PushInProcess(src, bare, "master"); err != ErrNotInProcess {
		t.Errorf("a bare repository with a hook: %v, want ErrNotInProcess", err)
	}
	Push(t, src, bare, "master")
	if _, err := os.Stat(filepath.Join(bare, "hook-ran")); err != nil {
		t.Errorf("the bare repository's hook did not run: %v", err)
	}
	if got := MustGit(t, bare, "rev-parse", "master"); got != c4 {
		t.Errorf("bare's master %s after the push, want %s", got, c4)
	}
}
