package markdown

import (
	"reflect"
	"strings"
	"testing"
)

func TestFormatOf(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]Format{
		"a.md": FormatMarkdown, "A.MDX": FormatMarkdown, "x.markdown": FormatMarkdown,
		"notes.txt": FormatText, "doc/index.rst": FormatRST, "guide.ADOC": FormatAsciiDoc,
		"kep.yaml": FormatYAML, "ci.yml": FormatYAML, "package.json": FormatJSON, "Cargo.toml": FormatTOML,
		"page.html": "", "Makefile": "", "a.yaml.orig": "", "yaml": "",
	} {
		if got := FormatOf(p); got != want {
			t.Errorf("FormatOf(%q) = %q, want %q", p, got, want)
		}
	}
	if got, want := ExtensionList(), ".md, .markdown, .mdx, .txt, .rst, .adoc, .yaml, .yml, .json and .toml"; got != want {
		t.Errorf("ExtensionList() = %q, want %q", got, want)
	}
	for _, e := range Extensions() {
		if !IsDocument("x"+e) || !IsDocument("x"+strings.ToUpper(e)) || FormatOf("x"+e) == "" {
			t.Errorf("extension %s is listed but not a document", e)
		}
	}
	if !FormatMarkdown.HasFrontMatter() || FormatYAML.HasFrontMatter() || FormatText.HasFrontMatter() {
		t.Error("HasFrontMatter: only markdown has front matter")
	}
}

// outline is the (level, text, line) of each heading of name's document.
func outline(name, content string) []Heading { return ParseFile(name, []byte(content)).Outline() }

func TestOutlineRST(t *testing.T) {
	t.Parallel()
	in := `=========
The Title
=========

Intro paragraph.

Install
=======

Text.

Linux
-----

Example::

    Not a title
    -----------

.. note::

   Also not
   ========

Transition below.

----------

Mac
---

Back to install level
=====================

  Overlined, inset
  ================

Short
===

A
--
`
	want := []Heading{
		{1, "The Title", 1},
		{2, "Install", 7},
		{3, "Linux", 12},
		{3, "Mac", 29},
		{2, "Back to install level", 32},
		{3, "A", 41}, // "Short" is not a title: its underline is shorter and under four
	}
	if got := outline("a.rst", in); !reflect.DeepEqual(got, want) {
		t.Errorf("rst outline =\n%+v\nwant\n%+v", got, want)
	}
	// The overline and underline styles of one character are two levels;
	// a title must start a block.
	in = "Part\n****\n\n****\nPart two\n****\n\nChapter\n=======\n\nparagraph line\nnot a title\n===========\n"
	want = []Heading{{1, "Part", 1}, {2, "Part two", 4}, {3, "Chapter", 8}}
	if got := outline("b.RST", in); !reflect.DeepEqual(got, want) {
		t.Errorf("rst styles outline =\n%+v\nwant\n%+v", got, want)
	}
	// An overlined section starts at its overline.
	d := ParseFile("b.rst", []byte(in))
	if s, _, ok := d.Section("part two"); !ok || s.StartLine != 4 || s.EndLine != 13 {
		t.Errorf("Section(part two) = %+v, %v; want lines 4-13 (Chapter is under it)", s, ok)
	}
}

func TestOutlineAsciiDoc(t *testing.T) {
	t.Parallel()
	in := `= Document Title
Jane Doe <jane@example.com>
:toc:

Preamble.

== Section One

----
== inside a listing
----

////
== inside a comment block
////

// == a comment line

=== Sub ===

==== Deeper

[source,go]
` + "```" + `
== in a fence
` + "```" + `

====
== inside an example block
====

## Markdown style

== Two
`
	want := []Heading{
		{1, "Document Title", 1},
		{2, "Section One", 7},
		{3, "Sub", 19},
		{4, "Deeper", 21},
		{2, "Markdown style", 32},
		{2, "Two", 34},
	}
	d := ParseFile("guide.adoc", []byte(in))
	if got := d.Outline(); !reflect.DeepEqual(got, want) {
		t.Errorf("adoc outline =\n%+v\nwant\n%+v", got, want)
	}
	// The author line and attributes are metadata, the preamble prose.
	if d.Body.Kinds[1] != Comment || d.Body.Kinds[2] != Comment || d.Body.Kinds[4] != Text || d.Body.Kinds[9] != Code {
		t.Errorf("kinds of lines 2, 3, 5, 10 = %v %v %v %v; want Comment Comment Text Code", d.Body.Kinds[1], d.Body.Kinds[2], d.Body.Kinds[4], d.Body.Kinds[9])
	}
	if s, _, ok := d.Section("Section One > Sub"); !ok || s.StartLine != 19 || s.EndLine != 30 {
		t.Errorf("Section(Section One > Sub) = %+v, %v; want lines 19-30", s, ok)
	}
}

