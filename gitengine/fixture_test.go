package gitengine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// fixture is a source repository, a bare copy under root served to clients,
// and the commits made in it.
type fixture struct {
	t      *testing.T
	src    string // work tree
	root   string // holds repo.git
	bare   string
	c1, c2 string // c1: initial (tagged v1), c2: tip of master
}

func needGit(t *testing.T) {
	t.Helper()
	if !gittest.Available() {
		t.Skip("git not installed")
	}
}

// isolate returns hermetic Options for a test, in a fresh HOME: a cache,
// an ssh folder with nothing in it, no token, no agent, and `git
// credential` run with no user or system config and no prompts. It sets no
// environment variable, so the tests that use it can run in parallel.
func isolate(t *testing.T) (Options, string) {
	t.Helper()
	home := t.TempDir()
	return Options{
		CacheDir:      filepath.Join(home, "cache"),
		SSHDir:        filepath.Join(home, ".ssh"),
		CredentialEnv: gittest.Env(home),
	}, home
}

// fixtures holds the one fixture newFixture builds with git; every test
// gets its own copy of it (see gittest.Cache).
var fixtures gittest.Cache[[2]string]

func newFixture(t *testing.T) *fixture {
	t.Helper()
	needGit(t)
	tmp := t.TempDir()
	f := &fixture{t: t, src: filepath.Join(tmp, "src"), root: filepath.Join(tmp, "root")}
	f.bare = filepath.Join(f.root, "repo.git")
	c := fixtures.Dir(t, "fixture", tmp, func(tmp string) [2]string { return buildFixture(t, tmp) })
	f.c1, f.c2 = c[0], c[1]
	return f
}

// buildFixture makes the fixture's source (tmp/src) and its bare copy
// (tmp/root/repo.git), and returns the two commits.
func buildFixture(t *testing.T, tmp string) [2]string {
	t.Helper()
	src, bare := filepath.Join(tmp, "src"), filepath.Join(tmp, "root", "repo.git")
	files := map[string]string{
		"README.md":                    "# repo\n",
		"docs/guides/deep/a.md":        "# A\n\nalpha\n",
		"docs/guides/deep/sub/b.md":    "# B\n\nbeta\n",
		"docs/guides/deep/run.sh":      "#!/bin/sh\necho hi\n",
		"docs/guides/other.md":         "other\n",
		"src/main.go":                  "package main\n",
		"docs/guides/deep/sub/c/d.txt": "deep\n",
	}
	// Bulk outside the sub-path, so whole-snapshot fetches are visibly larger.
	for i := 0; i < 60; i++ {
		files[filepath.ToSlash(filepath.Join("bulk", string(rune('a'+i%26)), strings.Repeat("x", 1+i/26)+".txt"))] = strings.Repeat("bulk line for a larger snapshot\n", 40+i)
	}
	gittest.NewRepo(t, src, files)
	if err := os.Chmod(filepath.Join(src, "docs/guides/deep/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.md", filepath.Join(src, "docs/guides/deep/link.md")); err != nil {
		t.Fatal(err)
	}
	gittest.MustGit(t, src, "add", "-A")
	gittest.MustGit(t, src, "commit", "-q", "--amend", "-m", "initial")
	c1 := gittest.MustGit(t, src, "rev-parse", "HEAD")
	gittest.MustGit(t, src, "tag", "-a", "v1", "-m", "version 1")
	gittest.MustGit(t, src, "tag", "light", c1)
	c2 := gittest.Commit(t, src, "second", map[string]string{"docs/guides/deep/a.md": "# A\n\nalpha, revised\n"})
	gittest.MustGit(t, src, "branch", "dev", c1)
	gittest.MustGit(t, tmp, "clone", "-q", "--bare", src, bare)
	return [2]string{c1, c2}
}

// commit makes a new commit in the source and publishes it to the bare
// copy (gittest.Push: in process when it can stand for git push).
func (f *fixture) commit(msg string, files map[string]string) string {
	f.t.Helper()
	c := gittest.Commit(f.t, f.src, msg, files)
	gittest.Push(f.t, f.src, f.bare, "master")
	return c
}

// serve serves the fixture's root. Its fetches are answered from memory
// when native git has answered the same request from the same repository
// bytes before in this process (gittest.ServeOptions.Memo): the tests
// share the fixture, so most of them ask what another already asked.
func (f *fixture) serve(o gittest.ServeOptions) *gittest.Server {
	f.t.Helper()
	o.Memo = true
	s, err := gittest.Serve(f.root, o)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { s.Close() })
	return s
}

// copyBare copies the bare repository to name beside it, under root (as
// cp -r would, in this process: a copy's files are the same bytes).
func (f *fixture) copyBare(name string) {
	f.t.Helper()
	tr, err := gittest.ReadTree(f.bare)
	if err == nil {
		err = tr.WriteAsIs(filepath.Join(f.root, name))
	}
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) git(args ...string) string {
	f.t.Helper()
	return gittest.MustGit(f.t, f.src, args...)
}
