package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// TestInstallLockHashMismatch (red17 finding 8): a lock entry whose hash
// is not the installed files' (the state records it) is not "unchanged":
// install, --frozen and --force install the locked revision again, which
// fails with the clear "hash to … but the lock says …" message, the
// installed files kept; verify says the lock is what differs, and update
// (the advice) locks the files' hash.
func TestInstallLockHashMismatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides", Alias: "g"}}, AddOptions{}))
	lockPath := filepath.Join(f.project, project.DirName, project.LockName)
	good := readFile(t, lockPath)
	right := readLock(t, f.project).Packages["g"].Hash
	wrong := "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	writeFile(t, lockPath, strings.Replace(good, right, wrong, 1))
	w.Close()
	for _, o := range []InstallOptions{{}, {Frozen: true}, {Force: true}} {
		w := f.open(f.project)
		r, err := w.Install(bg, o)
		w.Close()
		if err != nil || !strings.Contains(reportText(r), "hash to "+right+", but the lock says "+wrong) || actions(r) != "g:failed" {
			t.Errorf("install %+v with a lock hash the files do not have: %v; report %s", o, err, reportText(r))
		}
		if _, err := os.Stat(filepath.Join(w.pkgDir("g"), "other.md")); err != nil {
			t.Errorf("install %+v: the installed files went: %v", o, err)
		}
		if got := readLock(t, f.project).Packages["g"].Hash; got != wrong {
			t.Errorf("install %+v rewrote the lock's hash to %s", o, got)
		}
	}
	// verify: the files are as installed at the locked revision, the
	// lock's hash is what differs; not so once a file is edited.
	w = f.open(f.project)
	vr, err := w.Verify()
	if err != nil || len(vr) != 1 || vr[0].OK || !vr[0].LockHash || vr[0].Got != right {
		t.Fatalf("verify = %+v, %v; want a mismatch with LockHash", vr, err)
	}
	writeFile(t, filepath.Join(w.pkgDir("g"), "other.md"), "# Edited\n")
	if vr, err = w.Verify(); err != nil || vr[0].OK || vr[0].LockHash {
		t.Fatalf("verify after an edit = %+v, %v; want a mismatch without LockHash", vr, err)
	}
	writeFile(t, filepath.Join(w.pkgDir("g"), "other.md"), upstreamFiles["guides/other.md"])
	w.Close()
	writeFile(t, lockPath, good)
	w = f.open(f.project)
	r := f.must(w.Install(bg, InstallOptions{Frozen: true}))
	if got := actions(r); got != "g:unchanged" {
		t.Fatalf("install with the right lock = %s", got)
	}

	// update, which the install's error advises, locks the files' hash
	// (not the same error again); then every install is unchanged.
	w.Close()
	writeFile(t, lockPath, strings.Replace(good, right, wrong, 1))
	w = f.open(f.project)
	f.must(w.Update(bg, []string{"g"}, UpdateOptions{}))
	if got := readLock(t, f.project).Packages["g"].Hash; got != right {
		t.Fatalf("update left the lock's hash at %s; want %s", got, right)
	}
	if r := f.must(w.Install(bg, InstallOptions{Frozen: true})); actions(r) != "g:unchanged" {
		t.Fatalf("install after update = %s", actions(r))
	}
}

// reportText is every failed package's error in r.
func reportText(r *Report) string {
	if r == nil {
		return ""
	}
	var s []string
	for _, p := range r.Packages {
		if p.Err != nil {
			s = append(s, p.Alias+": "+p.Err.Error())
		}
	}
	return strings.Join(s, "; ")
}
