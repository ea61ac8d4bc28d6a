package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/rogpeppe/go-internal/testscript"
)

// git-init, git-clone-bare and git-push make the scripts' fixture repositories in
// this process (git processes saved: ~25 ms of CPU for an init, ~60 for a
// clone, ~100 for a push and the receive-pack and unpack-objects behind
// it; ~85 of them in a run of the scripts):
//
//	git-init DIR BRANCH
//	    `git -C DIR init -q -b BRANCH`: a copy of what `git init` wrote
//	    once in this process (the same files, git's own), with HEAD on
//	    BRANCH.
//	git-clone-bare SRC DST
//	    `git clone -q --bare SRC DST` of a local work tree: SRC's objects,
//	    its branches and tags, HEAD on the same branch, git init's files
//	    and the config git writes for a bare clone.
//
//	git-push SRC DST BRANCH
//	    `git -C SRC push -q DST BRANCH` of a work tree's branch to a local
//	    bare repository: the objects DST lacks, then its branch.
//
// Whatever is not that plain case (DIR already a repository, a SRC with
// packed refs or a detached HEAD, DST not new, a push that is not a
// fast-forward or into a repository with hooks) runs git, as
// CTX_SCRIPT_GIT=1 does for all of them.
func fixtureScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"git-init":       cmdGitInit,
		"git-clone-bare": cmdGitCloneBare,
		"git-push":       cmdGitPush,
	}
}

func cmdGitInit(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "git-init")
	if len(args) != 2 {
		ts.Fatalf("usage: git-init DIR BRANCH")
	}
	if !scriptGitExec {
		err := initInProcess(ts.MkAbs(args[0]), args[1])
		if !errors.Is(err, errNotInProcess) {
			ts.Check(err)
			return
		}
	}
	scriptGit(ts, args[0], "init", "-q", "-b", args[1])
}

func cmdGitPush(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "git-push")
	if len(args) != 3 {
		ts.Fatalf("usage: git-push SRC DST BRANCH")
	}
	if !scriptGitExec {
		err := gittest.PushInProcess(ts.MkAbs(args[0]), ts.MkAbs(args[1]), args[2])
		if !errors.Is(err, errNotInProcess) {
			ts.Check(err)
			return
		}
	}
	scriptGit(ts, args[0], "push", "-q", ts.MkAbs(args[1]), args[2])
}

func cmdGitCloneBare(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "git-clone-bare")
	if len(args) != 2 {
		ts.Fatalf("usage: git-clone-bare SRC DST")
	}
	if !scriptGitExec {
		err := cloneBareInProcess(ts.MkAbs(args[0]), ts.MkAbs(args[1]))
		if !errors.Is(err, errNotInProcess) {
			ts.Check(err)
			return
		}
	}
	scriptGit(ts, ".", "clone", "-q", "--bare", args[0], args[1])
}

// initTemplate is the .git folder `git init` wrote once in this process,
// in the scripts' environment (made on first use).
var initTemplate struct {
	once sync.Once
	dir  string
	err  error
}

func gitInitTemplate() (string, error) {
	initTemplate.once.Do(func() {
		// Under the test binary's temporary folder (testtmp), removed
		// with it. gittest's environment reads no user or system config,
		// as the scripts' (an empty HOME) does not.
		dir, err := os.MkdirTemp("", "ctx-git-init-template-")
		if err == nil {
			_, err = gittest.Git(dir, "init", "-q", "-b", "template")
		}
		initTemplate.dir, initTemplate.err = filepath.Join(dir, ".git"), err
	})
	return initTemplate.dir, initTemplate.err
}

// initInProcess is `git init -q -b branch` in the existing folder dir
// that is not a repository yet.
func initInProcess(dir, branch string) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || branch == "" || strings.ContainsAny(branch, " \t\n~^:?*[\\") {
		return errNotInProcess // git says what is wrong
	}
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
		return errNotInProcess // a re-init
	}
	tmpl, err := gitInitTemplate()
	if err != nil {
		return err
	}
	gitDir := filepath.Join(dir, ".git")
	if err := copyTree(tmpl, gitDir); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(gitDir, "HEAD"), []byte("ref: refs/heads/"+branch+"\n"), 0o644)
}

// cloneBareInProcess is `git clone -q --bare src dst` of the work tree
// src (its .git a folder, HEAD on a branch, no packed refs) into a new
// dst.
func cloneBareInProcess(src, dst string) error {
	srcGit := filepath.Join(src, ".git")
	if fi, err := os.Lstat(srcGit); err != nil || !fi.IsDir() {
		return errNotInProcess
	}
	if _, err := os.Lstat(filepath.Join(srcGit, "packed-refs")); err == nil {
		return errNotInProcess
	}
	if _, err := os.Lstat(dst); err == nil {
		return errNotInProcess
	}
	head, err := os.ReadFile(filepath.Join(srcGit, "HEAD"))
	if err != nil || !strings.HasPrefix(string(head), "ref: refs/heads/") {
		return errNotInProcess
	}
	tmpl, err := gitInitTemplate()
	if err != nil {
		return err
	}
	for _, sub := range []string{"branches", "description", "hooks", "info"} {
		if err := copyTree(filepath.Join(tmpl, sub), filepath.Join(dst, sub)); err != nil {
			return err
		}
	}
	for _, sub := range []string{"objects", "refs/heads", "refs/tags"} {
		if err := copyTree(filepath.Join(srcGit, sub), filepath.Join(dst, sub)); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dst, "HEAD"), head, 0o644); err != nil {
		return err
	}
	cfg := fmt.Sprintf("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n[remote \"origin\"]\n\turl = %s\n", src)
	return os.WriteFile(filepath.Join(dst, "config"), []byte(cfg), 0o644)
}

// copyTree copies the files and folders under from into to (made), with
// their permission bits; a missing from is an empty folder.
func copyTree(from, to string) error {
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		target := filepath.Join(to, rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, fi.Mode().Perm()|0o700)
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(target, b, fi.Mode().Perm())
		default:
			return fmt.Errorf("%s: not a file or folder", p)
		}
	})
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Lstat(from); errors.Is(serr, fs.ErrNotExist) {
			return os.MkdirAll(to, 0o755)
		}
	}
	return err
}
