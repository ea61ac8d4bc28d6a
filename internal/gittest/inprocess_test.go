package gittest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInProcessCommitIsGits: the in-process commit (Commit's, and
// cmd/ctx's scripts' git-commit) makes the
// commit git makes (the same id, so the same tree, identity, dates and
// message), from a tree with every kind of entry a fixture has (nested
// folders, a name that sorts between a folder and its files, an
// executable, a symlink, an empty file, .gitignore'd files and folders,
// .git/info/exclude), then again after files are changed, added,
// removed, made executable and ignored; RevInProcess's answer is
// rev-parse's.
func TestInProcessCommitIsGits(t *testing.T) {
	t.Parallel()
	if !Available() {
		t.Skip("no git")
	}
	home := t.TempDir()
	env := map[string]string{}
	for _, kv := range Env(home) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	getenv := func(k string) string { return env[k] }
	base := t.TempDir()
	ours, theirs := filepath.Join(base, "ours"), filepath.Join(base, "theirs")
	steps := []struct {
		msg    string
		write  map[string]string // "" removes
		exec   []string
		links  map[string]string
		unexec []string
	}{
		{
			msg: "v1",
			write: map[string]string{
				"README.md": "# r\n", "a.md": "a\n", "a/b.md": "b\n", "a-b/c.md": "c\n", "a/z/deep.md": "d\n",
				"empty.md": "", "run.sh": "#!/bin/sh\n", "crlf.md": "x\r\ny\r\n",
				".gitignore": "*.log\nbuild/\n!keep.log\n", "x.log": "no\n", "keep.log": "yes\n", "build/out.md": "no\n",
				"sub/.gitignore": "local.md\n", "sub/local.md": "no\n", "sub/kept.md": "yes\n",
			},
			exec:  []string{"run.sh"},
			links: map[string]string{"link.md": "a.md", "dangling": "nowhere"},
		},
		{
			msg: "v2 with more words",
			write: map[string]string{
				"a.md": "", "README.md": "# r2\n", "a/new.md": "n\n", "sub/local.md": "still no\n", "new.log": "no\n",
				"docs/guide/intro.md": "# intro\n",
			},
			exec: []string{"a/new.md"},
		},
		{
			msg:   "v3 modes and kinds",
			write: map[string]string{"a/z/deep.md": "", "a/b.md": "", "link.md": "", "x/y/z/w.md": "w\n", "a-b/c.md": "c2\n"},
			exec:  []string{"README.md"},
			links: map[string]string{"a/b.md": "../README.md", "link.md": "a-b/c.md"},
		},
		{
			msg:    "v4 exec bits off, link to file",
			write:  map[string]string{"link.md": "", "dangling": "", "x/y/z/w.md": ""},
			unexec: []string{"run.sh", "README.md"},
		},
		{
			msg:   "v5 link back to file",
			write: map[string]string{"link.md": "now a file\n", "dangling": "also a file\n"},
		},
	}
	for _, dir := range []string{ours, theirs} {
		MustGit(t, base, "init", "-q", "-b", "master", dir)
	}
	for _, st := range steps {
		for _, dir := range []string{ours, theirs} {
			for name, content := range st.write {
				p := filepath.Join(dir, name)
				if content == "" && name != "empty.md" {
					if err := os.Remove(p); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, name := range st.exec {
				if err := os.Chmod(filepath.Join(dir, name), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, name := range st.unexec {
				if err := os.Chmod(filepath.Join(dir, name), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for name, target := range st.links {
				if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
		}
		got, err := CommitInProcess(ours, st.msg, getenv)
		if err != nil {
			t.Fatalf("%s: in process: %v", st.msg, err)
		}
		MustGit(t, theirs, "add", "-A")
		MustGit(t, theirs, "commit", "-q", "-m", st.msg)
		want := MustGit(t, theirs, "rev-parse", "HEAD")
		if got != want {
			t.Errorf("%s: in-process commit %s, git's %s\nours:\n%s\ntheirs:\n%s", st.msg, got, want,
				MustGit(t, ours, "ls-tree", "-r", "HEAD"), MustGit(t, theirs, "ls-tree", "-r", "HEAD"))
		}
		rev, err := RevInProcess(ours, "HEAD")
		if err != nil || rev != want {
			t.Errorf("%s: RevInProcess(HEAD) = %q, %v; want %s", st.msg, rev, err, want)
		}
		// git reads what go-git wrote: its index agrees with the commit.
		if out := MustGit(t, ours, "status", "--porcelain"); out != "" {
			t.Errorf("%s: git status after the in-process commit:\n%s", st.msg, out)
		}
	}
}

// TestInProcessCommitLeavesToGit: what go-git might commit otherwise than
// git is git's: a message git would clean up, a date that is not RFC
// 3339, patterns in .git/info/exclude (go-git's add does not read them), a
// name go-git refuses, a repository with a hook.
func TestInProcessCommitLeavesToGit(t *testing.T) {
	t.Parallel()
	if !Available() {
		t.Skip("no git")
	}
	env := map[string]string{}
	for _, kv := range Env(t.TempDir()) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	dir := t.TempDir()
	MustGit(t, dir, "init", "-q", "-b", "master")
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, msg := range []string{"", " lead", "trail ", "two\nlines"} {
		if _, err := CommitInProcess(dir, msg, func(k string) string { return env[k] }); err != ErrNotInProcess {
			t.Errorf("message %q: %v, want ErrNotInProcess", msg, err)
		}
	}
	rfc := env["GIT_AUTHOR_DATE"]
	env["GIT_AUTHOR_DATE"] = "@1767225600 +0000"
	if _, err := CommitInProcess(dir, "m", func(k string) string { return env[k] }); err != ErrNotInProcess {
		t.Errorf("date %q: %v, want ErrNotInProcess", env["GIT_AUTHOR_DATE"], err)
	}
	env["GIT_AUTHOR_DATE"] = rfc
	exclude := filepath.Join(dir, ".git", "info", "exclude")
	if err := os.MkdirAll(filepath.Dir(exclude), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exclude, []byte("# comment\n\nexcluded.md\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CommitInProcess(dir, "m", func(k string) string { return env[k] }); err != ErrNotInProcess {
		t.Errorf("with info/exclude: %v, want ErrNotInProcess", err)
	}
	if err := os.WriteFile(exclude, []byte("# comment only\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CommitInProcess(dir, "m", func(k string) string { return env[k] }); err != nil {
		t.Errorf("with a comment in info/exclude: %v, want a commit", err)
	}
	// A name go-git refuses to read (a control character): git's to commit.
	if err := os.WriteFile(filepath.Join(dir, "e\x1b[31mred.md"), []byte("r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CommitInProcess(dir, "m", func(k string) string { return env[k] }); err != ErrNotInProcess {
		t.Errorf("with a control character in a name: %v, want ErrNotInProcess", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "hooks", "pre-commit"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := CommitInProcess(dir, "m", func(k string) string { return env[k] }); err != ErrNotInProcess {
		t.Errorf("with a hook: %v, want ErrNotInProcess", err)
	}
	if _, err := RevInProcess(dir, "HEAD"); err != ErrNotInProcess {
		t.Errorf("rev with a hook: %v, want ErrNotInProcess", err)
	}
}
