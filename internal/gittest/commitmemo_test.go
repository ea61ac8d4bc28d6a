package gittest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestCommitKeyReadsChangedFilesOnly: once the file system's clock has
// moved past a repository's files, the key of its next commit reads none
// of them again (their stamps prove their sums, fileid.Stamp.Proves),
// and a file rewritten at the same size and modification time, in the
// work tree or in .git, is read again and moves the key: that commit is
// not replayed from the other state's.
func TestCommitKeyReadsChangedFilesOnly(t *testing.T) {
	if !Available() {
		t.Skip("git not installed")
	}
	if _, ok := device(mustStat(t, t.TempDir())); !ok {
		t.Skip("no device numbers on this system: every file is read each time")
	}
	files := map[string]string{"a.md": "aaaa\n", "d/b.md": "b\n", "test": t.Name()}
	dir := filepath.Join(t.TempDir(), "repo")
	NewRepo(t, dir, files)
	clockPast(t, dir)
	first, ok := commitKey(dir, "next")
	if !ok {
		t.Fatal("no key")
	}
	reads := commitReads.Load()
	if again, _ := commitKey(dir, "next"); again != first || commitReads.Load() != reads {
		t.Errorf("unchanged repository: key moved %v, %d files read again; want the same, none", again != first, commitReads.Load()-reads)
	}
	// Same size, same mtime: only the ctime says it changed.
	for _, rel := range []string{"a.md", ".git/config"} {
		// Every file kept again with a clock past its last change (the
		// last round wrote one back).
		clockPast(t, dir)
		commitKey(dir, "next")
		p := filepath.Join(dir, filepath.FromSlash(rel))
		fi := mustStat(t, p)
		old, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		changed := []byte(strings.ToUpper(string(old)))
		if string(changed) == string(old) {
			changed = []byte(strings.Repeat("x", len(old)))
		}
		if err := os.WriteFile(p, changed, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		reads = commitReads.Load()
		moved, _ := commitKey(dir, "next")
		if moved == first || commitReads.Load()-reads != 1 {
			t.Errorf("%s rewritten: key moved %v, %d files read; want moved, 1", rel, moved != first, commitReads.Load()-reads)
		}
		if err := os.WriteFile(p, old, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
		if again, _ := commitKey(dir, "next"); again != first {
			t.Errorf("%s written back: the key is not the first one", rel)
		}
	}
}
