package gittest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// A fixture's commit (Commit; cmd/ctx's scripts' git-commit) and a
// revision (git-rev) are made in this process with go-git instead of
// three git processes (add, commit, rev-parse: ~70 ms of CPU together).
// They are the same objects git makes (TestInProcessCommitIsGits checks
// it against git on a tree with every kind of entry): the same tree,
// author, committer, dates and message, so the same commit id. A
// repository go-git might not commit as git does (hooks, submodules, a
// .git that is not a folder, patterns in .git/info/exclude, attributes,
// config that changes what git stages, a message git would clean up, a
// date that is not RFC 3339, nothing to commit) is left to git
// (ErrNotInProcess).

// CommitInProcess stages everything in the work tree at dir (git add -A)
// and commits it with msg, as `git commit -q -m msg` with env's identity
// and dates would; it returns the new commit id.
func CommitInProcess(dir, msg string, env func(string) string) (string, error) {
	if msg == "" || strings.TrimSpace(msg) != msg || strings.ContainsAny(msg, "\r\n") {
		return "", ErrNotInProcess
	}
	if !plainRepo(dir) {
		return "", ErrNotInProcess
	}
	author, err := signature(env, "AUTHOR")
	if err != nil {
		return "", err
	}
	committer, err := signature(env, "COMMITTER")
	if err != nil {
		return "", err
	}
	r, err := git.PlainOpen(dir)
	if err != nil {
		return "", ErrNotInProcess
	}
	w, err := r.Worktree()
	if err != nil {
		return "", ErrNotInProcess
	}
	// What go-git refuses (a name with a control character, say) or
	// fails at (nothing to commit) is git's to do or to refuse, with its
	// own words: go-git writes the index and the branch last, so a failed
	// add or commit leaves at most objects git would write too.
	if err := w.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		return "", ErrNotInProcess
	}
	// No CommitOptions.All: the add above staged every change, and All
	// walks the work tree again (a second Status of every file).
	h, err := w.Commit(msg+"\n", &git.CommitOptions{Author: author, Committer: committer})
	if err != nil {
		return "", ErrNotInProcess
	}
	return h.String(), nil
}

// plainRepo reports whether dir is a work tree whose .git is a folder,
// with no hooks (hasHooks: they could act outside .git), no submodules
// and no config go-git reads otherwise than git (includes among them):
// one whose commit go-git makes as git does.
func plainRepo(dir string) bool {
	gitDir := filepath.Join(dir, ".git")
	if fi, err := os.Lstat(gitDir); err != nil || !fi.IsDir() {
		return false
	}
	if _, err := os.Lstat(filepath.Join(dir, ".gitmodules")); err == nil {
		return false
	}
	if hasHooks(gitDir) {
		return false
	}
	cfg, err := os.ReadFile(filepath.Join(gitDir, "config"))
	if err != nil {
		return false
	}
	cfg = bytes.ToLower(cfg)
	for _, k := range []string{"hookspath", "autocrlf", "eol", "filemode = false", "symlinks = false", "ignorecase = true", "excludesfile", "attributesfile", "[include"} {
		if bytes.Contains(cfg, []byte(k)) {
			return false
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, ".gitattributes")); err == nil {
		return false
	}
	// go-git's add does not read .git/info/exclude (git init's has only
	// comments).
	exclude, _ := os.ReadFile(filepath.Join(gitDir, "info", "exclude"))
	for _, line := range strings.Split(string(exclude), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			return false
		}
	}
	return true
}

// signature is the GIT_<who>_NAME, _EMAIL and _DATE of env as git reads
// them; ErrNotInProcess when one is missing or the date is not RFC 3339.
func signature(env func(string) string, who string) (*object.Signature, error) {
	name, email, date := env("GIT_"+who+"_NAME"), env("GIT_"+who+"_EMAIL"), env("GIT_"+who+"_DATE")
	if name == "" || email == "" || date == "" {
		return nil, ErrNotInProcess
	}
	when, err := time.Parse(time.RFC3339, date)
	if err != nil {
		return nil, ErrNotInProcess
	}
	return &object.Signature{Name: name, Email: email, When: when}, nil
}

// RevInProcess is `git rev-parse --verify REV^{commit}` in dir for a
// revision go-git resolves; ErrNotInProcess otherwise.
func RevInProcess(dir, rev string) (string, error) {
	if !plainRepo(dir) {
		return "", ErrNotInProcess
	}
	r, err := git.PlainOpen(dir)
	if err != nil {
		return "", ErrNotInProcess
	}
	h, err := r.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return "", ErrNotInProcess
	}
	c, err := r.CommitObject(*h)
	if err != nil {
		return "", ErrNotInProcess
	}
	return c.Hash.String(), nil
}
