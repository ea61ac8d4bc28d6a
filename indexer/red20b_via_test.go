package indexer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// red20b finding 5: a front-matter key is a link's type, so one document
// can reach another by as many types as it has keys (up to
// maxLinksPerDoc, 2,000). Neighbours kept every type that reached a
// document in a list it scanned on each step: two hops over 2,000
// documents of 2,000 such links each are 4 million steps, each a scan of
// up to 2,000 types, in an MCP call (related) that its 30 s bound does not
// stop; and the answer listed every type. A neighbour's types are
// bounded.
func TestRed20bNeighbourViaBounded(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	var fm strings.Builder
	fm.WriteString("---\n")
	for i := range 300 {
		fmt.Fprintf(&fm, "k%03d: ./a.md\n", i)
	}
	fm.WriteString("---\n# Start\n")
	for name, body := range map[string]string{"s.md": fm.String(), "a.md": "# A\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctxDir := filepath.Join(t.TempDir(), ".context")
	if _, err := Sync(context.Background(), ctxDir, []Package{{Alias: "notes", Kind: project.KindDir, Source: "notes", Dir: root}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(ctxDir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ns, err := r.Neighbours(context.Background(), "notes", "s.md", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != 1 || ns[0].Path != "a.md" {
		t.Fatalf("neighbours %+v, want a.md", ns)
	}
	if n := len(ns[0].Via); n == 0 || n > MaxVia {
		t.Errorf("a.md is reached by %d types, want 1 to %d: %q…", n, MaxVia, ns[0].Via[:min(n, 3)])
	}
}
