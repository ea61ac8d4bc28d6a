package indexer

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// TestExtractRSTLinks: :doc: and :ref: roles with and without text,
// inline hyperlinks, a toctree's entries (options, self and globs left
// out), labels; literal blocks and code-block bodies are skipped.
func TestExtractRSTLinks(t *testing.T) {
	t.Parallel()
	doc := ".. _install-guide:\n" + // 1
		"\n" + // 2
		"Install\n=======\n" + // 3-4
		"See :doc:`the tutorial <tutorial/index>` and :doc:`/api`.\n" + // 5
		"Read :ref:`the  Options <Config Options>` or :ref:`deploy`.\n" + // 6
		"A `web page <https://example.com/x>`_ and `the FAQ <faq.html>`__ and `named <named_>`_.\n" + // 7
		"\n" + // 8
		".. toctree::\n" + // 9
		"   :maxdepth: 2\n" + // 10
		"\n" + // 11
		"   quickstart\n" + // 12
		"   Advanced use <advanced/index>\n" + // 13
		"   self\n" + // 14
		"   api/*\n" + // 15
		"\n" + // 16
		"Example::\n" + // 17
		"\n" + // 18
		"    :doc:`not-a-link`\n" + // 19
		"\n" + // 20
		".. code-block:: rst\n" + // 21
		"\n" + // 22
		"    :ref:`nor-this`\n" + // 23
		"\n" + // 24
		".. _Other Label:\n" // 25
	links, labels := extractRSTLinks(splitLines(doc))
	want := []rawLink{
		{Type: LinkMarkdown, Target: "tutorial/index", Line: 5, Label: "the tutorial"},
		{Type: LinkMarkdown, Target: "/api", Line: 5},
		{Type: LinkRef, Target: "config options", Line: 6, Label: "the Options"},
		{Type: LinkRef, Target: "deploy", Line: 6},
		{Type: LinkMarkdown, Target: "https://example.com/x", Line: 7, Label: "web page"},
		{Type: LinkMarkdown, Target: "faq.html", Line: 7, Label: "the FAQ"},
		{Type: LinkMarkdown, Target: "quickstart", Line: 12},
		{Type: LinkMarkdown, Target: "advanced/index", Line: 13, Label: "Advanced use"},
	}
	if !reflect.DeepEqual(links, want) {
		g, _ := json.MarshalIndent(links, "", " ")
		t.Errorf("links:\n%s", g)
	}
	if want := []string{"install-guide", "other label"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
}

// TestExtractAsciiDocLinks: xref:, link: and git's linkgit: (its text the
// page's name); comments and listing blocks skipped.
func TestExtractAsciiDocLinks(t *testing.T) {
	t.Parallel()
	doc := "= Title\n\n" + // 1-2
		"See linkgit:git-config[1] and xref:howto/tags.adoc#signed[signed tags].\n" + // 3
		"// link:commented.html[no]\n" + // 4
		"----\nlink:listing.html[no]\n----\n" + // 5-7
		"Also link:user-manual.html[the manual] and link:https://git-scm.com[site].\n" // 8
	p := parseDocument("git.adoc", []byte(doc), nil)
	want := []rawLink{
		{Type: LinkMarkdown, Target: "git-config", Line: 3, Label: "git-config"},
		{Type: LinkMarkdown, Target: "howto/tags.adoc#signed", Line: 3, Label: "signed tags"},
		{Type: LinkMarkdown, Target: "user-manual.html", Line: 8, Label: "the manual"},
		{Type: LinkMarkdown, Target: "https://git-scm.com", Line: 8, Label: "site"},
	}
	if !reflect.DeepEqual(p.Links, want) {
		g, _ := json.MarshalIndent(p.Links, "", " ")
		t.Errorf("links:\n%s", g)
	}
}

// dirPackage is a dir source of the files writeFiles wrote for alias.
func dirPackage(contextDir, alias string) Package {
	return Package{Alias: alias, Kind: project.KindDir, Source: "./" + alias, Dir: filepath.Join(contextDir, "packages", alias)}
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}

// TestSiteLinks resolves what documentation sites write: a site-absolute
// route without extension ("/site/docs/agent/config" to
// docs/agent/config.mdx), a folder's index.mdx, rst's :doc: (relative and
// absolute, no extension) and :ref: to a label another page defines, a
// toctree entry, an .html link to an .rst page, AsciiDoc's linkgit: to an
// .adoc page. A :ref: to a label no page defines is external.
func TestSiteLinks(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", map[string]string{
		"docs/agent/config.mdx": "# Agent configuration\n",
		"docs/acl/index.mdx":    "# ACL\n",
		"page.md":               "# Page\n\n[config](/site/docs/agent/config) and [acl](/site/docs/acl/) and [tut](tutorial).\n",
		"tutorial.mdx":          "# Tutorial\n",
		"guide/install.rst":     ".. _install-guide:\n\nInstall\n=======\n\nRead :doc:`usage` and :doc:`the API </api>`.\n",
		"guide/usage.rst":       "Usage\n=====\n\nSee :ref:`installing <install-guide>`, :ref:`nowhere` and `the API <../api.html>`_.\n\n.. toctree::\n\n   install\n",
		"api.rst":               "API\n===\n",
		"git.adoc":              "= git\n\nSee linkgit:git-config[1].\n",
		"git-config.adoc":       "= git-config\n",
	})
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{dirPackage(dir, "d")}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	for _, c := range []struct {
		doc  string
		want []string
	}{
		{"page.md", []string{"link resolved d/docs/agent/config.mdx", "link resolved d/docs/acl/index.mdx", "link resolved d/tutorial.mdx"}},
		{"guide/install.rst", []string{"link resolved d/guide/usage.rst", "link resolved d/api.rst"}},
		{"guide/usage.rst", []string{"ref resolved d/guide/install.rst", "ref external nowhere", "link resolved d/api.rst", "link resolved d/guide/install.rst"}},
		{"git.adoc", []string{"link resolved d/git-config.adoc"}},
	} {
		out, _, err := r.Links("d", c.doc)
		if err != nil {
			t.Fatal(err)
		}
		if got := linkStrings(out, false); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s links:\n got %q\nwant %q", c.doc, got, c.want)
		}
	}
}

