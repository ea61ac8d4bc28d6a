package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// TestInProcessInitIsGits: git-init's copy is what `git init -q -b
// BRANCH` writes, file for file.
func TestInProcessInitIsGits(t *testing.T) {
	t.Parallel()
	if !gittest.Available() {
		t.Skip("no git")
	}
	base := t.TempDir()
	ours, theirs := filepath.Join(base, "ours"), filepath.Join(base, "theirs")
	for _, d := range []string{ours, theirs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := initInProcess(ours, "main"); err != nil {
		t.Fatal(err)
	}
	gittest.MustGit(t, theirs, "init", "-q", "-b", "main")
	sameTree(t, filepath.Join(ours, ".git"), filepath.Join(theirs, ".git"))
	if err := initInProcess(ours, "main"); err != errNotInProcess {
		t.Errorf("init of a repository: %v, want errNotInProcess (git's)", err)
	}
	if err := initInProcess(filepath.Join(base, "missing"), "main"); err != errNotInProcess {
		t.Errorf("init of a missing folder: %v, want errNotInProcess (git's error)", err)
	}
}

// TestInProcessCloneBareIsGits: git-clone-bare's repository is the one
// `git clone -q --bare` makes: the same refs (branches, a lightweight and
// an annotated tag), HEAD, config, objects, git init's files; fsck clean.
func TestInProcessCloneBareIsGits(t *testing.T) {
	t.Parallel()
	if !gittest.Available() {
		t.Skip("no git")
	}
	base := t.TempDir()
	src := filepath.Join(base, "src")
	gittest.NewRepo(t, src, map[string]string{"a.md": "# a\n"})
	gittest.MustGit(t, src, "tag", "light")
	gittest.MustGit(t, src, "tag", "-a", "-m", "annotated", "v1")
	gittest.MustGit(t, src, "checkout", "-q", "-b", "other")
	gittest.Commit(t, src, "other", map[string]string{"b.md": "# b\n"})
	gittest.MustGit(t, src, "checkout", "-q", "master")
	ours, theirs := filepath.Join(base, "ours.git"), filepath.Join(base, "theirs.git")
	if err := cloneBareInProcess(src, ours); err != nil {
		t.Fatal(err)
	}
	gittest.MustGit(t, base, "clone", "-q", "--bare", src, theirs)
	for _, args := range [][]string{
		{"for-each-ref", "--format=%(objectname) %(objecttype) %(refname) %(*objectname)"},
		{"symbolic-ref", "HEAD"},
		{"config", "--local", "--list"},
		{"cat-file", "--batch-all-objects", "--batch-check"},
		{"fsck", "--full", "--strict"},
	} {
		o, th := gittest.MustGit(t, ours, args...), gittest.MustGit(t, theirs, args...)
		if o != th {
			t.Errorf("git %v:\nin process:\n%s\ngit clone:\n%s", args, o, th)
		}
	}
	for _, sub := range []string{"hooks", "info", "description", "branches"} {
		sameTree(t, filepath.Join(ours, sub), filepath.Join(theirs, sub))
	}
	if err := cloneBareInProcess(src, ours); err != errNotInProcess {
		t.Errorf("clone into an existing folder: %v, want errNotInProcess (git's error)", err)
	}
	gittest.MustGit(t, src, "pack-refs", "--all")
	if err := cloneBareInProcess(src, filepath.Join(base, "packed.git")); err != errNotInProcess {
		t.Errorf("clone of packed refs: %v, want errNotInProcess", err)
	}
}

// sameTree fails t unless the folders hold the same names, bytes and modes.
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	read := func(root string) map[string]string {
		m := map[string]string{}
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			v := fi.Mode().String()
			if fi.Mode().IsRegular() {
				c, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				v += " " + string(c)
			}
			m[rel] = v
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	ma, mb := read(a), read(b)
	for k, v := range mb {
		if ma[k] != v {
			t.Errorf("%s: %s has %.60q, %s has %.60q", k, a, ma[k], b, v)
		}
	}
	for k := range ma {
		if _, ok := mb[k]; !ok {
			t.Errorf("%s: in %s only", k, a)
		}
	}
}
