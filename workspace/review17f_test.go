package workspace

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// TestReview17fLockHashSpecChanged: upToDate's second branch (no exact
// target: the manifest's spec differs from the lock's, here its ref, at
// the same commit) compares the lock's hash with the installed state's
// too. No other test reaches that clause (dropping it passes every
// workspace test): with it gone, a lock whose hash was edited stays
// edited through an install that calls the package unchanged.
func TestReview17fLockHashSpecChanged(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.git("tag", "v1")
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides", Alias: "g"}}, AddOptions{}))
	w.Close()
	lockPath := filepath.Join(f.project, project.DirName, project.LockName)
	right := readLock(t, f.project).Packages["g"].Hash
	wrong := "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	writeFile(t, lockPath, strings.Replace(readFile(t, lockPath), right, wrong, 1))
	manPath := filepath.Join(f.project, project.DirName, project.ManifestName)
	man := readFile(t, manPath)
	edited := strings.Replace(man, `"path": "guides"`, `"path": "guides", "ref": "v1"`, 1)
	if edited == man {
		t.Fatalf("manifest has no path field to extend:\n%s", man)
	}
	writeFile(t, manPath, edited)
	w = f.open(f.project)
	defer w.Close()
	r, err := w.Install(bg, InstallOptions{})
	if err != nil {
		t.Fatalf("install: %v (%s)", err, reportText(r))
	}
	l := readLock(t, f.project)
	if got := l.Packages["g"]; got.Ref != "v1" || got.Hash != right {
		t.Errorf("after install with ref v1 (same commit): lock ref %q hash %s (%s); want v1 and %s", got.Ref, got.Hash, actions(r), right)
	}
}
