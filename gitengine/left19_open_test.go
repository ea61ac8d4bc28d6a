package gitengine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
	git "github.com/go-git/go-git/v5"
)

// left19 item 4: go-git refuses a repository with extensions.worktreeConfig
// (go-git#1943), which `git sparse-checkout` and `git config --worktree`
// set and git reads: ReadAtRevision (the project's own history) and a
// local git source (Materialize, ResolveRef) failed on it. PlainOpen, the
// one way ctx opens a user's repository with go-git, reads it, in the
// main work tree, a linked worktree and a bare repository; any other
// extension go-git does not know is still refused, naming it.
func TestPlainOpenWorktreeConfig(t *testing.T) {
	t.Parallel()
	needGit(t)
	tmp := t.TempDir()
	repo := filepath.Join(tmp, "repo")
	commit := gittest.NewRepo(t, repo, map[string]string{"docs/a.md": "# A\n", "README.md": "# R\n"})
	gittest.MustGit(t, repo, "config", "core.repositoryformatversion", "1")
	gittest.MustGit(t, repo, "config", "extensions.worktreeConfig", "true")
	gittest.MustGit(t, repo, "config", "--worktree", "core.sparseCheckout", "false")
	linked := filepath.Join(tmp, "linked")
	gittest.MustGit(t, repo, "worktree", "add", "-q", "-b", "side", linked)
	bare := filepath.Join(tmp, "bare.git")
	gittest.MustGit(t, tmp, "clone", "-q", "--bare", repo, bare)
	gittest.MustGit(t, bare, "config", "core.repositoryformatversion", "1")
	gittest.MustGit(t, bare, "config", "extensions.worktreeConfig", "true")
	if _, err := git.PlainOpenWithOptions(repo, &git.PlainOpenOptions{EnableDotGitCommonDir: true}); err == nil {
		t.Log("go-git now opens a worktreeConfig repository itself: PlainOpen's fallback may go")
	}

	for _, dir := range []string{repo, linked} {
		got, err := ReadAtRevision(filepath.Join(dir, "docs"), filepath.Join(dir, "docs", "a.md"), "HEAD")
		if err != nil || string(got.Data) != "# A\n" {
			t.Errorf("ReadAtRevision in %s: %v, %v", dir, got, err)
		}
	}
	e := New(Options{CacheDir: filepath.Join(tmp, "cache")})
	for i, src := range []string{repo, bare, "file://" + bare} {
		dest := filepath.Join(tmp, "out", string(rune('a'+i)))
		res, err := e.Materialize(context.Background(), FetchRequest{URL: src, Commit: commit, Path: "docs"}, dest)
		if err != nil {
			t.Errorf("Materialize from %s: %v", src, err)
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dest, "a.md")); err != nil || string(b) != "# A\n" || res.Commit != commit {
			t.Errorf("Materialize from %s: %q %v, commit %s", src, b, err, res.Commit)
		}
	}

	gittest.MustGit(t, repo, "config", "extensions.frobnicate", "true")
	_, err := PlainOpen(repo, false)
	if err == nil || !strings.Contains(err.Error(), "frobnicate") || errors.Is(err, git.ErrRepositoryNotExists) {
		t.Errorf("an unknown extension: %v; want an error naming it", err)
	}
	if _, err := PlainOpen(filepath.Join(tmp, "cache"), false); !errors.Is(err, git.ErrRepositoryNotExists) {
		t.Errorf("no repository: %v; want ErrRepositoryNotExists", err)
	}
}
