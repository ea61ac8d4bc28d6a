package workspace

import (
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// TestFetchURL: a source is joined to the project root exactly when go-git
// would open it as a local path (naming.IsLocalPath); a file:// URL is
// given as the path project.CheckSource checks. "my docs:v2" has white
// space in what would be its host, so go-git reads it as a path; before the
// rule moved to internal/naming, workspace called it remote and go-git then
// opened it relative to the process's folder instead of the project root.
func TestFetchURL(t *testing.T) {
	t.Parallel()
	root := filepath.FromSlash("/proj")
	proj, err := project.At(root)
	if err != nil {
		t.Fatal(err)
	}
	w := &Workspace{root: root, proj: proj}
	for src, want := range map[string]string{
		"../docs":                   filepath.Join(root, "..", "docs"),
		"my docs:v2":                filepath.Join(root, "my docs:v2"),
		"./a:b":                     filepath.Join(root, "a:b"),
		"/abs/repo":                 "/abs/repo",
		"file:///abs/repo":          "/abs/repo",
		"https://h/r.git":           "https://h/r.git",
		"git@github.com:acme/r.git": "git@github.com:acme/r.git",
		"gitserver:acme/r":          "gitserver:acme/r",
	} {
		if got := w.fetchURL(src); got != want {
			t.Errorf("fetchURL(%q) = %q, want %q", src, got, want)
		}
	}
}
