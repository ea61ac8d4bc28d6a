package main

import (
	"os"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// The scripts' fixture commits (git-commit) and revisions (git-rev) are
// made in this process (gittest.CommitInProcess, gittest.RevInProcess),
// left to git where they might differ (errNotInProcess).

// errNotInProcess says a commit or a revision is git's to make.
var errNotInProcess = gittest.ErrNotInProcess

// scriptGitExec (CTX_SCRIPT_GIT=1 in the test's environment) makes
// git-commit and git-rev run git as before, and serve-git answer every
// request with git (no Memo): every script passes both
// ways.
var scriptGitExec = os.Getenv("CTX_SCRIPT_GIT") == "1"
