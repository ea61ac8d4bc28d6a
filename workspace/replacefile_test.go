package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// audit17 finding 15: an update that changes one file's content must
// replace it atomically for readers (README: "gets that one file replaced
// (atomically, by rename)"). At every step of the patch, the changed file
// must be at its path, old or new: an MCP get_document in the gap between
// moving the old file out and the new one in answers "not found".
func TestAudit17ReplacedFileNeverMissing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.commit("base", map[string]string{"guides/x.md": "# X\n\nold\n"})
	w, err := Open(f.project, f.opts())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
	target := filepath.Join(w.pkgDir("guides"), "x.md")
	f.commit("change", map[string]string{"guides/x.md": "# X\n\nnew\n"})
	var missingAt []string
	w.opts.testHook = func(stage, alias string) error {
		if _, err := os.Stat(target); err != nil {
			missingAt = append(missingAt, stage)
		}
		return nil
	}
	if _, err := w.Update(bg, nil, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, target); got != "# X\n\nnew\n" {
		t.Fatalf("x.md after update = %q, want the new content", got)
	}
	if len(missingAt) > 0 {
		t.Errorf("x.md was missing from the package folder during the update, at steps %v: a reader (ctx mcp get_document) gets not found", missingAt)
	}
}
