// Package gittest builds and serves real git repositories for tests: a fixed
// git environment (identity, dates, no user or system config) and a smart-HTTP
// server on 127.0.0.1 backed by `git http-backend`.
//
// It needs the git binary; tests that use it should call Available and skip
// when git is missing.
package gittest

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Fixed identity and date used for every commit made through Env, so commit
// ids are stable across runs and machines.
const (
	Name  = "ctx test"
	Email = "test@ctx.invalid"
	Date  = "2026-01-01T00:00:00Z"
)

// Available reports whether a git binary is on PATH.
func Available() bool {
	_, err := exec.LookPath("git")
	return err == nil
}

// Env returns the environment for running git in tests: os.Environ() without
// any inherited GIT_* variable, plus HOME=home (and XDG_CONFIG_HOME under it),
// GIT_CONFIG_NOSYSTEM=1, a fixed author and committer (Name, Email, Date),
// GIT_TERMINAL_PROMPT=0, and command-line config (GIT_CONFIG_COUNT) setting
// init.defaultBranch=master and protocol.file.allow=always so `git init` and
// `git submodule add` behave the same everywhere, and maintenance.auto=false
// so a commit or a push does not start `git maintenance` after it.
func Env(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "GIT_"), k == "HOME", k == "XDG_CONFIG_HOME":
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME="+Name,
		"GIT_AUTHOR_EMAIL="+Email,
		"GIT_AUTHOR_DATE="+Date,
		"GIT_COMMITTER_NAME="+Name,
		"GIT_COMMITTER_EMAIL="+Email,
		"GIT_COMMITTER_DATE="+Date,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_CONFIG_COUNT=4",
		"GIT_CONFIG_KEY_0=init.defaultBranch",
		"GIT_CONFIG_VALUE_0=master",
		"GIT_CONFIG_KEY_1=protocol.file.allow",
		"GIT_CONFIG_VALUE_1=always",
		"GIT_CONFIG_KEY_2=advice.detachedHead",
		"GIT_CONFIG_VALUE_2=false",
		"GIT_CONFIG_KEY_3=maintenance.auto",
		"GIT_CONFIG_VALUE_3=false",
	)
}

// noHome is a HOME that does not exist, so git reads no user config.
func noHome() string { return filepath.Join(os.TempDir(), "gittest-no-home") }

// Git runs git in dir with Env (HOME pointing at a directory that does not
// exist, so no user config is read) and returns its trimmed stdout, or an
// error that includes the command and its stderr.
func Git(dir string, args ...string) (string, error) {
	return GitInput(dir, nil, args...)
}

// GitInput is Git with stdin (for `git mktree`, `git hash-object --stdin`).
func GitInput(dir string, stdin []byte, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = Env(noHome())
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s (in %s): %w: %s", strings.Join(args, " "), dir, err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// TB is the part of testing.TB the helpers below use.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// MustGit runs Git and fails the test on error.
func MustGit(t TB, dir string, args ...string) string {
	t.Helper()
	out, err := Git(dir, args...)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return out
}

// WriteFiles writes files (slash-separated path → content) under dir,
// creating parent directories.
func WriteFiles(t TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatalf("%v", err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatalf("%v", err)
		}
	}
}

// repos keeps each repository NewRepo has made in this process, keyed by
// its files, so making the same one again is a copy, not five git runs. It
// is a memo: the same files always make the same repository (Env fixes the
// identity and the dates), so what it holds never changes a result.
var repos Cache[string]

// NewRepo creates a non-bare repository at dir (branch master) with files
// committed in one commit, and returns the commit id. The first repository
// made from a set of files is made with git init and commitAll; later ones
// with the same files (up to 1 MiB, into a new or empty dir) are copies of
// it.
func NewRepo(t TB, dir string, files map[string]string) string {
	t.Helper()
	build := func(dir string) string {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatalf("%v", err)
		}
		// No template: the sample hooks and info/exclude are files every
		// copy of the fixture would write again, and no test uses them.
		MustGit(t, dir, "init", "-q", "--template=", "-b", "master")
		WriteFiles(t, dir, files)
		return commitAll(t, dir, "initial", "commit", "-q", "-m", "initial")
	}
	key, ok := filesKey(files)
	if ents, err := os.ReadDir(dir); !ok || err == nil && len(ents) > 0 {
		return build(dir) // too big to keep, or dir holds more than the repository
	}
	return repos.Dir(t, key, dir, build)
}

// filesKey names a set of files: a hash of every name and content, in
// name order, each with its length, so no two sets share a key. It reports
// false for sets too large to keep in memory (over 1 MiB in all).
func filesKey(files map[string]string) (string, bool) {
	names := make([]string, 0, len(files))
	size := 0
	for n, c := range files {
		names = append(names, n)
		size += len(c)
	}
	if size > 1<<20 {
		return "", false
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%d:%s%d:%s", len(n), n, len(files[n]), files[n])
	}
	return string(h.Sum(nil)), true
}

// commitAll stages everything in the work tree at dir and commits it with
// msg, in this process when CommitInProcess makes the commit git would,
// else with git add -A and git's commitArgs; it returns the commit id.
func commitAll(t TB, dir, msg string, commitArgs ...string) string {
	t.Helper()
	rev, err := CommitInProcess(dir, msg, identity)
	if err == nil {
		return rev
	}
	if !errors.Is(err, ErrNotInProcess) {
		t.Fatalf("gittest: commit %q in %s: %v", msg, dir, err)
	}
	MustGit(t, dir, "add", "-A")
	MustGit(t, dir, commitArgs...)
	return MustGit(t, dir, "rev-parse", "HEAD")
}

// identity looks up a variable of Env: the fixed author and committer.
var identity = func() func(string) string {
	vars := map[string]string{}
	for _, kv := range Env(noHome()) {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "GIT_") {
			vars[k] = v
		}
	}
	return func(k string) string { return vars[k] }
}()

// Commit writes files into the work tree of the repository at dir, commits
// everything with message msg (git add -A, git commit --allow-empty), and
// returns the new commit id. The first commit from a given state of a
// repository is made in process when CommitInProcess can (commitAll), else
// with git; the same commit from the same state again (another copy of the
// fixture, in another test) is a copy of what was written to .git
// (commitMemo), when the repository has no hooks or submodules.
func Commit(t TB, dir, msg string, files map[string]string) string {
	t.Helper()
	WriteFiles(t, dir, files)
	key, ok := commitKey(dir, msg)
	if ok {
		if r := commits.get(key); r != nil {
			if err := r.replay(dir); err != nil {
				t.Fatalf("gittest: commit %q in %s: %v", msg, dir, err)
			}
			return r.rev
		}
	}
	rev := commitAll(t, dir, msg, "commit", "-q", "--allow-empty", "-m", msg)
	if ok {
		if tr, err := ReadTree(filepath.Join(dir, ".git")); err == nil {
			commits.put(key, newCommitResult(tr, rev))
		}
	}
	return rev
}
