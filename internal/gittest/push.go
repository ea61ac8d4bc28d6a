package gittest

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// ErrNotInProcess says a fixture's git step is git's to make: the
// in-process copy could not stand for it (PushInProcess; cmd/ctx's
// scripts' other in-process git steps).
var ErrNotInProcess = errors.New("not in process")

// Push is `git -C src push -q dst branch` of the work tree src's branch
// to the bare repository dst: PushInProcess when it can stand for the
// push, else git push. A push starts five processes (push, a shell,
// receive-pack, pack-objects, unpack-objects or index-pack); on this
// project's test machines they cost more than the copy.
func Push(t TB, src, dst, branch string) {
	t.Helper()
	err := PushInProcess(src, dst, branch)
	if errors.Is(err, ErrNotInProcess) {
		MustGit(t, src, "push", "-q", dst, branch)
		return
	}
	if err != nil {
		t.Fatalf("gittest: push %s from %s to %s: %v", branch, src, dst, err)
	}
}

// PushInProcess is `git -C src push -q dst branch` of the work tree src's
// branch to the bare repository dst when it is a fast-forward (or a new
// branch): src's object files dst lacks are copied (loose objects and
// packs: git never changes one once written), then dst's branch is set.
// ErrNotInProcess, and nothing changed, for what git would do otherwise or
// what the copy does not cover: a push git would refuse (not a
// fast-forward), a hook either side would run (or a hooksPath setting),
// a src that borrows objects (alternates) or is shallow.
func PushInProcess(src, dst, branch string) error {
	srcGit := filepath.Join(src, ".git")
	if fi, err := os.Lstat(srcGit); err != nil || !fi.IsDir() || hasHooks(srcGit) {
		return ErrNotInProcess
	}
	for _, p := range []string{filepath.Join(srcGit, "objects", "info", "alternates"), filepath.Join(srcGit, "shallow")} {
		if _, err := os.Lstat(p); err == nil {
			return ErrNotInProcess
		}
	}
	if fi, err := os.Stat(filepath.Join(dst, "objects")); err != nil || !fi.IsDir() || hasHooks(dst) {
		return ErrNotInProcess
	}
	from, err := git.PlainOpen(src)
	if err != nil {
		return ErrNotInProcess
	}
	name := plumbing.NewBranchReferenceName(branch)
	ref, err := from.Reference(name, true)
	if err != nil {
		return ErrNotInProcess
	}
	next, err := from.CommitObject(ref.Hash())
	if err != nil {
		return ErrNotInProcess
	}
	to, err := git.PlainOpen(dst)
	if err != nil {
		return ErrNotInProcess
	}
	if old, err := to.Reference(name, true); err == nil {
		if old.Hash() == next.Hash {
			return nil // everything up to date
		}
		prev, err := from.CommitObject(old.Hash())
		if err != nil {
			return ErrNotInProcess
		}
		if ok, err := prev.IsAncestor(next); err != nil || !ok {
			return ErrNotInProcess // git rejects it (non-fast-forward)
		}
	} else if !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return ErrNotInProcess
	}
	err = filepath.WalkDir(filepath.Join(srcGit, "objects"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join(srcGit, "objects"), p)
		if d.IsDir() {
			if rel == "info" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, "objects", rel), 0o755)
		}
		target := filepath.Join(dst, "objects", rel)
		if _, err := os.Lstat(target); err == nil {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o444)
	})
	if err != nil {
		return err
	}
	refFile := filepath.Join(dst, filepath.FromSlash(name.String()))
	if err := os.MkdirAll(filepath.Dir(refFile), 0o755); err != nil {
		return err
	}
	return os.WriteFile(refFile, []byte(next.Hash.String()+"\n"), 0o644)
}

// hasHooks reports whether the git folder gitDir has a hook git would run
// (a hooks file but git's inactive *.sample ones) or a hooksPath setting.
func hasHooks(gitDir string) bool {
	hooks, _ := os.ReadDir(filepath.Join(gitDir, "hooks"))
	for _, h := range hooks {
		if !strings.HasSuffix(h.Name(), ".sample") {
			return true
		}
	}
	cfg, err := os.ReadFile(filepath.Join(gitDir, "config"))
	return err != nil || bytes.Contains(bytes.ToLower(cfg), []byte("hookspath"))
}
