package project

import (
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// left19 item 4: go-git refuses a repository with
// extensions.worktreeConfig (go-git#1943; `git sparse-checkout` and `git
// config --worktree` set it), which git reads: unsharedRef then took every
// ref of it as shared (and, failing closed, would refuse every one). It
// now reads the refs of such a repository.
func TestCommittedGitSourceWorktreeConfig(t *testing.T) {
	root, _ := trackedRepo(t)
	gittest.MustGit(t, root, "config", "core.repositoryformatversion", "1")
	gittest.MustGit(t, root, "config", "extensions.worktreeConfig", "true")
	gittest.MustGit(t, root, "config", "--worktree", "core.sparseCheckout", "false")
	p, err := At(root)
	if err != nil {
		t.Fatal(err)
	}
	for ref, shared := range map[string]bool{"main": true, "v1": true, "wip": false} {
		_, err := p.CheckSource(&Manifest{}, PackageSpec{Alias: "own", Kind: KindGit, Source: ".", Path: "docs", Ref: ref})
		if (err == nil) != shared {
			t.Errorf("ref %s: %v; want shared %v", ref, err, shared)
		}
		if !shared && (err == nil || !strings.Contains(err.Error(), "which no remote has")) {
			t.Errorf("ref %s: %v; want the unpushed branch's reason", ref, err)
		}
	}
}
