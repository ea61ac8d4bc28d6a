package gittest

import (
	"bytes"

	"io/fs"
	"os"
	"path/filepath"
)

// Publish makes the bare repository bare hold commit as its branch, as
// `git push -q bare branch` from the work tree src would after src
// committed it on top of what bare holds: it copies the object files src
// has that bare lacks (loose objects and packs: git never changes one once
// written) and points bare's branch at commit. It starts no process, where
// a push starts five (push, receive-pack, pack-objects, index-pack or
// unpack-objects, and a shell); on this project's test machines a process
// costs more than the copy.
//
// It is a fixture's push, not git's: it makes no check that the update is
// a fast-forward (a fixture's history is its own), and it runs git push
// instead when the copy could not stand for one: src borrows objects
// (alternates) or is shallow, or bare has a hook a push would run.
func Publish(t TB, src, bare, branch, commit string) {
	t.Helper()
	if !canPublish(src, bare) {
		MustGit(t, src, "push", "-q", bare, branch)
		return
	}
	from, to := filepath.Join(src, ".git", "objects"), filepath.Join(bare, "objects")
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if filepath.Dir(rel) == "info" {
			return nil // alternates (checked) and the dumb protocol's lists
		}
		dst := filepath.Join(to, rel)
		if _, err := os.Lstat(dst); err == nil {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o444)
	})
	if err == nil {
		ref := filepath.Join(bare, "refs", "heads", filepath.FromSlash(branch))
		if err = os.MkdirAll(filepath.Dir(ref), 0o755); err == nil {
			err = os.WriteFile(ref, []byte(commit+"\n"), 0o644)
		}
	}
	if err != nil {
		t.Fatalf("gittest: publish %s to %s: %v", commit, bare, err)
	}
}

// canPublish reports whether Publish's copy stands for a push from src to
// bare: src holds all its objects itself and is not shallow, and bare has
// no hook (a hooks folder of git's inactive *.sample files only) and no
// hooksPath setting.
func canPublish(src, bare string) bool {
	gitDir := filepath.Join(src, ".git")
	if fi, err := os.Lstat(gitDir); err != nil || !fi.IsDir() {
		return false
	}
	for _, p := range []string{filepath.Join(gitDir, "objects", "info", "alternates"), filepath.Join(gitDir, "shallow")} {
		if _, err := os.Lstat(p); err == nil {
			return false
		}
	}
	if fi, err := os.Stat(filepath.Join(bare, "objects")); err != nil || !fi.IsDir() {
		return false
	}
	hooks, _ := os.ReadDir(filepath.Join(bare, "hooks"))
	for _, h := range hooks {
		if filepath.Ext(h.Name()) != ".sample" {
			return false
		}
	}
	cfg, err := os.ReadFile(filepath.Join(bare, "config"))
	return err == nil && !bytes.Contains(bytes.ToLower(cfg), []byte("hookspath"))
}
