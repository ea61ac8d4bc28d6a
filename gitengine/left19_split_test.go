package gitengine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// left19 item 5: a split index (core.splitIndex) was refused with its fix;
// it is now read: the shared index's names, less those its delete bitmap
// drops, and the names the split index adds. Checked against `git
// ls-files` after files are added, changed and removed over a split, in
// a linked worktree too (its sharedindex files are its own git
// directory's), for index versions 2 and 4.
func TestSplitIndexRead(t *testing.T) {
	t.Parallel()
	needGit(t)
	for _, version := range []string{"2", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			files := map[string]string{}
			for i := range 40 {
				files[fmt.Sprintf("docs/f%02d.md", i)] = fmt.Sprintf("# %d\n", i)
			}
			files["other/o.md"] = "# o\n"
			gittest.NewRepo(t, dir, files)
			gittest.MustGit(t, dir, "config", "core.splitIndex", "true")
			gittest.MustGit(t, dir, "config", "index.version", version)
			gittest.MustGit(t, dir, "update-index", "--index-version", version)
			gittest.MustGit(t, dir, "update-index", "--split-index")
			// Over the split: a change (a replaced entry), removals (the
			// delete bitmap) and additions.
			gittest.WriteFiles(t, dir, map[string]string{"docs/f03.md": "# changed\n", "docs/new1.md": "# n\n", "docs/zz/new2.md": "# n\n", "a-first.md": "# a\n"})
			gittest.MustGit(t, dir, "add", "-A")
			gittest.MustGit(t, dir, "rm", "-q", "docs/f07.md", "docs/f20.md")
			if m, _ := filepath.Glob(filepath.Join(dir, ".git", "sharedindex.*")); len(m) == 0 {
				t.Fatal("git wrote no shared index: the test does not test a split index")
			}
			check := func(dir string) {
				t.Helper()
				want := strings.Fields(gittest.MustGit(t, dir, "ls-files", "docs"))
				for i := range want {
					want[i] = strings.TrimPrefix(want[i], "docs/")
				}
				_, names, err := TrackedUnder(dir, filepath.Join(dir, "docs"))
				if err != nil || !slices.Equal(names, want) {
					t.Fatalf("TrackedUnder(docs) with a split index = %q, %v;\nwant %q", names, err, want)
				}
				for f, tracked := range map[string]bool{"docs/f03.md": true, "docs/f07.md": false, "docs/zz/new2.md": true, "other/o.md": true, "a-first.md": true} {
					st, err := FileStatus(dir, filepath.Join(dir, filepath.FromSlash(f)))
					if err != nil || st.Tracked != tracked {
						t.Errorf("FileStatus(%s) = %+v, %v; want tracked %v", f, st, err, tracked)
					}
				}
			}
			check(dir)
			linked := filepath.Join(t.TempDir(), "linked")
			gittest.MustGit(t, dir, "commit", "-q", "-m", "over the split")
			gittest.MustGit(t, dir, "worktree", "add", "-q", "-b", "side", linked)
			gittest.WriteFiles(t, linked, map[string]string{"docs/only-linked.md": "# l\n"})
			gittest.MustGit(t, linked, "add", "-A")
			gittest.MustGit(t, linked, "rm", "-q", "docs/f11.md")
			check(linked)
		})
	}
}

// A split index whose shared index is gone is an error naming it, not
// "nothing tracked".
func TestSplitIndexSharedMissing(t *testing.T) {
	t.Parallel()
	dir := review18eRepo(t)
	gittest.MustGit(t, dir, "config", "core.splitIndex", "true")
	gittest.MustGit(t, dir, "update-index", "--split-index")
	m, _ := filepath.Glob(filepath.Join(dir, ".git", "sharedindex.*"))
	for _, p := range m {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	if _, names, err := TrackedUnder(dir, filepath.Join(dir, "docs")); err == nil || !strings.Contains(err.Error(), "sharedindex.") {
		t.Fatalf("TrackedUnder with the shared index gone = %q, %v; want an error naming it", names, err)
	}
}
