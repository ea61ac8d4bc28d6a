package gittest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var runs int

func memoHits() int {
	commits.mu.Lock()
	defer commits.mu.Unlock()
	return commits.hits
}

// TestCommitReplayed: the same commits made in two copies of a fixture
// give the second copy the repository git gave the first: the same
// commits, a clean status, every object sound, and git commits on from
// there as in the first. A change of the work tree, of the message or of
// what is staged is another commit, made by git.
func TestCommitReplayed(t *testing.T) {
	if !Available() {
		t.Skip("git not installed")
	}
	// A run of its own (go test -count=2 runs it again in this process,
	// whose memo holds the first run's commits).
	runs++
	base := map[string]string{"a.md": "a\n", "d/b.md": "b\n", "run": fmt.Sprint(runs)}
	history := func(dir string) []string {
		var revs []string
		NewRepo(t, dir, base)
		revs = append(revs, Commit(t, dir, "two", map[string]string{"d/c.md": "c\n"}))
		if err := os.Remove(filepath.Join(dir, "d", "b.md")); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, "a.md"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("a.md", filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		revs = append(revs, Commit(t, dir, "three", nil))
		return revs
	}
	before := memoHits()
	first := history(filepath.Join(t.TempDir(), "one"))
	afterFirst := memoHits()
	dir := filepath.Join(t.TempDir(), "two")
	second := history(dir)
	if got := memoHits() - afterFirst; got != 2 {
		t.Fatalf("the second copy replayed %d commits, want 2 (the first replayed %d)", got, afterFirst-before)
	}
	for i := range first {
		if first[i] != second[i] {
			t.Fatalf("commit %d: %s in the first copy, %s in the second", i, first[i], second[i])
		}
	}
	if st := MustGit(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("status after a replayed commit: %q", st)
	}
	MustGit(t, dir, "fsck", "--strict", "--no-dangling")
	if got := MustGit(t, dir, "log", "--format=%s", "-n", "3"); got != "three\ntwo\ninitial" {
		t.Fatalf("log: %q", got)
	}
	if got := MustGit(t, dir, "ls-tree", "-r", "--format=%(objectmode) %(path)", "HEAD"); got != "100755 a.md\n100644 d/c.md\n120000 link\n100644 run" {
		t.Fatalf("tree: %q", got)
	}
	// git carries on from the replayed state as from its own.
	next := Commit(t, dir, "four", map[string]string{"e.md": "e\n"})
	if got := MustGit(t, dir, "rev-parse", "HEAD~1"); got != second[1] {
		t.Fatalf("HEAD~1 after the next commit is %s, want %s", got, second[1])
	}
	// Another message, or other content, is another commit.
	other := filepath.Join(t.TempDir(), "three")
	NewRepo(t, other, base)
	hits := memoHits()
	if got := Commit(t, other, "two, said otherwise", map[string]string{"d/c.md": "c\n"}); got == first[0] {
		t.Fatal("another message gave the same commit")
	}
	if got := Commit(t, other, "four", map[string]string{"e.md": "e\n"}); got == next {
		t.Fatal("another history gave the same commit")
	}
	if memoHits() != hits {
		t.Fatal("a commit from another state was replayed")
	}
}

// TestCommitWithHooksNotReplayed: a repository with a hook commits with
// git every time, so the hook runs every time.
func TestCommitWithHooksNotReplayed(t *testing.T) {
	if !Available() {
		t.Skip("git not installed")
	}
	ran := filepath.Join(t.TempDir(), "ran")
	for i := range 2 {
		dir := filepath.Join(t.TempDir(), "repo")
		NewRepo(t, dir, map[string]string{"a.md": "a\n"})
		hook := filepath.Join(dir, ".git", "hooks", "post-commit")
		if err := os.MkdirAll(filepath.Dir(hook), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(hook, []byte("#!/bin/sh\necho x >> '"+ran+"'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		Commit(t, dir, "hooked", map[string]string{"b.md": "b\n"})
		if b, _ := os.ReadFile(ran); len(b) != 2*(i+1) {
			t.Fatalf("after commit %d the hook ran %d times", i+1, len(b)/2)
		}
	}
}
