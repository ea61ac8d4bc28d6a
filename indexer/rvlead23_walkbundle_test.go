package indexer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// TestWalkRecordShortcutBundle (review of the merges ea98af1 and 9ec878e,
// which joined cli23's statDocs with qset24b's bundle stamps): a package
// whose documents have a Hugo bundle page as side file is checked from the
// walk record once a full walk found it fresh (statDocs stamps the bundle
// page as partStamp does), and a retitled bundle page is still seen.
// With statDocs' bundle stamp left out, every check walked the package in
// full and no test failed.
func TestWalkRecordShortcutBundle(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ctxDir := filepath.Join(root, ".context")
	files := map[string]string{
		".context/packages/lib/guide/_index.md": "---\ntitle: Deleting series\n---\n{{% content \"README.md\" %}}\n",
		".context/packages/lib/guide/README.md": "# Purpose\n\nPangolins.\n",
		".context/packages/lib/other.md":        "# Other\n\nQuokkas.\n",
	}
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkgs := []Package{
		{Alias: "docs", Kind: project.KindDir, Source: "./docs", Dir: filepath.Join(root, "docs"), Project: root},
		{Alias: "lib", Kind: project.KindGit, Source: "https://git.example/lib.git", Rev: strings.Repeat("1", 40)},
	}
	if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "docs", "a.md"), []byte("# A\n\nText.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Sync(context.Background(), ctxDir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	r := recordReader(t, root, ctxDir, pkgs)
	page := filepath.Join(root, ".context", "packages", "lib", "guide", "_index.md")
	if err := os.WriteFile(page, []byte("---\ntitle: Removing series\n---\n{{% content \"README.md\" %}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	freshAfter(t, r, pkgs, "lib")
}
