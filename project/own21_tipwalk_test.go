package project

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// The shared-branch check reads at most maxTipWalk commits below the
// remote-tracking branch for the local tip. A branch further behind its
// remote than that is refused (fail closed), but the refusal said its tip
// "has commits no remote has", which is false: it now says the walk
// stopped at its bound, and what to do (own21, round 20's leftover).
func TestOwn21TipWalkBoundSaid(t *testing.T) {
	root, head := trackedRepo(t)
	for i := range 5 {
		gittest.WriteFiles(t, root, map[string]string{"docs/a.md": "# A\n" + strings.Repeat("x", i+1) + "\n"})
		gittest.MustGit(t, root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-am", "more")
	}
	tip := strings.TrimSpace(gittest.MustGit(t, root, "rev-parse", "HEAD"))
	gittest.MustGit(t, root, "update-ref", "refs/remotes/origin/main", tip)
	gittest.MustGit(t, root, "reset", "-q", "--hard", head) // main 5 behind origin/main
	p, err := At(root)
	if err != nil {
		t.Fatal(err)
	}
	s := PackageSpec{Alias: "own", Kind: KindGit, Source: ".", Path: "docs", Ref: "main"}
	if _, err := p.CheckSource(&Manifest{}, s); err != nil {
		t.Fatalf("5 behind, the bound 10,000: %v; want shared", err)
	}
	old := maxTipWalk
	maxTipWalk = 3
	defer func() { maxTipWalk = old }()
	_, err = p.CheckSource(&Manifest{}, s)
	if !errors.Is(err, ErrUntracked) || !strings.Contains(err.Error(), "did not reach within 3 commits below origin/main") || strings.Contains(err.Error(), "whose tip has commits no remote has") {
		t.Errorf("5 behind, the bound 3: %v; want a refusal that names the bound", err)
	}
}
