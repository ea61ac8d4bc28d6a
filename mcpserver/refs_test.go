package mcpserver

import (
	"strings"
	"testing"
)

// TestReferencePaths: get_document and get_section take a reference
// (@ctx/<alias>/<path> or ctx://packages/<alias>/<path>, as ctx refs finds
// them) as their path, with no package or the same one; a fragment is
// ignored; a bad or conflicting reference is a tool error saying why.
func TestReferencePaths(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	for _, args := range []map[string]any{
		{"path": "@ctx/guide/docs/setup.md"},
		{"path": "ctx://packages/guide/docs/setup.md#install"},
		{"package": "guide", "path": "@ctx/guide/docs/setup.md"},
	} {
		var d DocumentOut
		res := call(t, cs, "get_document", args, &d)
		if res.IsError || d.Text != setupDoc || d.Package != "guide" || d.Path != "docs/setup.md" {
			t.Errorf("get_document %v: %s, %+v", args, text(res), d)
		}
	}
	var d DocumentOut
	res := call(t, cs, "get_section", map[string]any{"path": "ctx://packages/guide/docs/setup%2Emd", "heading": "Linux"}, &d)
	if res.IsError || d.Text != "### Linux\n\nUse the package manager.\n" {
		t.Errorf("get_section by reference: %s, %+v", text(res), d)
	}
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "other", "path": "@ctx/guide/docs/setup.md"}, nil), `"other"`, `"guide"`)
	wantError(t, call(t, cs, "get_document", map[string]any{"path": "@ctx/guide"}, nil), "names no document")
	wantError(t, call(t, cs, "get_document", map[string]any{"path": "@ctx/gide/docs/setup.md"}, nil), "unknown package", `"guide"`)
	wantError(t, call(t, cs, "get_section", map[string]any{"path": "ctx://packages/guide/%2e%2e/x.md", "heading": "x"}, nil), "refused")
	wantError(t, call(t, cs, "get_document", map[string]any{"path": "docs/setup.md"}, nil), "package")
	if r := call(t, cs, "get_document", map[string]any{"path": "docs/setup.md"}, nil); !strings.Contains(text(r), "@ctx/") {
		t.Errorf("a path without a package should say a reference works too: %s", text(r))
	}
}
