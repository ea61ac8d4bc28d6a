package project

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// review17f: holes around finding 6's rule (checkPrivate). Each case is a
// committed spec that makes ctx read a file a clone never has; each is
// accepted by CheckSource on main 77c2558.

func review17fWrite(t *testing.T, root, rel, s string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// review17fGit runs git in dir, with no user or system configuration.
func review17fGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestReview17fCommittedGitSourceIgnored: checkPrivate only looks at dir
// sources. A committed git source whose source is a local path inside the
// project (CheckSource's other kind) may name an ignored nested
// repository (a private clone the user keeps in the work tree and
// ignores): `ctx install` installs and indexes it, MCP serves it.
func TestReview17fCommittedGitSourceIgnored(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	review17fWrite(t, root, ".gitignore", "private/\n")
	review17fWrite(t, root, "private/p.md", "# P\n\nsecret\n")
	// track18: the project and the private clone in it are git
	// repositories (the hole this test names; outside git the manifest is
	// the user's own).
	review17fGit(t, root, "init", "-q", "-b", "main")
	review17fGit(t, filepath.Join(root, "private"), "init", "-q", "-b", "main")
	p, err := At(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"./private"} {
		s := PackageSpec{Alias: "pr", Kind: KindGit, Source: src} // committed
		if _, err := p.CheckSource(&Manifest{}, s); err == nil {
			t.Errorf("a committed git source %s, which the project's .gitignore ignores, is accepted (installed, indexed, served)", src)
		}
	}
}

// TestReview17fInfoExclude: git also ignores what .git/info/exclude lists
// (and core.excludesFile): such a file is never in a clone either, but
// IgnoredPath reads only .gitignore files, so a committed dir source may
// name it; the walk of a committed "." serves it too (checked by hand:
// MCP get_document root/excluded.yaml returns its text).
func TestReview17fInfoExclude(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	review17fGit(t, root, "init", "-q", "-b", "main") // track18: a git repository, whose info/exclude this is
	review17fWrite(t, root, ".git/info/exclude", "secrets.yaml\n")
	review17fWrite(t, root, "secrets.yaml", "db_password: hunter2\n")
	p, err := At(root)
	if err != nil {
		t.Fatal(err)
	}
	s := PackageSpec{Alias: "s", Kind: KindDir, Source: "./secrets.yaml"}
	if _, err := p.CheckSource(&Manifest{}, s); err == nil {
		t.Error("a committed dir source that .git/info/exclude ignores is accepted")
	}
}

// TestReview17fUntrackedAfterGitignoreEdit: the .gitignore is committed
// too, so the commit that adds the dir source can also drop (or negate:
// `!secrets.yaml`) the line that ignored it. The file is then untracked
// and in no ignore rule, never in a clone all the same, and accepted.
// "Ignored" is the wrong test of "a clone never has it": "not tracked by
// git" is the right one (git ls-files / the index), and the attacker
// cannot change what the user's index tracks.
func TestReview17fUntrackedAfterGitignoreEdit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	review17fWrite(t, root, ".gitignore", "secrets.yaml\n")
	review17fWrite(t, root, "README.md", "# R\n")
	run("add", "-A")
	run("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "init")
	review17fWrite(t, root, "secrets.yaml", "db_password: hunter2\n")
	// the teammate's commit: the manifest's source, and the .gitignore negated
	review17fWrite(t, root, ".gitignore", "secrets.yaml\n!secrets.yaml\n")
	p, err := At(root)
	if err != nil {
		t.Fatal(err)
	}
	s := PackageSpec{Alias: "s", Kind: KindDir, Source: "./secrets.yaml"}
	if _, err := p.CheckSource(&Manifest{}, s); err == nil {
		t.Error("a committed dir source git does not track (its .gitignore line negated by the same commit) is accepted: served from the user's disk")
	}
}

// TestReview17fCommittedGitSourceOwnStash: a committed git source may name
// the project's own repository ("." or "./") at any ref: refs/stash (the
// user's stashed, never-committed edits) or an unpushed local branch is
// installed, indexed and served (checked by hand with the binary: `ctx
// search` finds the stashed text). Neither is in a clone: the same class
// as finding 6. At least refs/stash and refs outside refs/heads, refs/tags
// and refs/remotes should need the user's allowance.
func TestReview17fCommittedGitSourceOwnStash(t *testing.T) {
	root := t.TempDir()
	review17fWrite(t, root, "docs/a.md", "# A\n")
	p, err := At(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{".", "./"} {
		s := PackageSpec{Alias: "st", Kind: KindGit, Source: src, Path: "docs", Ref: "refs/stash"} // committed
		if _, err := p.CheckSource(&Manifest{}, s); err == nil {
			t.Errorf("a committed git source %q at refs/stash (the user's stashed edits) is accepted", src)
		} else {
			t.Logf("%q: %v", src, err)
		}
	}
}