func TestOutlineText(t *testing.T) {
	t.Parallel()
	d := ParseFile("notes.txt", []byte("# Not a heading\n\nTitle\n=====\n"))
	if hs := d.Outline(); len(hs) != 0 || d.Format != FormatText || d.FrontMatter.Format != "" || len(d.Lines) != 4 {
		t.Errorf("text: outline %+v, format %q, front matter %q, %d lines; want no structure, 4 lines", hs, d.Format, d.FrontMatter.Format, len(d.Lines))
	}
	if d := ParseFile("Makefile", []byte("# x\n")); d.Format != FormatText || len(d.Outline()) != 0 {
		t.Errorf("a name that is not a document's is read as text: %q %+v", d.Format, d.Outline())
	}
}

const kepYAML = `---
title: Graceful node shutdown
kep-number: 2000
authors:
  - "@bobbypage"
  - "@mrunalp"

# The target maturity stage.
stage: beta
milestone:
  beta: "v1.21"
`

func TestOutlineYAML(t *testing.T) {
	t.Parallel()
	d := ParseFile("keps/kep.yaml", []byte(kepYAML))
	want := []Heading{{1, "title", 2}, {1, "kep-number", 3}, {1, "authors", 4}, {1, "stage", 9}, {1, "milestone", 10}}
	if got := d.Outline(); !reflect.DeepEqual(got, want) || d.Err != nil {
		t.Errorf("yaml outline =\n%+v (%v)\nwant\n%+v", got, d.Err, want)
	}
	// A YAML file starting with --- is YAML, not front matter.
	if d.FrontMatter.Format != "" || d.Format != FormatYAML {
		t.Errorf("front matter %q, format %q; want none, yaml", d.FrontMatter.Format, d.Format)
	}
	for _, c := range []struct {
		key        string
		start, end int
	}{
		{"authors", 4, 8}, // the comment before stage is the end of authors' lines
		{"milestone", 10, 11},
		{"Kep-Number", 3, 3},
	} {
		if s, _, ok := d.Section(c.key); !ok || s.StartLine != c.start || s.EndLine != c.end {
			t.Errorf("Section(%q) = %+v, %v; want lines %d-%d", c.key, s, ok, c.start, c.end)
		}
	}
	if v, n := d.Data().Value("title"), d.Data().Value("kep-number"); v != "Graceful node shutdown" || n != 2000 {
		t.Errorf("Data().Value(title), (kep-number) = %v, %v", v, n)
	}
	if v := d.Data().Value("authors"); v != nil {
		t.Errorf("Data().Value(authors) = %v, want nil for a list", v)
	}
	if v := d.Data().Value("milestone", "beta"); v != "v1.21" {
		t.Errorf("Data().Value(milestone, beta) = %v", v)
	}
	if v := ParseFile("a.yaml", []byte("base: &b {title: T}\nx: *b\n")).Data().Value("x", "title"); v != "T" {
		t.Errorf("DataValue through an alias = %v", v)
	}
	// Every document of a stream, at its line in the file.
	got := outline("all.yml", "a: 1\nb:\n  c: 2\n---\n- x\n---\nd: 3\n")
	if want := []Heading{{1, "a", 1}, {1, "b", 2}, {1, "d", 7}}; !reflect.DeepEqual(got, want) {
		t.Errorf("yaml stream outline = %+v, want %+v", got, want)
	}
	// A top-level list or scalar has no keys.
	if got := outline("l.yaml", "- a: 1\n- b: 2\n"); len(got) != 0 {
		t.Errorf("yaml list outline = %+v, want none", got)
	}
}

func TestOutlineJSON(t *testing.T) {
	t.Parallel()
	in := "{\n  \"openapi\": \"3.1.0\",\n  \"info\": {\n    \"title\": \"Pets\"\n  },\n\n  \"paths\": {\"/pets\": {}}, \"x\": [1,\n 2]\n}\n"
	d := ParseFile("api.json", []byte(in))
	want := []Heading{{1, "openapi", 2}, {1, "info", 3}, {1, "paths", 7}}
	if got := d.Outline(); !reflect.DeepEqual(got, want) || d.Err != nil {
		t.Errorf("json outline =\n%+v (%v)\nwant\n%+v (x shares paths' line)", got, d.Err, want)
	}
	if s, _, ok := d.Section("info"); !ok || s.StartLine != 3 || s.EndLine != 5 {
		t.Errorf("Section(info) = %+v, %v; want lines 3-5", s, ok)
	}
	if v := d.Data().Value("info", "title"); v != "Pets" {
		t.Errorf("Data().Value(info, title) = %v", v)
	}
	if v := d.Data().Value("info", "nope"); v != nil {
		t.Errorf("Data().Value(info, nope) = %v", v)
	}
	// An array has no keys, and no error.
	d = ParseFile("list.json", []byte("[\n  {\"a\": 1},\n  {\"b\": 2}\n]\n"))
	if hs := d.Outline(); len(hs) != 0 || d.Err != nil {
		t.Errorf("json array: %+v, %v; want no headings, no error", hs, d.Err)
	}
	if v := d.Data().Value("a"); v != nil {
		t.Errorf("json array Data().Value = %v; want nil", v)
	}
}

