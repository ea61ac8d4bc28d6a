package gitengine

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// review19b: git writes an EWAH bitmap whose leading zeros are a run
// (ewah_set on an empty bitmap: one run-length word, then one literal),
// so a bitmap of 2 words may say 300 bits. A split index of a repository
// of a few hundred files where one entry past the 128th was changed or
// removed was refused as "a malformed bitmap".
func TestSplitIndexBitmapPastItsWords(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("docs/f%03d.md", i)] = fmt.Sprintf("# %d\n", i)
	}
	gittest.NewRepo(t, dir, files)
	gittest.MustGit(t, dir, "config", "core.splitIndex", "true")
	gittest.MustGit(t, dir, "update-index", "--split-index")
	gittest.WriteFiles(t, dir, map[string]string{"docs/f250.md": "# changed\n"})
	gittest.MustGit(t, dir, "add", "-A")
	gittest.MustGit(t, dir, "rm", "-q", "docs/f280.md")
	if m, _ := filepath.Glob(filepath.Join(dir, ".git", "sharedindex.*")); len(m) == 0 {
		t.Fatal("git wrote no shared index")
	}
	want := strings.Fields(gittest.MustGit(t, dir, "ls-files", "docs"))
	for i := range want {
		want[i] = strings.TrimPrefix(want[i], "docs/")
	}
	_, names, err := TrackedUnder(dir, filepath.Join(dir, "docs"))
	if err != nil || !slices.Equal(names, want) {
		t.Fatalf("TrackedUnder(docs) = %d names, %v; want the %d of git ls-files", len(names), err, len(want))
	}
}
