package mcpserver

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDocumentWindowFromABreakClosesItsCodeBlock (review of agent22): a
// window that starts on a thematic break ("---") further down a document
// has no front matter: read alone it is the document's lines. Before, the
// window was parsed as a document of its own, its "---" and a YAML
// separator inside the code block below read as front matter, and the
// block the window ends in was not closed: ctx's footer read as code.
func TestDocumentWindowFromABreakClosesItsCodeBlock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "notes", "multi.md"), "# Config\n\nIntro.\n\n---\n\n## Multi\n\n```yaml\na: 1\n---\nb: 2\nc: 3\n```\n\nThe end.\n")
	cs := indexedNotes(t, dir)
	for _, c := range []struct {
		args  map[string]any
		close bool
	}{
		{map[string]any{"package": "notes", "path": "multi.md", "offset": 5, "limit": 8}, true}, // from the break into the block
		{map[string]any{"package": "notes", "path": "multi.md", "offset": 5}, false},            // to the end: the block is closed
	} {
		res := call(t, cs, "get_document", c.args, nil)
		if res.IsError {
			t.Fatal(text(res))
		}
		foot := res.Content[1].(*mcp.TextContent).Text
		if got := strings.HasPrefix(foot, "```\n[ctx: "); got != c.close {
			t.Errorf("%v: footer %q, want a closing fence first: %v", c.args, foot, c.close)
		}
	}
}

// TestHeaderPathNamesPackageAndPath (review of agent22, then the lead):
// read_relevant sends no resource link now, and its header names the
// document as package/path. A model that passes that as a document or
// link tool's path, without package, gets the document when its first
// component is an installed package. Before, it was told only "give
// package and path".
func TestHeaderPathNamesPackageAndPath(t *testing.T) {
	t.Parallel()
	cs := connect(t, sharedProject(t).dir)
	for tool, args := range map[string]map[string]any{
		"get_document": {"path": "guide/docs/setup.md"},
		"get_section":  {"path": "guide/docs/setup.md", "heading": "Linux"},
		"get_outline":  {"path": "guide/docs/setup.md"},
		"get_metadata": {"path": "guide/docs/setup.md"},
		"get_links":    {"path": "guide/docs/setup.md:3-9"}, // the header's range copied too
	} {
		if res := call(t, cs, tool, args, nil); res.IsError {
			t.Errorf("%s: %s", tool, text(res))
		}
	}
	// Not an installed package: not guessed, the advice names every form.
	for _, p := range []string{"docs/setup.md", "gide/docs/setup.md"} {
		res := call(t, cs, "get_document", map[string]any{"path": p}, nil)
		if !res.IsError || !strings.Contains(text(res), "<alias>/<path>") || !strings.Contains(text(res), "@ctx/") {
			t.Errorf("%s: %s", p, text(res))
		}
	}
	// A mistyped alias (review22-late22): the error names the component
	// taken for one, not only "empty package alias".
	res := call(t, cs, "get_links", map[string]any{"path": "gide/docs/setup.md"}, nil)
	if !res.IsError || !strings.Contains(text(res), `"gide" (the path's first component) is no installed package`) {
		t.Errorf("gide/docs/setup.md: %s", text(res))
	}
}

// TestMetaTagsNotAListKept (review of agent22): a front matter's "tags"
// that is not a list or a string (a map, a number) gives the document no
// tags, and is not said anywhere else: meta keeps it. Before, cleaned to
// no tags it equalled the document's none and was left out.
func TestMetaTagsNotAListKept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "notes", "map.md"), "---\ntags:\n  team: infra\n  tier: 1\n---\n# Map\n\nText.\n")
	writeFile(t, filepath.Join(dir, "notes", "num.md"), "---\ntags: 7\n---\n# Num\n\nText.\n")
	cs := indexedNotes(t, dir)
	for _, p := range []string{"map.md", "num.md"} {
		var m GetMetadataOut
		if res := call(t, cs, "get_metadata", map[string]any{"package": "notes", "path": p}, &m); res.IsError {
			t.Fatal(text(res))
		}
		if _, ok := m.Meta["tags"]; !ok || len(m.Tags) != 0 {
			t.Errorf("%s: tags %v, meta %v: want the front matter's tags kept in meta", p, m.Tags, m.Meta)
		}
	}
}

// TestHeaderRange (lead): the line range read_relevant's header writes
// after a path comes off a path given in the header's form, and nothing
// else does.
func TestHeaderRange(t *testing.T) {
	for in, want := range map[string]string{
		"docs/setup.md:7-30": "docs/setup.md",
		"docs/setup.md:7":    "docs/setup.md",
		"docs/setup.md":      "docs/setup.md",
		"docs/a:b.md":        "docs/a:b.md",
		"docs/setup.md:7-":   "docs/setup.md:7-",
		"docs/setup.md:-7":   "docs/setup.md:-7",
		"docs/setup.md:x-7":  "docs/setup.md:x-7",
		":7":                 ":7",
	} {
		if got := headerRange(in); got != want {
			t.Errorf("headerRange(%q) = %q, want %q", in, got, want)
		}
	}
}