// TestInlinkPrior: two pages of the same tokens, one linked to by three
// other pages of the package (one of them twice; its own link to itself
// not counted): its score is the other's × inlinkPrior(3) = 1 + 0.2·3/8,
// by hand. Without inlinks.json (an index written before it) there is no
// prior; a Sync writes the file again, and a Sync after a page drops its
// link counts two.
func TestInlinkPrior(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", map[string]string{
		"a.md":  "# Alpha\n\nlion x [me](a.md)\n",
		"b.md":  "# Bravo\n\nlion x [me](b.md)\n",
		"c1.md": "# One\n\n[see](a.md) and [again](a.md#top)\n",
		"c2.md": "# Two\n\n[see](a.md)\n",
		"c3.md": "# Three\n\n[see](a.md)\n",
	})
	ctx := context.Background()
	sync := func() {
		t.Helper()
		if _, err := Sync(ctx, dir, []Package{dirPackage(dir, "d")}, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	sync()
	r, _ := OpenReader(dir)
	defer r.Close()
	ratio := func(want float64) {
		t.Helper()
		hits, err := r.Search(ctx, Query{Text: "lion"})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 2 || hits[0].Path != "a.md" || hits[1].Path != "b.md" {
			t.Fatalf("hits %+v, want a.md then b.md", hits)
		}
		if got := hits[0].Score / hits[1].Score; math.Abs(got-want) > 1e-9 {
			t.Errorf("a.md / b.md = %.9f, want %.9f", got, want)
		}
	}
	ratio(1 + 0.2*3/8)

	if err := os.Remove(filepath.Join(dir, "index", inlinksFile)); err != nil {
		t.Fatal(err)
	}
	hits, err := r.Search(ctx, Query{Text: "lion"})
	if err != nil || len(hits) != 2 || hits[0].Score != hits[1].Score {
		t.Errorf("without inlinks.json: %+v %v, want two hits of the same score", hits, err)
	}
	sync()
	ratio(1 + 0.2*3/8)

	writeFiles(t, dir, "d", map[string]string{"c3.md": "# Three\n\nsee nothing\n"})
	sync()
	ratio(1 + 0.2*2/7)
}

// TestRSTLabelsBounded: a file of labels keeps maxLinksPerDoc of them, and
// none longer than a link's target may be.
func TestRSTLabelsBounded(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := 0; i < maxLinksPerDoc+10; i++ {
		lines = append(lines, ".. _l"+itoa(i)+":")
	}
	lines = append([]string{".. _" + strings.Repeat("x", 3000) + ":"}, lines...)
	_, labels := extractRSTLinks(lines)
	if len(labels) != maxLinksPerDoc || labels[0] != "l0" {
		t.Errorf("%d labels, the first %.20q; want %d from l0", len(labels), labels[0], maxLinksPerDoc)
	}
}
