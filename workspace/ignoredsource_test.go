package workspace

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/project"
)

// TestAddIgnoredDirSourceIsLocal (red17 finding 6): a dir source the
// project's .gitignore ignores is the user's own (a clone never has it):
// `ctx add` records it in context.local.json, never in the committed
// manifest, whose copy of it a clone's install would refuse. (track18:
// in a git project, of which git tracks nothing.)
func TestAddIgnoredDirSourceIsLocal(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	gittest.MustGit(t, f.project, "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(f.project, ".gitignore"), "notes/\n")
	writeFile(t, filepath.Join(f.project, "notes", "n.md"), "# N\n\nmynotes\n")
	w := f.open(f.project)
	r := f.must(w.Add(bg, []project.PackageSpec{{Source: "./notes", Kind: project.KindDir, Alias: "notes"}}, AddOptions{}))
	if got := actions(r); got != "notes:linked" {
		t.Fatalf("add = %s", got)
	}
	if !strings.Contains(f.log.String(), "\"notes\" is ignored by git (a clone never has it): recorded as your own source in .context/context.local.json") {
		t.Fatalf("no note for an ignored source; log:\n%s", f.log)
	}
	if committed := readFile(t, filepath.Join(f.project, project.DirName, project.ManifestName)); strings.Contains(committed, "notes") {
		t.Fatalf("the committed manifest names the ignored source:\n%s", committed)
	}
	if local := readFile(t, filepath.Join(f.project, project.DirName, project.LocalName)); !strings.Contains(local, "notes") {
		t.Fatalf("context.local.json:\n%s", local)
	}
}
