package gitengine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// review18e: the git index forms TrackedUnder meets in users' clones.
func review18eRepo(t *testing.T) string {
	t.Helper()
	needGit(t)
	dir := t.TempDir()
	for _, f := range []string{"docs/g.md", "other/x/o.md"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gittest.MustGit(t, dir, "init", "-q", "-b", "main")
	gittest.MustGit(t, dir, "add", "-A")
	gittest.MustGit(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "c")
	return dir
}

// A sparse index (git sparse-checkout --sparse-index) keeps a folder out
// of the cone as one entry "other/" (mode 040000, skip-worktree). That is
// not the folder "other" tracked as a file: TrackedUnder must not give
// [""] for it, which checkShared reads as "a single tracked file, serve
// all" (every untracked file a user puts in other/ is then served, with
// no warning). The extensions.worktreeConfig sparse-checkout sets is kept:
// the index readers do not open the repository with go-git, which refuses it.
func TestReview18eSparseDirEntryIsNotAFile(t *testing.T) {
	t.Parallel()
	dir := review18eRepo(t)
	gittest.MustGit(t, dir, "sparse-checkout", "init", "--cone", "--sparse-index")
	gittest.MustGit(t, dir, "sparse-checkout", "set", "docs")
	other := filepath.Join(dir, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	_, names, err := TrackedUnder(dir, other)
	if err != nil {
		t.Fatalf("sparse index unread: %v", err)
	}
	if slices.Contains(names, "") {
		t.Fatalf("TrackedUnder(other) = %q: the sparse directory entry \"other/\" is taken for the path itself tracked as a file", names)
	}
}

// core.splitIndex: most entries live in .git/sharedindex.<id>, the index
// file holds the changes and a "link" extension. Reading only the index
// file missed tracked files (a committed dir source refused as "nothing
// tracked", or its tracked files held back): review18e made TrackedUnder
// and FileStatus fail closed; left19 reads the shared index too
// (unsplit; TestSplitIndexRead checks it against git ls-files). Once the
// split is undone, every entry is read from the one file.
func TestReview18eSplitIndex(t *testing.T) {
	t.Parallel()
	dir := review18eRepo(t)
	gittest.MustGit(t, dir, "config", "core.splitIndex", "true")
	gittest.MustGit(t, dir, "update-index", "--split-index")
	// One more change, so the split index file itself is not empty.
	if err := os.WriteFile(filepath.Join(dir, "docs", "h.md"), []byte("# h\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.MustGit(t, dir, "add", "docs/h.md")
	_, names, err := TrackedUnder(dir, filepath.Join(dir, "docs"))
	if err != nil || !slices.Equal(names, []string{"g.md", "h.md"}) {
		t.Fatalf("TrackedUnder(docs) with a split index = %q, %v; want [g.md h.md]", names, err)
	}
	if st, err := FileStatus(dir, filepath.Join(dir, "docs", "g.md")); err != nil || !st.Tracked {
		t.Fatalf("FileStatus with a split index: %+v, %v; want tracked", st, err)
	}
	gittest.MustGit(t, dir, "config", "core.splitIndex", "false")
	gittest.MustGit(t, dir, "update-index", "--no-split-index")
	_, names, err = TrackedUnder(dir, filepath.Join(dir, "docs"))
	if err != nil || !slices.Equal(names, []string{"g.md", "h.md"}) {
		t.Fatalf("TrackedUnder(docs) after --no-split-index = %q, %v; want [g.md h.md]", names, err)
	}
}

// extensions.worktreeConfig (git sparse-checkout, git config --worktree)
// makes go-git refuse the repository (go-git issue 1943); git reads it,
// and so do the index readers: in the main work tree, and in a linked
// worktree (a .git file naming .git/worktrees/NAME, whose commondir holds
// the config), whose own index is the one read.
func TestReview18eWorktreeConfig(t *testing.T) {
	t.Parallel()
	dir := review18eRepo(t)
	gittest.MustGit(t, dir, "config", "extensions.worktreeConfig", "true")
	gittest.MustGit(t, dir, "config", "--worktree", "core.sparseCheckout", "false")
	_, names, err := TrackedUnder(dir, filepath.Join(dir, "docs"))
	if err != nil || !slices.Equal(names, []string{"g.md"}) {
		t.Fatalf("TrackedUnder(docs) with extensions.worktreeConfig = %q, %v; want [g.md]", names, err)
	}
	st, err := FileStatus(filepath.Join(dir, "docs"), filepath.Join(dir, "docs", "g.md"))
	if err != nil || !st.Tracked || st.Rel != "docs/g.md" {
		t.Fatalf("FileStatus(docs/g.md) = %+v, %v; want tracked docs/g.md", st, err)
	}
	if got, want := IndexFile(filepath.Join(dir, "docs")), filepath.Join(dir, ".git", "index"); got != want {
		t.Fatalf("IndexFile = %q, want %q", got, want)
	}

	wt := filepath.Join(t.TempDir(), "wt")
	gittest.MustGit(t, dir, "worktree", "add", "-q", "-b", "side", wt)
	if err := os.WriteFile(filepath.Join(wt, "docs", "w.md"), []byte("# w\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.MustGit(t, wt, "add", "docs/w.md")
	st, names, err = TrackedUnder(wt, filepath.Join(wt, "docs"))
	if err != nil || !slices.Equal(names, []string{"g.md", "w.md"}) {
		t.Fatalf("TrackedUnder(worktree docs) = %q, %v; want [g.md w.md] (the linked worktree's own index)", names, err)
	}
	if real, _ := filepath.EvalSymlinks(wt); st.Root != wt && st.Root != real {
		t.Fatalf("TrackedUnder(worktree docs) root %q, want %q", st.Root, wt)
	}
	if _, names, _ := TrackedUnder(dir, filepath.Join(dir, "docs")); slices.Contains(names, "w.md") {
		t.Fatalf("the main work tree's index has the linked worktree's w.md: %q", names)
	}
	if got := IndexFile(wt); filepath.Base(got) != "index" || !strings.Contains(filepath.ToSlash(got), "/worktrees/wt/") {
		t.Fatalf("IndexFile(linked worktree) = %q, want .git/worktrees/wt/index", got)
	}
}

// A ".git" file that names no git directory: a clear error, not "not in a
// repository" (which would read as "nothing to check").
func TestReview18eBadDotGitFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".git"), []byte("nonsense\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := TrackedUnder(dir, dir); err == nil || !strings.Contains(err.Error(), "gitdir:") {
		t.Fatalf("TrackedUnder under a bad .git file: %v, want an error naming the gitdir: line", err)
	}
}

// A ".git" file naming a git directory that is gone (a worktree removed
// under it): an error, not "nothing tracked" (FileStatus would then call
// a committed context.local.json the user's own).
func TestReview18eGoneGitDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: /nonexistent/fixE18a/worktrees/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := FileStatus(dir, filepath.Join(dir, "f.md")); err == nil || st.Tracked {
		t.Fatalf("FileStatus under a .git file naming a missing git directory = %+v, %v; want an error", st, err)
	}
	if got := IndexFile(dir); got != "" {
		t.Fatalf("IndexFile = %q, want \"\"", got)
	}
}
