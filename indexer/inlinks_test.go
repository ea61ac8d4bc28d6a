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

	"github.com/ctx-dev/ctx/indexer/markdown"
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
		".. _Other Label:\n" + // 25
		"\n" + // 26
		"No space: :ref:`flush process<session_flushing>`, :doc:`Other<other/page>`.\n" + // 27
		"\n" + // 28
		".. toctree::\n" + // 29
		"\n" + // 30
		"   First<first/page>\n" + // 31
		"\n" + // 32
		"See :numref:`fig-one`, :REF:`Up`, :external:ref:`py-label` and :external+py:doc:`tut`.\n" // 33
	links, labels := extractRSTLinks(markdown.ParseFile("guide.rst", []byte(doc)).RST())
	want := []rawLink{
		{Type: LinkMarkdown, Target: "tutorial/index", Line: 5, Label: "the tutorial"},
		{Type: LinkMarkdown, Target: "/api", Line: 5},
		{Type: LinkRef, Target: "config options", Line: 6, Label: "the Options"},
		{Type: LinkRef, Target: "deploy", Line: 6},
		{Type: LinkMarkdown, Target: "https://example.com/x", Line: 7, Label: "web page"},
		{Type: LinkMarkdown, Target: "faq.html", Line: 7, Label: "the FAQ"},
		{Type: LinkMarkdown, Target: "quickstart", Line: 12},
		{Type: LinkMarkdown, Target: "advanced/index", Line: 13, Label: "Advanced use"},
		{Type: LinkRef, Target: "session_flushing", Line: 27, Label: "flush process"},
		{Type: LinkMarkdown, Target: "other/page", Line: 27, Label: "Other"},
		{Type: LinkMarkdown, Target: "first/page", Line: 31, Label: "First"},
		{Type: LinkRef, Target: "fig-one", Line: 33},
		{Type: LinkRef, Target: "up", Line: 33},
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
	_, labels := extractRSTLinks(markdown.ParseFile("labels.rst", []byte(strings.Join(lines, "\n"))).RST())
	if len(labels) != maxLinksPerDoc || labels[0] != "l0" {
		t.Errorf("%d labels, the first %.20q; want %d from l0", len(labels), labels[0], maxLinksPerDoc)
	}
}

// TestHubPage: which documents are hubs. A page is one when it links to
// at least hubMinLinks other documents of its package and to at least
// hubLinksPer100 of them per 100 tokens; links to itself, to another
// package, to files that do not exist and external ones do not count, and
// several links to one page count once.
func TestHubPage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		out    int
		tokens int64
		want   bool
	}{
		{3, 200, true},   // 1.5 per 100
		{3, 201, false},  // just under
		{2, 10, false},   // too few links however short
		{20, 1000, true}, // 2 per 100
		{20, 2000, false},
		{3, 0, true},
	} {
		if got := hubPage(c.out, c.tokens); got != c.want {
			t.Errorf("hubPage(%d, %d) = %v, want %v", c.out, c.tokens, got, c.want)
		}
	}

	dir := filepath.Join(t.TempDir(), ".context")
	prose := strings.Repeat("words of a guide that explains the topic at length. ", 60) // 540 tokens
	writeFiles(t, dir, "d", map[string]string{
		"p1.md": "# P1\n\ntext\n",
		"p2.md": "# P2\n\ntext\n",
		"p3.md": "# P3\n\ntext\n",
		"p4.md": "# P4\n\ntext\n",
		// Links through its prose, one a line: not a navigation chunk's
		// list, a hub by its links per token.
		"overview.md": "# Overview\n\nStart with [the first](p1.md) step, then read [the second](p2.md) one.\n\n" +
			"Go on to [the third](p3.md#x) and [the fourth](p4.md).\n",
		// Four links, one page twice, itself, a missing file and an
		// external page: one document linked.
		"few.md": "# Few\n\n[a](p1.md) [b](p1.md#y) [c](few.md) [d](missing.md) [e](https://example.com/p2.md)\n",
		// Four pages linked from a long guide: under 1.5 per 100 tokens.
		"guide.md": "# Guide\n\n" + prose + "\n\nSee [one](p1.md), [two](p2.md), [three](p3.md) and [four](p4.md).\n",
	})
	if _, err := Sync(context.Background(), dir, []Package{dirPackage(dir, "d")}, Options{}); err != nil {
		t.Fatal(err)
	}
	var data inLinksData
	if err := readJSON(filepath.Join(dir, "index", inlinksFile), &data); err != nil {
		t.Fatal(err)
	}
	if want := map[string][]string{"d": {"overview.md"}}; !reflect.DeepEqual(data.Hubs, want) {
		t.Errorf("hubs %v, want %v", data.Hubs, want)
	}
}

