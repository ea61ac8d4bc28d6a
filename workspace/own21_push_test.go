package workspace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/project"
)

// TestOwn21PushRedirectToAnotherPort (round 20's leftover): push's guard
// compared sources by RepoKey, which leaves scheme and port out, so a
// teammate's commit pointing the manifest and the lock at the same host
// and path on another port (another server: on a shared machine, another
// user's) passed as the same repository, and the user's edits went
// there. The guard now compares where a push sends (naming.EndpointKey).
func TestOwn21PushRedirectToAnotherPort(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var urls []string
	var roots []string
	for _, name := range []string{"mine", "theirs"} {
		root := filepath.Join(f.tmp, name)
		gittest.MustGit(t, f.tmp, "clone", "-q", "--bare", f.upstream, filepath.Join(root, "docs.git"))
		srv, err := gittest.Serve(root, gittest.ServeOptions{ReceivePack: true})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		urls, roots = append(urls, srv.URL+"/docs.git"), append(roots, root)
	}
	upstream, other := urls[0], urls[1]
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Alias: "guides", Source: upstream, Path: "guides"}}, AddOptions{}))
	// The user reads another package from the other server too (so its
	// origin is allowed on the private network, as a public host needs
	// no allowance).
	f.must(w.Add(bg, []project.PackageSpec{{Alias: "more", Source: other, Path: "guides"}}, AddOptions{}))
	w.Close()
	pkg := filepath.Join(f.project, project.DirName, project.PackagesDir, "guides")
	writeFile(t, filepath.Join(pkg, "x.md"), "# X\n\nmy private edit\n")
	for _, name := range []string{project.ManifestName, project.LockName} {
		p := filepath.Join(f.project, project.DirName, name)
		b := []byte(readFile(t, p))
		b = bytes.Replace(b, []byte(strconv.Quote(upstream)), []byte(strconv.Quote(other)), 1)
		writeFile(t, p, string(b))
	}
	w2, err := Open(f.project, f.opts())
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
	_, err = w2.Push(bg, "guides", PushOptions{})
	if branches := gittest.MustGit(t, filepath.Join(roots[1], "docs.git"), "branch", "--list", "ctx/*"); strings.TrimSpace(branches) != "" {
		t.Errorf("the edits went to %s, another port's server (branch %s)", other, strings.TrimSpace(branches))
	}
	var re *RedirectedError
	if !errors.As(err, &re) {
		t.Fatalf("push: %v; want a RedirectedError", err)
	}
	// The user's word, in another spelling of the same place.
	if _, err := w2.Push(bg, "guides", PushOptions{To: strings.TrimSuffix(other, ".git") + "/"}); err != nil {
		t.Fatalf("push --to %s: %v", other, err)
	}
}
