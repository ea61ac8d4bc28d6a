package workspace

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// review17d: the guard lets an update through when every locally changed
// file is as the target commit has it (holdsTarget, audit17 finding 5).
// A file the user edits again after that check, while ctx update fetches
// (write:stage), must not be overwritten silently: planPatch finds it
// changed ("changed while ctx was updating") and the edit is kept. (This
// passes on fixC17: a regression test, not a defect.)
func TestReview17dEditAfterHoldsTargetKept(t *testing.T) {
	t.Parallel()
	pkg, r, err := editDuringUpdate(t, "x.md", "# X\n\nmine, and a later edit\n")
	got := readFile(t, filepath.Join(pkg, "x.md"))
	if got == "# X\n\nmine, and a later edit\n" {
		return // kept
	}
	var backup string
	if err == nil && len(r.Packages) > 0 {
		backup = r.Packages[0].Backup
	}
	if err != nil && strings.Contains(err.Error(), "changed while") {
		t.Fatalf("x.md = %q after an error that says it changed (%v): the edit is gone anyway", got, err)
	}
	t.Errorf("x.md = %q: the edit made during the update is lost (err %v, backup %q)", got, err, backup)
}

// The same edit to a clean file the update replaces (y.md) is caught:
// "changed while ctx was updating", and the edit is kept. This is the
// contrast to TestReview17dEditAfterHoldsTargetKept.
func TestReview17dEditOfCleanFileCaught(t *testing.T) {
	t.Parallel()
	pkg, _, err := editDuringUpdate(t, "y.md", "# Y\n\na later edit\n")
	if got := readFile(t, filepath.Join(pkg, "y.md")); got != "# Y\n\na later edit\n" {
		t.Errorf("y.md = %q (err %v): the edit is lost", got, err)
	}
	t.Logf("err: %v", err)
}

// editDuringUpdate installs guides (x.md, y.md), edits x.md as upstream
// then has it ("merged upstream"), moves upstream on (y.md changes), and
// runs ctx update, writing content to the package's file name while the
// update fetches (write:stage). It returns the package's folder and the
// update's report and error.
func editDuringUpdate(t *testing.T, name, content string) (string, *Report, error) {
	t.Helper()
	f := newFixture(t)
	f.commit("base", map[string]string{"guides/x.md": "# X\n\nold\n", "guides/y.md": "# Y\n\nold\n"})
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
	pkg := w.pkgDir("guides")
	writeFile(t, filepath.Join(pkg, "x.md"), "# X\n\nmine\n")
	// merged upstream, then upstream moves on
	f.commit("merge and move on", map[string]string{"guides/x.md": "# X\n\nmine\n", "guides/y.md": "# Y\n\nnew\n"})
	edited := false
	w.opts.testHook = func(stage, alias string) error {
		if stage == "write:stage" && !edited {
			edited = true
			writeFile(t, filepath.Join(pkg, name), content)
		}
		return nil
	}
	r, err := w.Update(bg, nil, UpdateOptions{})
	if r != nil {
		t.Logf("%s %s %q %v", r.Packages[0].Action, r.Packages[0].Reason, r.Packages[0].DirtyFiles, r.Packages[0].Err)
	}
	if !edited {
		t.Fatal("the hook never ran at write:stage")
	}
	return pkg, r, err
}
