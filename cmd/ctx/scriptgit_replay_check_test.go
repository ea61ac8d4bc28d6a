package main

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// TestScriptServerReplaysSameStateOnly: serve-git's server answers a
// repeated fetch request from what git answered, and asks git again once
// the repository has changed; two clones through it get the same commit;
// every request is counted.
func TestScriptServerReplaysSameStateOnly(t *testing.T) {
	if !gittest.Available() || scriptGitExec {
		t.Skip("no git, or CTX_SCRIPT_GIT=1")
	}
	base := t.TempDir()
	work := filepath.Join(base, "work")
	v1 := gittest.NewRepo(t, work, map[string]string{"a.md": "# a\n"})
	srv := filepath.Join(base, "srv")
	gittest.MustGit(t, base, "clone", "-q", "--bare", work, filepath.Join(srv, "docs.git"))
	s, err := serveScriptGit(srv, gittest.ServeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	refs := func() string {
		t.Helper()
		resp, err := http.Get(s.URL + "/docs.git/info/refs?service=git-upload-pack")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("info/refs: %d, %v", resp.StatusCode, err)
		}
		return string(b)
	}
	first := refs()
	if !strings.Contains(first, v1) || s.replays.Load() != 0 {
		t.Fatalf("first advertisement: replays %d, want 0; names %s: %v", s.replays.Load(), v1, strings.Contains(first, v1))
	}
	if again := refs(); again != first || s.replays.Load() != 1 {
		t.Fatalf("the same request again: replays %d, want 1; same answer: %v", s.replays.Load(), again == first)
	}

	// Two clones (advertisement, upload-pack): the second is replayed.
	for i, dir := range []string{"c1", "c2"} {
		gittest.MustGit(t, base, "clone", "-q", s.URL+"/docs.git", dir)
		if got := gittest.MustGit(t, filepath.Join(base, dir), "rev-parse", "HEAD"); got != v1 {
			t.Fatalf("clone %d: HEAD %s, want %s", i+1, got, v1)
		}
	}
	if n := s.replays.Load(); n < 3 {
		t.Errorf("after two clones: %d replays, want the second clone's requests replayed (>= 3)", n)
	}

	// The repository changes: git answers, with the new commit.
	v2 := gittest.Commit(t, work, "v2", map[string]string{"b.md": "# b\n"})
	gittest.MustGit(t, work, "push", "-q", filepath.Join(srv, "docs.git"), "master")
	before := s.replays.Load()
	after := refs()
	if s.replays.Load() != before || !strings.Contains(after, v2) {
		t.Fatalf("after a push: replays %d → %d (want no replay); names %s: %v", before, s.replays.Load(), v2, strings.Contains(after, v2))
	}
	gittest.MustGit(t, filepath.Join(base, "c1"), "pull", "-q", "--ff-only")
	if got := gittest.MustGit(t, filepath.Join(base, "c1"), "rev-parse", "HEAD"); got != v2 {
		t.Fatalf("pull after the push: HEAD %s, want %s", got, v2)
	}
	if n := s.Requests(); n < 8 {
		t.Errorf("requests counted: %d, want every one (>= 8)", n)
	}
}
