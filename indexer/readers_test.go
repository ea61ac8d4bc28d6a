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
	if got := indexedBody(p); strings.Contains(got, "Enterprise") || !strings.Contains(got, "## Methods to Specify Namespace") {
		t.Errorf(".mdx indexed text has the heading's JSX or lost the heading:\n%s", got)
	}
	if p := parseDocument("api/ns.md", []byte(src), nil); p.Title != "Namespaces <EnterpriseAlert />" || !strings.Contains(indexedBody(p), "<EnterpriseAlert inline />") {
		t.Errorf(".md title = %q, want the tag kept", p.Title)
	}
}

// indexedBody is what search indexes of a parsed page's chunks, joined.
func indexedBody(p parsed) string {
	var b strings.Builder
	for _, c := range p.Chunks {
		b.WriteString(c.body())
		b.WriteByte('\n')
	}
	return b.String()
}

// TestRSTIndexedProse: search indexes an rst page's text with its inline
// markup as a reader sees it (roles and hyperlinks as their text: no role
// names, labels or URIs), its code as written (a literal block, a code
// directive's content), and its markup lines (directives, options,
// comments) as written with their inline markup reduced (rstIndexed).
// The stored text (what get_section serves) is the file's; the summary is
// the prose as shown.
func TestRSTIndexedProse(t *testing.T) {
	t.Parallel()
	in := `Guide
=====

See :ref:` + "`the fixture page <zfixture>`" + ` and :func:` + "`~pkg.zfunc`" + `, or ` + "`Zsite <https://zurl.example/x>`_" + `
and zref_ and ` + "`zphrase words`_" + `, :ref:` + "`broken over\ntwo lines <zbroken>`" + `.

Write this::

    :ref:` + "`zliteral <zlabel2>`" + `

.. code-block:: rst

   :func:` + "`~a.zcodefunc`" + `

.. note:: see :doc:` + "`the zdoc <zdocpath>`" + `
`
	p := parseDocument("guide.rst", []byte(in), nil)
	got := indexedBody(p)
	for _, w := range []string{"zfixture", ":func:`~pkg", "zurl", "zref_", "zwords`", "zbroken", "zdocpath"} {
		if strings.Contains(got, w) {
			t.Errorf("indexed text has %q (markup):\n%s", w, got)
		}
	}
	for _, w := range []string{"the fixture page", "zfunc", "Zsite", "zref and", "zphrase words", "broken over", ":ref:`zliteral <zlabel2>`", ":func:`~a.zcodefunc`", ".. note:: see the zdoc", ".. code-block:: rst"} {
		if !strings.Contains(got, w) {
			t.Errorf("indexed text lacks %q:\n%s", w, got)
		}
	}
	if len(p.Chunks) == 0 || !strings.Contains(p.Chunks[0].Text, ":ref:`the fixture page <zfixture>`") {
		t.Errorf("chunk text lost the file's markup: %+v", p.Chunks)
	}
	if strings.Contains(p.Summary, ":ref:") || !strings.Contains(p.Summary, "the fixture page") {
		t.Errorf("summary = %q, want the prose as shown", p.Summary)
	}
}

// TestRSTCommentIndexed: an rst comment is not shown (the summary lacks
// it) but search indexes it, as every markup line, as written: indexing
// markup lines as shown moved ranks both ways (rstIndexed, DESIGN).
func TestRSTCommentIndexed(t *testing.T) {
	t.Parallel()
	p := parseDocument("c.rst", []byte("Title\n=====\n\nzprose words.\n\n..\n   zhidden comment\n"), nil)
	if got := indexedBody(p); !strings.Contains(got, "zhidden comment") || !strings.Contains(got, "zprose words") {
		t.Errorf("indexed text = %q, want the prose and the comment as written", got)
	}
	if strings.Contains(p.Summary, "zhidden") || !strings.Contains(p.Summary, "zprose") {
		t.Errorf("summary = %q, want the prose without the comment", p.Summary)
	}
}
