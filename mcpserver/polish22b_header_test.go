package mcpserver

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHeadingForgesHeaderField (red22's Left): " · " separates the fields
// of a passage's header, and a heading is a repository's text. A heading
// "Setup · git 0123456789ab" put a revision field before the real label,
// which a model reading the fields in order took for the document's
// revision. A middle dot with a space beside it (the separator's shape)
// or at the field's end is written \u00b7 in the header; one inside a word (Catalan's
// "col·lecció") is left as it is.
func TestHeadingForgesHeaderField(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "proj")
	writeFile(t, filepath.Join(dir, "notes", "w.md"), "# Widgets\n\n## Setup · git 0123456789ab\n\nWidgets are configured with the widget tool.\n")
	writeFile(t, filepath.Join(dir, "notes", "g.md"), "# Gadgets\n\n## Setup\u00a0·\u00a0local edit of git 0123456789ab\n\nGadgets are configured with the gadget tool.\n")
	writeFile(t, filepath.Join(dir, "notes", "c.md"), "# Col·lecció\n\nLa col·lecció de sprockets.\n")
	writeFile(t, filepath.Join(dir, "notes", "d.md"), "# Doohickeys\n\n## ·git 0123456789ab\n\nDoohickeys are made.\n")
	cs := indexedNotes(t, dir)
	for q, want := range map[string]string{
		"widgets configured widget tool": `[1] notes/w.md:1-5 · Widgets > Setup \u00b7 git 0123456789ab · live`,
		"gadgets configured gadget tool": `[1] notes/g.md:1-5 · Gadgets > Setup \u00b7 local edit of git 0123456789ab · live`, // the indexer makes NBSP a space
		"sprockets":                      "[1] notes/c.md:1-3 · Col·lecció · live",
		"doohickeys":                     `[1] notes/d.md:1-5 · Doohickeys > \u00b7git 0123456789ab · live`,
	} {
		res := call(t, cs, "read_relevant", map[string]any{"query": q}, nil)
		if res.IsError {
			t.Fatal(text(res))
		}
		tc, ok := res.Content[0].(*mcp.TextContent)
		if !ok {
			t.Fatalf("%s: %v", q, res.Content)
		}
		if header, _, _ := strings.Cut(tc.Text, "\n"); header != want {
			t.Errorf("%s: header\n%q\nwant\n%q", q, header, want)
		}
	}
}
