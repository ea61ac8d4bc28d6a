package workspace

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/project"
)

// rv20Redirect adds guides from docs.git and points
// the manifest alone at evil.git, which holds one more commit than
// docs.git (a teammate's commit: the next install relocks from evil.git).
func rv20Redirect(t *testing.T) (f *fixture, root, upstream, evil, pkg string, srv *gittest.Server) {
	t.Helper()
	f = newFixture(t)
	root = filepath.Join(f.tmp, "srv")
	for _, name := range []string{"docs.git", "evil.git"} {
		gittest.MustGit(t, f.tmp, "clone", "-q", "--bare", f.upstream, filepath.Join(root, name))
	}
	// evil.git moves on: the lock's revision no longer names its tip.
	work := filepath.Join(f.tmp, "evilwork")
	gittest.MustGit(t, f.tmp, "clone", "-q", filepath.Join(root, "evil.git"), work)
	writeFile(t, filepath.Join(work, "guides", "new.md"), "# New\n")
	gittest.MustGit(t, work, "add", ".")
	gittest.MustGit(t, work, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "more")
	gittest.MustGit(t, work, "push", "-q", "origin", "HEAD")
	var err error
	srv, err = gittest.Serve(root, gittest.ServeOptions{ReceivePack: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	upstream, evil = srv.URL+"/docs.git", srv.URL+"/evil.git"
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Alias: "guides", Source: upstream, Path: "guides"}}, AddOptions{}))
	w.Close()
	pkg = filepath.Join(f.project, project.DirName, project.PackagesDir, "guides")
	for _, name := range []string{project.ManifestName, project.LockName} {
		p := filepath.Join(f.project, project.DirName, name)
		b := []byte(readFile(t, p))
		writeFile(t, p, string(bytes.ReplaceAll(b, []byte(strconv.Quote(upstream)), []byte(strconv.Quote(evil)))))
	}
	return f, root, upstream, evil, pkg, srv
}

// TestRV20PushAfterRedirectAndNewRevision (review of red20): red20 made
// push refuse a source other than the one the files came from, but the
// state's record of that source is rewritten by every install. A
// teammate's commit that points the manifest and the lock at another
// repository and moves the revision too (or a later lock bump) makes the
// next install (the git hook after a pull) fetch from there, and push
// then sent the user's edits there without a word. Where edits go changes
// on the user's word only (ctx add, push --to).
func TestRV20PushAfterRedirectAndNewRevision(t *testing.T) {
	t.Parallel()
	f, root, upstream, evil, pkg, _ := rv20Redirect(t)
	w := f.open(f.project)
	// The redirect plus the next revision: update stands for the relock
	// a teammate commits.
	rep, err := w.Update(bg, []string{"guides"}, UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	for _, r := range rep.Packages {
		t.Logf("update: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(pkg, "new.md")); err != nil {
		t.Fatalf("the update did not install evil.git's revision: %v", err)
	}
	// Later, the user edits the package and pushes.
	writeFile(t, filepath.Join(pkg, "x.md"), "# X\n\nmy private edit\n")
	_, err = w.Push(bg, "guides", PushOptions{})
	if branches := gittest.MustGit(t, filepath.Join(root, "evil.git"), "branch", "--list", "ctx/*"); strings.TrimSpace(branches) != "" {
		t.Errorf("the edits went to %s, which the user never chose (branch %s)", evil, strings.TrimSpace(branches))
	}
	if err == nil || !strings.Contains(err.Error(), upstream) || !strings.Contains(err.Error(), "--to") {
		t.Fatalf("push: err %v; want a refusal naming %s and --to", err, upstream)
	}
	if _, err := w.Push(bg, "guides", PushOptions{To: evil}); err != nil {
		t.Fatalf("push --to %s: %v", evil, err)
	}
	// The user's word holds through the next install.
	if _, err := w.Install(bg, InstallOptions{Force: true}); err != nil {
		t.Fatalf("install: %v", err)
	}
	writeFile(t, filepath.Join(pkg, "x.md"), "# X\n\nsecond edit\n")
	if _, err := w.Push(bg, "guides", PushOptions{}); err != nil {
		t.Errorf("push after push --to and an install: %v", err)
	}
}

// TestRV20PushToSpelling (review of red20): the refusal tells the user
// to run `ctx push ALIAS --to SOURCE` with SOURCE redacted (user info
// shown as ***@), and push compared --to with the manifest's spelling
// byte for byte, so for an ssh://git@host or a token URL the command
// the error gives was refused forever ("names neither"). --to names a
// repository (naming.RepoKey), as the check it answers does. And a --to
// that names another repository than the manifest's is refused even
// when the package was not redirected (it was ignored: the push went to
// the manifest's source).
func TestRV20PushToSpelling(t *testing.T) {
	t.Parallel()
	f, _, _, evil, pkg, srv := rv20Redirect(t)
	writeFile(t, filepath.Join(pkg, "x.md"), "# X\n\nmy private edit\n")
	w := f.open(f.project)
	if _, err := w.Install(bg, InstallOptions{}); err != nil {
		t.Logf("install: %v", err)
	}
	// The redacted spelling the error shows, and another spelling (.git
	// dropped, a trailing slash): the same repository.
	redacted := strings.Replace(evil, "://", "://***@", 1)
	if _, err := w.Push(bg, "guides", PushOptions{To: redacted, DryRun: true}); err != nil {
		t.Errorf("push --to %s (the spelling the error gives): %v", redacted, err)
	}
	if _, err := w.Push(bg, "guides", PushOptions{To: strings.TrimSuffix(evil, ".git") + "/", DryRun: true}); err != nil {
		t.Errorf("push --to another spelling of %s: %v", evil, err)
	}
	// Not redirected (its own source): a --to naming another is refused.
	f2 := newFixture(t)
	w2 := f2.open(f2.project)
	f2.must(w2.Add(bg, []project.PackageSpec{{Alias: "guides", Source: srv.URL + "/docs.git", Path: "guides"}}, AddOptions{}))
	writeFile(t, filepath.Join(f2.project, project.DirName, project.PackagesDir, "guides", "x.md"), "# X\n\nedit\n")
	if _, err := w2.Push(bg, "guides", PushOptions{To: evil, DryRun: true}); err == nil {
		t.Errorf("push --to %s of a package whose manifest names %s/docs.git: no error (--to was ignored)", evil, srv.URL)
	}
}
