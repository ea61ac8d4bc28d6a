package indexer

import (
	"strings"
	"testing"
)

// TestMDXHeadingJSXIndexed: an .mdx page's title and chunk trails drop the
// JSX of its headings (markdown.ParseFile, the model the MCP server's
// Doc.Section reads), while an .md page keeps "<Foo>" as text.
func TestMDXHeadingJSXIndexed(t *testing.T) {
	t.Parallel()
	src := "# Namespaces <EnterpriseAlert />\n\nIntro text here.\n\n## Methods to Specify Namespace <EnterpriseAlert inline />\n\nBody one is long enough to be a chunk of its own, with words.\n"
	p := parseDocument("api/ns.mdx", []byte(src), nil)
	if p.Title != "Namespaces" {
		t.Errorf(".mdx title = %q, want Namespaces", p.Title)
	}
	var trails []string
	for _, c := range p.Chunks {
		trails = append(trails, strings.Join(c.Trail, " > "))
	}
	if got := strings.Join(trails, "|"); !strings.Contains(got, "Namespaces > Methods to Specify Namespace") || strings.Contains(got, "Enterprise") {
		t.Errorf(".mdx trails = %q", trails)
	}
	if p := parseDocument("api/ns.md", []byte(src), nil); p.Title != "Namespaces <EnterpriseAlert />" {
		t.Errorf(".md title = %q, want the tag kept", p.Title)
	}
}
