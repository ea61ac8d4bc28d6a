package project

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The warning for a context.local.json that git would take (the next
// `git add -A` commits it): none while a .gitignore from the work tree's
// root down ignores it (.context/.gitignore as ctx init writes it, or the
// repository root's, above a project in a sub-folder), one when none does,
// and none outside a git repository.
func TestLocalFileNotIgnoredWarning(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	repo := t.TempDir()
	root := filepath.Join(repo, "sub", "proj")
	if err := os.MkdirAll(filepath.Join(root, DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, DirName, ManifestName), `{"packages": []}`)
	write(filepath.Join(root, DirName, LocalName), `{"packages": []}`)
	warned := func() bool {
		t.Helper()
		p, _ := At(root)
		m, err := p.ReadManifest()
		if err != nil {
			t.Fatal(err)
		}
		return len(m.Warnings) == 1 && strings.Contains(m.Warnings[0], "is not ignored by git")
	}
	if warned() {
		t.Error("outside a git repository: warned")
	}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	if !warned() {
		t.Error("nothing ignores it: no warning")
	}
	write(filepath.Join(root, DirName, GitignoreName), "# ctx\n/"+LocalName+"\n")
	if warned() {
		t.Error("ignored by .context/.gitignore: warned")
	}
	write(filepath.Join(root, DirName, GitignoreName), "/other.json\n")
	if !warned() {
		t.Error("a .gitignore that names another file: no warning")
	}
	write(filepath.Join(repo, ".gitignore"), LocalName+"\n")
	if warned() {
		t.Error("ignored by the repository root's .gitignore: warned")
	}
}
