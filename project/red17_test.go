package project

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRed17CommittedDirSourceIgnored (red17 finding 6): the committed
// manifest may name, inside the project, a file or folder the project's
// .gitignore ignores (secrets.yaml, config/, .env files): files that are
// the user's own, never in a clone. The walk drops "a pattern that would
// ignore the folder itself" since "the folder was named on purpose", so
// they are indexed, listed in INDEX.md and served by the MCP server. Only
// the user's own spec (Local) may name what git ignores.
func TestRed17CommittedDirSourceIgnored(t *testing.T) {
	root := t.TempDir()
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
