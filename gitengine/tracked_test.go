package gitengine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// FileStatus tells a tracked file (even one a .gitignore lists: `git add
// -f`) from an untracked one, and an ignored untracked one from one the
// next `git add -A` would take; outside a repository it is all false.
func TestFileStatus(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	ctxDir := filepath.Join(proj, ".context")
	if err := os.MkdirAll(ctxDir, 0o755); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(ctxDir, "context.local.json")
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(local, "{}")
	write(filepath.Join(ctxDir, "other.json"), "{}")

	// Not a repository.
	if st, err := FileStatus(proj, local); err != nil || st != (TrackStatus{}) {
		t.Fatalf("outside a repository: %+v %v", st, err)
	}

	gittest.MustGit(t, dir, "init", "-q", "-b", "main")
	// In a repository, not tracked, nothing ignores it.
	if st, err := FileStatus(proj, local); err != nil || st != (TrackStatus{InRepository: true}) {
		t.Fatalf("untracked, not ignored: %+v %v", st, err)
	}
	// Ignored by .context/.gitignore (the project's own, below the
	// repository's root), as ctx init writes it.
	write(filepath.Join(ctxDir, ".gitignore"), "# ctx\n/context.local.json\n")
	if st, err := FileStatus(proj, local); err != nil || st != (TrackStatus{InRepository: true, Ignored: true}) {
		t.Fatalf("untracked, ignored: %+v %v", st, err)
	}
	if st, err := FileStatus(proj, filepath.Join(ctxDir, "other.json")); err != nil || st.Ignored {
		t.Fatalf("a file the pattern does not name: %+v %v", st, err)
	}
	// Ignored by the root's .gitignore instead.
	write(filepath.Join(ctxDir, ".gitignore"), "")
	write(filepath.Join(dir, ".gitignore"), "context.local.json\n")
	if st, err := FileStatus(proj, local); err != nil || !st.Ignored {
		t.Fatalf("ignored by the root's .gitignore: %+v %v", st, err)
	}
	// Force-added and committed: tracked, whatever the ignore files say.
	gittest.MustGit(t, dir, "add", "-A")
	gittest.MustGit(t, dir, "add", "-f", "proj/.context/context.local.json")
	gittest.MustGit(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "c")
	st, err := FileStatus(proj, local)
	if err != nil || !st.Tracked || !st.InRepository {
		t.Fatalf("tracked: %+v %v", st, err)
	}
	// `git rm --cached`: untracked again.
	gittest.MustGit(t, dir, "rm", "-q", "--cached", "proj/.context/context.local.json")
	if st, err := FileStatus(proj, local); err != nil || st.Tracked {
		t.Fatalf("after git rm --cached: %+v %v", st, err)
	}
}
