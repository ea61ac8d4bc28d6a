package mcpserver

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/internal/confine"
)

// TestNoReadThroughLinks: a packages/ folder or a package folder that is a
// symbolic link (a repository can commit one) is not served: the server
// would read wherever it points.
func TestNoReadThroughLinks(t *testing.T) {
	t.Parallel()
	for _, link := range []string{"packages", "packages/docs"} {
		t.Run(link, func(t *testing.T) {
			base := t.TempDir()
			victim := filepath.Join(base, "victim")
			if err := os.MkdirAll(filepath.Join(victim, "docs"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{filepath.Join(victim, "a.md"), filepath.Join(victim, "docs", "a.md")} {
				if err := os.WriteFile(p, []byte("# secret\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ctxDir := filepath.Join(base, "project", ".context")
			if err := os.MkdirAll(filepath.Join(ctxDir, "packages"), 0o755); err != nil {
				t.Fatal(err)
			}
			target := victim
			if link == "packages" {
				os.Remove(filepath.Join(ctxDir, "packages"))
			}
			if err := os.Symlink(target, filepath.Join(ctxDir, filepath.FromSlash(link))); err != nil {
				t.Fatal(err)
			}
			pkgs := filepath.Join(ctxDir, "packages")
			if _, err := readDocument(pkgFiles{dir: filepath.Join(pkgs, "docs"), packagesDir: pkgs, alias: "docs"}, "a.md"); !errors.Is(err, confine.ErrLink) {
				t.Errorf("readDocument through %s: err %v, want a refusal naming the link", link, err)
			}
			if docs := listMarkdown(pkgFiles{dir: filepath.Join(pkgs, "docs"), packagesDir: pkgs, alias: "docs"}, 10); len(docs) != 0 {
				t.Errorf("listMarkdown through %s: %v, want nothing", link, docs)
			}
		})
	}
}
