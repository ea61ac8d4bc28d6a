package gitengine

import (
	"os"
	"path/filepath"
	"slices"
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
// no warning). (extensions.worktreeConfig, which sparse-checkout sets, is
// unset here: go-git refuses it, see review18e_worktreeconfig.txtar.)
func TestReview18eSparseDirEntryIsNotAFile(t *testing.T) {
	t.Parallel()
	dir := review18eRepo(t)
	gittest.MustGit(t, dir, "sparse-checkout", "init", "--cone", "--sparse-index")
	gittest.MustGit(t, dir, "sparse-checkout", "set", "docs")
	gittest.MustGit(t, dir, "config", "--unset", "extensions.worktreeConfig")
	other := filepath.Join(dir, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	_, names, err := TrackedUnder(dir, other)
	if err != nil {
		t.Skipf("sparse index unread: %v", err)
	}
	if slices.Contains(names, "") {
		t.Fatalf("TrackedUnder(other) = %q: the sparse directory entry \"other/\" is taken for the path itself tracked as a file", names)
	}
}

// core.splitIndex: most entries live in .git/sharedindex.<id>, the index
// file holds the changes and a "link" extension. TrackedUnder reads only
// the index file, so tracked files are missed: a committed dir source is
// then refused as "nothing tracked", or its tracked files held back.
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
	if err != nil {
		t.Fatalf("split index: %v", err)
	}
	if !slices.Equal(names, []string{"g.md", "h.md"}) {
		t.Fatalf("TrackedUnder(docs) with a split index = %q, want [g.md h.md]", names)
	}
}
