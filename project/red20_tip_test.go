package project

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// TestRed20SharedBranchAheadIsNotShared (round 18's leftover, red20): a
// branch a remote has was shared whatever its local tip, so a committed
// git source naming the project's own repository at that branch installed
// (and locked, and served) the user's unpushed commits on it: the work the
// rule keeps out for a branch no remote has. A branch is shared as far as
// its remote-tracking branch has its tip; behind it is fine (what is
// installed is on the remote).
func TestRed20SharedBranchAheadIsNotShared(t *testing.T) {
	root, head := trackedRepo(t)
	p, err := At(root)
	if err != nil {
		t.Fatal(err)
	}
	check := func(ref string, shared bool) {
		t.Helper()
		s := PackageSpec{Alias: "own", Kind: KindGit, Source: ".", Path: "docs", Ref: ref}
		_, err := p.CheckSource(&Manifest{}, s)
		if got := err == nil; got != shared {
			t.Errorf("ref %q: err = %v; want shared %v", ref, err, shared)
		}
		if !shared && (!errors.Is(err, ErrUntracked) || !strings.Contains(err.Error(), "origin/main")) {
			t.Errorf("ref %q: %v; want ErrUntracked naming the remote-tracking branch", ref, err)
		} else if !shared && testing.Verbose() {
			t.Log(err)
		}
	}
	gittest.MustGit(t, root, "add", "docs/new.md")
	gittest.MustGit(t, root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "unpushed")
	check("main", false)
	check("refs/heads/main", false)
	check("", false) // HEAD is on main
	check("origin/main", true)
	check(head, true)
	// Pushed: shared again.
	tip := strings.TrimSpace(gittest.MustGit(t, root, "rev-parse", "HEAD"))
	gittest.MustGit(t, root, "update-ref", "refs/remotes/origin/main", tip)
	check("main", true)
	// Behind the remote: what is installed is on the remote.
	gittest.MustGit(t, root, "reset", "-q", "--hard", head)
	check("main", true)
}
