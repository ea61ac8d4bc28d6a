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

// TestRed20PushAfterRedirect (red20 finding 5): a teammate's commit points
// a git package's manifest entry and its lock entry at another repository
// together (a mirror holding the same commit, so the lock still matches
// the installed files). ctx install (the git hook after a pull) takes it
// without a word, and ctx push then sent the user's local edits to that
// repository: push follows whatever the committed files say, where git's
// remote is never changed by a pull. Edits must go back where the files
// came from; a destination other than the one the package was installed
// from needs the user's word.
func TestRed20PushAfterRedirect(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	root := filepath.Join(f.tmp, "srv")
	for _, name := range []string{"docs.git", "evil.git"} {
		gittest.MustGit(t, f.tmp, "clone", "-q", "--bare", f.upstream, filepath.Join(root, name))
	}
	srv, err := gittest.Serve(root, gittest.ServeOptions{ReceivePack: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var w2 *Workspace
	upstream, evil := srv.URL+"/docs.git", srv.URL+"/evil.git"
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Alias: "guides", Source: upstream, Path: "guides"}}, AddOptions{}))
	w.Close()
	pkg := filepath.Join(f.project, project.DirName, project.PackagesDir, "guides")
	writeFile(t, filepath.Join(pkg, "x.md"), "# X\n\nmy private edit\n")
	// The teammate's commit: both files name the mirror.
	for _, name := range []string{project.ManifestName, project.LockName} {
		p := filepath.Join(f.project, project.DirName, name)
		b := []byte(readFile(t, p))
		if !bytes.Contains(b, []byte(strconv.Quote(upstream))) {
			t.Fatalf("%s does not name %s:\n%s", name, upstream, b)
		}
		writeFile(t, p, string(bytes.ReplaceAll(b, []byte(strconv.Quote(upstream)), []byte(strconv.Quote(evil)))))
	}
	w2, err = Open(f.project, f.opts())
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if _, err := w2.Install(bg, InstallOptions{}); err != nil {
		t.Logf("install: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(pkg, "x.md")); !strings.Contains(string(b), "my private edit") {
		t.Fatalf("install lost the edit: %q", b)
	}
	res, err := w2.Push(bg, "guides", PushOptions{})
	if branches := gittest.MustGit(t, filepath.Join(root, "evil.git"), "branch", "--list", "ctx/*"); strings.TrimSpace(branches) != "" {
		t.Errorf("the edits went to %s, which the package was not installed from (branch %s)", evil, strings.TrimSpace(branches))
	}
	if err == nil {
		t.Fatalf("push succeeded (%+v); want an error naming both repositories", res)
	}
	if !strings.Contains(err.Error(), upstream) || !strings.Contains(err.Error(), evil) || !strings.Contains(err.Error(), "--to") {
		t.Errorf("error %q does not name where the files came from, where the manifest now points, and the way on (--to)", err)
	}
	// --to naming another source is no word for this one (review of
	// red20: the old one is named as such, not as "neither").
	if _, err := w2.Push(bg, "guides", PushOptions{To: upstream}); err == nil || !strings.Contains(err.Error(), "names where its edits went before") {
		t.Errorf("push --to the old source: err %v, want a refusal saying it names where the edits went", err)
	}
	if _, err := w2.Push(bg, "guides", PushOptions{To: upstream + "-other"}); err == nil || !strings.Contains(err.Error(), "names neither") {
		t.Errorf("push --to a third source: err %v, want a refusal", err)
	}
	// The user's word: the push goes to the new source, and the next
	// push needs no --to.
	if _, err := w2.Push(bg, "guides", PushOptions{To: evil}); err != nil {
		t.Fatalf("push --to %s: %v", evil, err)
	}
	if branches := gittest.MustGit(t, filepath.Join(root, "evil.git"), "branch", "--list", "ctx/*"); strings.TrimSpace(branches) == "" {
		t.Errorf("push --to did not push to %s", evil)
	}
	writeFile(t, filepath.Join(pkg, "x.md"), "# X\n\nmy second edit\n")
	if _, err := w2.Push(bg, "guides", PushOptions{}); err != nil {
		t.Errorf("a push after push --to: %v", err)
	}
}

// TestRed20PushAfterOwnSourceChange: a source the user moves with ctx add
// (here: the package added again from another repository, and updated)
// is where its files came from: push needs no --to.
func TestRed20PushAfterOwnSourceChange(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	root := filepath.Join(f.tmp, "srv")
	for _, name := range []string{"docs.git", "moved.git"} {
		gittest.MustGit(t, f.tmp, "clone", "-q", "--bare", f.upstream, filepath.Join(root, name))
	}
	srv, err := gittest.Serve(root, gittest.ServeOptions{ReceivePack: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	w := f.open(f.project)
	defer w.Close()
	f.must(w.Add(bg, []project.PackageSpec{{Alias: "guides", Source: srv.URL + "/docs.git", Path: "guides"}}, AddOptions{}))
	f.must(w.Remove(bg, []string{"guides"}, RemoveOptions{}))
	f.must(w.Add(bg, []project.PackageSpec{{Alias: "guides", Source: srv.URL + "/moved.git", Path: "guides"}}, AddOptions{}))
	writeFile(t, filepath.Join(f.project, project.DirName, project.PackagesDir, "guides", "x.md"), "# X\n\nedit\n")
	if _, err := w.Push(bg, "guides", PushOptions{}); err != nil {
		t.Fatalf("push after the user's own move: %v", err)
	}
}
