package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/gittest"
)

// A second check of ctx's records in one process reads git's index again
// only when git rewrote it: an install checks in the workspace and again
// when its index sync starts, and each read was the whole index. A
// `git add -f` of a state file between two checks is still refused.
func TestRecordsCheckReadsGitIndexOncePerStamp(t *testing.T) {
	root, _ := trackedRepo(t)
	if err := os.MkdirAll(filepath.Join(root, DirName, StateDir), 0o755); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(root, DirName, StateDir, "a.json")
	if err := os.WriteFile(state, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	reads := 0
	trackedUnder = func(dir, path string) (gitengine.TrackStatus, []string, error) {
		reads++
		return gitengine.TrackedUnder(dir, path)
	}
	t.Cleanup(func() { trackedUnder = gitengine.TrackedUnder })
	p, err := At(root)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := p.CheckRecordsUntracked(StateDir, IndexDir, TmpDir); err != nil {
			t.Fatalf("check %d: %v", i, err)
		}
	}
	if reads != 1 {
		t.Fatalf("git's index read %d times for 3 checks with it unchanged, want 1", reads)
	}
	gittest.MustGit(t, root, "add", "-f", filepath.Join(DirName, StateDir, "a.json"))
	err = p.CheckRecordsUntracked(StateDir)
	if err == nil || !strings.Contains(err.Error(), "git tracks files under") {
		t.Fatalf("after git add -f of a state file: %v, want the refusal", err)
	}
	if reads != 2 {
		t.Fatalf("git's index read %d times, want 2 (again once git rewrote it)", reads)
	}
}
