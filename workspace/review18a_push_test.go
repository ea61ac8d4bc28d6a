package workspace

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/project"
)

// TestReview18aPushAfterLockFormEdit (review18a): a lock whose git source
// differs from the manifest's only in form ("…/" for "…"; a merge, a
// teammate's edit) makes push refuse, rightly, and say "run `ctx install`
// first". A package push has work for always has local edits, and install
// then skipped it for those edits ("send them upstream (`ctx push
// ALIAS`)…"): each command sent the user to the other. The commit is the
// same, so are the files: install relocks the entry to the manifest's
// source without touching them, and the push that follows goes there.
func TestReview18aPushAfterLockFormEdit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
	w.Close()
	lockPath := filepath.Join(f.project, project.DirName, project.LockName)
	lock := []byte(readFile(t, lockPath))
	if !bytes.Contains(lock, []byte(strconv.Quote(f.upstream))) {
		t.Fatalf("the lock does not name %s:\n%s", f.upstream, lock)
	}
	writeFile(t, lockPath, string(bytes.Replace(lock, []byte(strconv.Quote(f.upstream)), []byte(strconv.Quote(f.upstream+"/")), 1)))
	pkg := filepath.Join(f.project, project.DirName, project.PackagesDir, "guides")
	writeFile(t, filepath.Join(pkg, "x.md"), "# X\n\nmy edit\n")

	w2 := f.open(f.project)
	_, err := w2.Push(bg, "guides", PushOptions{})
	if err == nil || !strings.Contains(err.Error(), "ctx install") {
		t.Fatalf("push with a lock that differs from the manifest: %v; want a refusal saying to run ctx install", err)
	}
	if _, err := w2.Install(bg, InstallOptions{}); err != nil {
		t.Logf("install: %v", err)
	}
	w2.Close()
	if got := readFile(t, filepath.Join(pkg, "x.md")); got != "# X\n\nmy edit\n" {
		t.Fatalf("install changed the user's edit: %q", got)
	}
	w3 := f.open(f.project)
	defer w3.Close()
	res, err := w3.Push(bg, "guides", PushOptions{})
	if err != nil {
		t.Fatalf("push after the install push asked for: %v", err)
	}
	if branches := gittest.MustGit(t, f.upstream, "branch", "--list", "ctx/*"); !strings.Contains(branches, res.Branch) {
		t.Errorf("branch %s is not on the manifest's source %s (%q)", res.Branch, f.upstream, branches)
	}
}