func TestOutlineTOML(t *testing.T) {
	t.Parallel()
	in := `name = "ctx"
edition.year = 2024

[server]
host = "localhost"
matrix = [
  [1, 2],
]
banner = """
[not.a.table]
"""

[server.tls]
cert = "x"

[[plugins]]
id = 1

[[plugins]]
id = 2
`
	want := []Heading{
		{1, "name", 1}, {1, "edition.year", 2}, {1, "server", 4},
		{1, "server.tls", 13}, {1, "plugins", 16}, {1, "plugins", 19},
	}
	d := ParseFile("Cargo.toml", []byte(in))
	if got := d.Outline(); !reflect.DeepEqual(got, want) || d.Err != nil {
		t.Errorf("toml outline =\n%+v (%v)\nwant\n%+v", got, d.Err, want)
	}
	if s, _, ok := d.Section("server"); !ok || s.StartLine != 4 || s.EndLine != 11 {
		t.Errorf("Section(server) = %+v, %v; want lines 4-11", s, ok)
	}
	if v, w := d.Data().Value("name"), d.Data().Value("server", "host"); v != "ctx" || w != "localhost" {
		t.Errorf("Data().Value(name), (server, host) = %v, %v", v, w)
	}
}

// TestDataThatDoesNotParse: a broken data file is text without headings,
// and Err says where it breaks.
func TestDataThatDoesNotParse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, want string }{
		{"bad.yaml", "a: 1\nb: [2\nc: 3\n", "invalid YAML"},
		{"tabs.yml", "a:\n\tb: 1\n", "line 2: invalid YAML"},
		{"bad.json", "{\n  \"a\": 1,\n  \"b\" 2\n}\n", "line 3: invalid JSON"},
		{"trailing.json", "{\"a\": 1}\n{\"b\": 2}\n", "line 2: invalid JSON"},
		{"bad.toml", "a = 1\n[t\nb = 2\n", "line 2: invalid TOML"},
	} {
		d := ParseFile(c.name, []byte(c.in))
		if d.Err == nil || !strings.Contains(d.Err.Error(), c.want) || len(d.Outline()) != 0 {
			t.Errorf("%s: err %v, outline %+v; want %q and no headings", c.name, d.Err, d.Outline(), c.want)
		}
		if len(d.Lines) != strings.Count(c.in, "\n") {
			t.Errorf("%s: %d lines", c.name, len(d.Lines))
		}
		if v := d.Data().Value("a"); v != nil {
			t.Errorf("%s: Data().Value(a) = %v, want nil", c.name, v)
		}
	}
}