// TestHubPrior: two pages of the same tokens, one linking to three other
// pages of its package (a hub), the other to three that do not exist: the
// hub's score is the other's × hubPrior. The pages it links to have their
// in-link prior, and neither of the two has one.
func TestHubPrior(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", map[string]string{
		"a.md":  "# Alpha\n\nlion x [one](p1.md) [two](p2.md) [six](p3.md)\n",
		"b.md":  "# Bravo\n\nlion x [one](q1.md) [two](q2.md) [six](q3.md)\n",
		"p1.md": "# P1\n\ntext\n",
		"p2.md": "# P2\n\ntext\n",
		"p3.md": "# P3\n\ntext\n",
	})
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{dirPackage(dir, "d")}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	hits, err := r.Search(ctx, Query{Text: "lion"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Path != "b.md" || hits[1].Path != "a.md" {
		t.Fatalf("hits %+v, want b.md then a.md", hits)
	}
	if got, want := hits[1].Score/hits[0].Score, 0.7; math.Abs(got-want) > 1e-9 {
		t.Errorf("a.md / b.md = %.9f, want %.9f", got, want)
	}
}

// TestInLinksOldFormat: an inlinks.json counted by an older ctx (no hubs;
// the catalogue records the link graph without inlinksFormat) is written
// again by the next Sync, though no document changed.
func TestInLinksOldFormat(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", map[string]string{
		"a.md":  "# Alpha\n\nlion x [one](p1.md) [two](p2.md) [six](p3.md)\n",
		"p1.md": "# P1\n\ntext\n",
		"p2.md": "# P2\n\ntext\n",
		"p3.md": "# P3\n\ntext\n",
	})
	ctx := context.Background()
	sync := func() {
		t.Helper()
		if _, err := Sync(ctx, dir, []Package{dirPackage(dir, "d")}, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	sync()
	indexDir := filepath.Join(dir, "index")
	var top map[string]any
	if err := readJSON(filepath.Join(indexDir, catalogFile), &top); err != nil {
		t.Fatal(err)
	}
	old, ok := top["inLinks"].(string)
	if !ok || !strings.HasPrefix(old, inlinksFormat) {
		t.Fatalf("catalogue's inLinks %v, want it to start with %q", top["inLinks"], inlinksFormat)
	}
	old = strings.TrimPrefix(old, inlinksFormat)
	top["inLinks"] = old
	writeJSONFile(t, filepath.Join(indexDir, catalogFile), top)
	writeJSONFile(t, filepath.Join(indexDir, inlinksFile), map[string]any{"graph": old, "docs": map[string]any{"d": map[string]int{"p1.md": 1, "p2.md": 1, "p3.md": 1}}})

	sync()
	var data inLinksData
	if err := readJSON(filepath.Join(indexDir, inlinksFile), &data); err != nil {
		t.Fatal(err)
	}
	if data.Graph != inlinksFormat+old || !reflect.DeepEqual(data.Hubs, map[string][]string{"d": {"a.md"}}) {
		t.Errorf("after Sync: graph %q, hubs %v; want %q and a.md", data.Graph, data.Hubs, inlinksFormat+old)
	}
}

func writeJSONFile(t *testing.T, p string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
