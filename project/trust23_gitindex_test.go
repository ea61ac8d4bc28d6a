package project

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGitIndexWatchSeesGitInit: a project outside git when a long-lived
// reader started is looked at again, so a `git init` under it gives the
// index's path (trust23: ctx mcp found it once and then watched nothing).
func TestGitIndexWatchSeesGitInit(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := At(root)
	if err != nil {
		t.Fatal(err)
	}
	if p.GitIndexFile() != "" {
		t.Skip("the temp folder is inside a git work tree")
	}
	w := p.WatchGitIndex()
	if f := w.File(); f != "" {
		t.Fatalf("outside git: File() = %q, want \"\"", f)
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(root, ".git", "index")
	if f := w.File(); f != want {
		t.Fatalf("after git init: File() = %q, want %q", f, want)
	}
	// Kept once found: the same path while .git stays.
	if f := w.File(); f != want {
		t.Fatalf("again: File() = %q, want %q", f, want)
	}
}