func FuzzParseFile(f *testing.F) {
	for _, s := range []string{
		kepYAML, "{\"a\": {\"b\": [1, 2]}, \"c\": 3}", "[1, 2]", "a = 1\n[t]\nb = 2\n[[u]]\n",
		"Title\n=====\n\n----\nSub\n----\n", "= T\n\n== S\n----\n== x\n----\n", "- a\n- b\n", "&a [*a, *a]",
		"a: &x {b: 1}\nc: *x\n", "\xff\xfe", "{\"a\":1}garbage",
		// rst: a directive's head over lines, escapes, "::", a footnote
		".. note:: see :ref:`the\n   long <x>` here\n\n.. [#] A `b\n   <c>`_\n\nPara\\ *x*\\ \\`::\n\n   code\n\n::\n\n  lit\n",
		// rst: enumerated lists (the next enumerator decides), a head's
		// literal block, a hidden toctree's caption
		"1. a\n3. b\n\nh. a\ni. b\nj. c\n\n(#) x\n(#) y\n\n.. note:: E::\n\n      c\n   t\n\n.. toctree::\n   :caption: C\n   :hidden:\n\n   x\n",
		// rst: content at once after (and on) a no-argument directive's
		// marker, fields and options on items' marker lines, tabs after
		// options, terms ending in "::", markup inside a paragraph
		".. note::\n   1. a\n   2. b\n.. tip:: - :a: x\n     y\n\n- :p: q\n  r\n* -v\tw\n\n-v\tx\n\ta::\n\t   b\n\npara\n.. note:: x\n>>> y\n\n| a::\n\n   c\n",
		// MDX: JSX tags with ">" in their attributes
		"## A <B t=\"a > b\" c={x > 1 ? `>` : {y: '}'}} d={<E f=\">\" />}/> z\n\n# <C {\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, name := range []string{"f.yaml", "f.json", "f.toml", "f.rst", "f.adoc", "f.txt", "f.mdx", "f.md"} {
			d := ParseFile(name, []byte(s))
			if name == "f.rst" {
				if len(d.RST()) != len(d.Lines) {
					t.Fatalf("%s: %d rst lines for %d lines", name, len(d.RST()), len(d.Lines))
				}
				for i, l := range d.RST() {
					if strings.Contains(l.Shown, "\n") {
						t.Fatalf("%s: line %d shown over lines: %q", name, i+1, l.Shown)
					}
					if l.Item != "" && !strings.HasPrefix(strings.TrimSpace(l.Shown), l.Item) {
						t.Fatalf("%s: line %d's item marker %q does not start its shown text %q", name, i+1, l.Item, l.Shown)
					}
				}
			}
			last := 0
			for _, h := range d.Outline() {
				if h.Line < 1 || h.Line > len(d.Lines) || h.Line < last || h.Level < 1 || h.Level > 6 {
					t.Fatalf("%s: heading %+v out of order or range (%d lines)", name, h, len(d.Lines))
				}
				last = h.Line
			}
			// Body is the structure of the lines after the front matter
			// (Doc.Body; a markdown file's: "---⏎---" is an empty front
			// matter and no body, which the check of every line read as
			// a crash).
			if fm := d.FrontMatter.End; fm < 0 || fm > len(d.Lines) || len(d.Body.Kinds) != len(d.Lines)-fm {
				t.Fatalf("%s: %d kinds for %d lines after front matter ending at %d", name, len(d.Body.Kinds), len(d.Lines), fm)
			}
			_ = d.Data().Value("a", "b")
		}
	})
}

// TestOutlineAsciiDocTwoLine: Asciidoctor's two-line (setext) section
// titles, as git's documentation writes every page: a title line
// underlined with one repeated character of = - ~ ^ + (levels 0 to 4,
// here 1 to 5), the underline's length within one of the title's, at a
// block's start and outside delimited blocks. The underline is not a
// listing (----) or example (====) delimiter then.
func TestOutlineAsciiDocTwoLine(t *testing.T) {
	t.Parallel()
	in := `git-add(1)
==========

NAME
----
git-add - Add file contents to the index

SYNOPSIS
--------
[verse]
'git add' [--verbose | -v]

[[options]]
OPTIONS
-------
Some text.
----
a listing, not a title: the line above is not a block's start
----

Sub Section
~~~~~~~~~~~

Too short
----
listed

.Block title
------------
`
	want := []Heading{
		{1, "git-add(1)", 1},
		{2, "NAME", 4},
		{2, "SYNOPSIS", 8},
		{2, "OPTIONS", 14},
		{3, "Sub Section", 21},
	}
	d := ParseFile("git-add.adoc", []byte(in))
	if got := d.Outline(); !reflect.DeepEqual(got, want) {
		t.Errorf("adoc outline =\n%+v\nwant\n%+v", got, want)
	}
	// Underlines are markup; the text after NAME is prose, the lines
	// inside the listing are code; "[[options]]" (a block anchor) is markup.
	for _, c := range []struct {
		line int
		kind Kind
	}{{2, HeadingCont}, {5, HeadingCont}, {6, Text}, {13, Comment}, {18, Code}} {
		if got := d.Body.Kinds[c.line-1]; got != c.kind {
			t.Errorf("line %d: kind %v, want %v", c.line, got, c.kind)
		}
	}
}

// TestAsciiDocSetextEdges: a one-line title is read before a two-line one
// (Asciidoctor's is_section_title?), so "== Usage" over a listing's
// delimiter is a title and the listing closes; a line right after prose is
// not a block's start, so a delimiter under it opens a listing; the
// underline is the title's length ±1.
func TestAsciiDocSetextEdges(t *testing.T) {
	t.Parallel()
	in := `== Usage
--------
$ tool run
--------

== Next

Prose here.
Text
----
listed
----

Title
----

Short
---
`
	want := []Heading{{2, "Usage", 1}, {2, "Next", 6}, {2, "Title", 14}}
	d := ParseFile("edges.adoc", []byte(in))
	if got := d.Outline(); !reflect.DeepEqual(got, want) {
		t.Errorf("adoc outline =\n%+v\nwant\n%+v", got, want)
	}
	for _, c := range []struct {
		line int
		kind Kind
	}{{3, Code}, {8, Text}, {11, Code}, {17, Text}} {
		if got := d.Body.Kinds[c.line-1]; got != c.kind {
			t.Errorf("line %d: kind %v, want %v", c.line, got, c.kind)
		}
	}
}
