package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// TestRed17CommittedDirSourceIgnored (red17 finding 6): the committed
// manifest may name, inside the project, a file or folder the project's
// .gitignore ignores (secrets.yaml, config/, .env files): files that are
// the user's own, never in a clone. The walk drops "a pattern that would
// ignore the folder itself" since "the folder was named on purpose", so
// they are indexed, listed in INDEX.md and served by the MCP server. Only
// the user's own spec (Local) may name what git ignores (track18: what git
// does not track, in a git repository).
func TestRed17CommittedDirSourceIgnored(t *testing.T) {
	if !gittest.Available() {
		t.Skip("no git")
	}
	root := t.TempDir()
	gittest.MustGit(t, root, "init", "-q", "-b", "main")
	write := func(rel, s string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitignore", "secrets.yaml\nconfig/\n")
	write("secrets.yaml", "db_password: hunter2\n")
	write("config/prod.yaml", "api_key: x\n")
	gittest.MustGit(t, root, "add", "-A")
	p, err := At(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"./secrets.yaml", "./config"} {
		s := PackageSpec{Alias: "s", Kind: KindDir, Source: src} // committed
		if _, err := p.CheckSource(&Manifest{}, s); err == nil {
			t.Errorf("a committed dir source %s, which the project's .gitignore ignores, is accepted: its files are indexed and served", src)
		}
	}
}

// TestCommittedDirSourcePrivate: what git does not track (here: what the
// project's .gitignore files ignore, at the root or in a folder above the
// source, negations as git reads them) is refused to a committed dir
// source with ErrUntracked and the way out; the user's own spec (Local)
// may name it; a source git keeps is accepted; ctx's own folder is no
// source for anyone.
func TestCommittedDirSourcePrivate(t *testing.T) {
	if !gittest.Available() {
		t.Skip("no git")
	}
	root := t.TempDir()
	gittest.MustGit(t, root, "init", "-q", "-b", "main")
	write := func(rel, s string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitignore", "secrets.yaml\nconfig/\nbuild/*\n!build/docs/\n")
	write("secrets.yaml", "db_password: hunter2\n")
	write("config/prod.yaml", "api_key: x\n")
	write("docs/a.md", "# A\n")
	write("docs/.gitignore", "private/\n")
	write("docs/private/p.md", "# P\n")
	write("docs/public/p.md", "# P\n")
	write("build/docs/b.md", "# B\n")
	write("build/out/o.md", "# O\n")
	write(".context/context.config.json", "{}\n")
	write(".context/packages/x/a.md", "# A\n")
	if err := os.Symlink("config", filepath.Join(root, "cfglink")); err != nil {
		t.Fatal(err)
	}
	gittest.MustGit(t, root, "add", "-A")
	p, err := At(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		src     string
		refused bool
	}{
		{"./secrets.yaml", true},
		{"./config", true},
		{"config/", true},
		{"./config/prod.yaml", true},
		{"./cfglink", true},
		{"./docs/private", true},
		{"./docs/private/p.md", true},
		{"./docs", false},
		{"./docs/public", false},
		{"./build/docs", false},
		{"./build/out", true},
		{".", false},
	} {
		s := PackageSpec{Alias: "s", Kind: KindDir, Source: tc.src}
		_, err := p.CheckSource(&Manifest{}, s)
		if got := errors.Is(err, ErrUntracked); got != tc.refused {
			t.Errorf("committed %s: err = %v; want refused: %v", tc.src, err, tc.refused)
		}
		if tc.refused && !strings.Contains(err.Error(), "ctx install --allow-outside s`") {
			t.Errorf("committed %s: no way out in %v", tc.src, err)
		}
		s.Local = true
		if _, err := p.CheckSource(&Manifest{}, s); err != nil {
			t.Errorf("the user's own %s: %v", tc.src, err)
		}
	}
	for _, src := range []string{"./.context", ".context/packages", "./.context/context.config.json"} {
		for _, local := range []bool{false, true} {
			s := PackageSpec{Alias: "s", Kind: KindDir, Source: src, Local: local}
			if _, err := p.CheckSource(&Manifest{}, s); err == nil || !strings.Contains(err.Error(), "ctx's own folder") {
				t.Errorf("%s (local %v): err = %v; want ctx's own folder refused", src, local, err)
			}
		}
	}
}
