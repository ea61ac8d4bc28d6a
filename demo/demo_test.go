package demo

import (
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5"
)

func TestWriteIsDeterministicAndValid(t *testing.T) {
	t.Parallel()
	a, err := Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Commits) != 3 {
		t.Fatalf("repositories %v, want 3", a.Commits)
	}
	for name, c := range a.Commits {
		if b.Commits[name] != c {
			t.Errorf("%s: commit %s then %s: the demo must be reproducible", name, c, b.Commits[name])
		}
		repo, err := git.PlainOpen(a.Repos[name])
		if err != nil {
			t.Fatal(err)
		}
		head, err := repo.Head()
		if err != nil || head.Name().String() != "refs/heads/main" || head.Hash().String() != c {
			t.Errorf("%s: HEAD %v, %v", name, head, err)
		}
		st, err := mustWorktree(t, repo).Status()
		if err != nil || !st.IsClean() {
			t.Errorf("%s: worktree not clean: %v %v", name, st, err)
		}
	}
	// That the registry loads is registry's TestDemoRegistryLoads (a
	// test here would link the registry and the git engine behind it).
	if _, err := Write(filepath.Dir(a.Dir)); err == nil {
		t.Error("writing over an existing hub should fail")
	}
}

func mustWorktree(t *testing.T, r *git.Repository) *git.Worktree {
	t.Helper()
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	return wt
}
