package indexer

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/indexer/markdown"
)

func TestParseMarkdown(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string
		in      string
		title   string
		summary string
		tags    []string
		typ     string
		warn    string // substring of the one expected warning ("" = none)
	}{
		{
			name:    "yaml front matter",
			in:      "---\ntitle: Deploying\ndescription: How we deploy.\ntags: [ops, CI]\ntype: runbook\n---\n# Ignored H1\n\nBody.\n",
			title:   "Deploying",
			summary: "How we deploy.",
			tags:    []string{"ci", "ops"},
			typ:     "runbook",
		},
		{
			name:    "yaml summary wins over description, tags as string",
			in:      "---\ntitle: T\nsummary: S.\ndescription: D.\ntags: a, b ,a\n---\ntext\n",
			title:   "T",
			summary: "S.",
			tags:    []string{"a", "b"},
		},
		{
			name:    "toml front matter",
			in:      "+++\ntitle = \"Tom\"\nsummary = \"From TOML.\"\ntags = [\"x\"]\n+++\n\nBody here.\n",
			title:   "Tom",
			summary: "From TOML.",
			tags:    []string{"x"},
		},
		{
			name:    "json front matter",
			in:      "{\n  \"title\": \"Jay\",\n  \"tags\": [\"j\"],\n  \"type\": \"adr\"\n}\n# Heading\n\nFirst paragraph.\n",
			title:   "Jay",
			summary: "First paragraph.",
			tags:    []string{"j"},
			typ:     "adr",
		},
		{
			name:    "broken yaml warns with file line, body still used",
			file:    "pkg/doc.md",
			in:      "---\ntitle: ok\ntags: [a, b\nfoo: bar\n---\n# Real Title\n\nThe body.\n",
			title:   "Real Title",
			summary: "The body.",
			warn:    "pkg/doc.md:",
		},
		{
			name:    "broken toml",
			in:      "+++\ntitle = \n+++\n# H\n\nP.\n",
			title:   "H",
			summary: "P.",
			warn:    "invalid TOML front matter",
		},
		{
			name:    "broken json",
			in:      "{\n\"title\": \"x\",,\n}\n# H\n\nP.\n",
			title:   "H",
			summary: "P.",
			warn:    "invalid JSON front matter",
		},
		{
			name:    "unclosed yaml front matter",
			in:      "---\ntitle: x\n\n# H\n\nP.\n",
			title:   "H",
			summary: "title: x", // the whole file is body: --- is a rule, then a paragraph
			warn:    ":1: front matter opened with --- but never closed",
		},
		{
			name:    "leading thematic break is not front matter",
			in:      "---\n\n# H\n\nP.\n",
			title:   "H",
			summary: "P.",
		},
		{
			name:    "title from the first heading, an H2 before the H1 (issue 26)",
			in:      "## Second\n\n# First\n\nText.\n",
			title:   "Second",
			summary: "Text.",
		},
		{
			name:    "title from file name",
			file:    "dir/getting-started.md",
			in:      "Just text, no heading.\n",
			title:   "getting-started",
			summary: "Just text, no heading.",
		},
		{
			name:    "empty file",
			file:    "empty.md",
			in:      "",
			title:   "empty",
			summary: "",
		},
		{
			name:    "CRLF and BOM",
			in:      "\xef\xbb\xbf---\r\ntitle: Win\r\n---\r\n# H\r\n\r\nLine one\r\nline two.\r\n",
			title:   "Win",
			summary: "Line one line two.",
		},
		{
			name:    "invalid UTF-8 replaced",
			in:      "# Bad \xff byte\n\nText \xfe here.\n",
			title:   "Bad \uFFFD byte",
			summary: "Text \uFFFD here.",
		},
		{
			name:    "setext headings",
			in:      "Main Title\n==========\n\nSub\n---\n\nPara.\n",
			title:   "Main Title",
			summary: "Para.",
		},
		{
			name:    "hash lines inside fences are not headings",
			in:      "```sh\n# not a title\n```\n~~~\n# nor this\n~~~\n\nReal para.\n",
			title:   "x",
			file:    "x.md",
			summary: "Real para.",
		},
		{
			name:    "headings inside HTML comments are not headings",
			file:    "c.md",
			in:      "<!--\n# Template title\n-->\n\nHello.\n",
			title:   "c",
			summary: "Hello.",
		},
		{
			name:    "tldr style blockquote summary",
			in:      "# tar\n\n> Archiving utility.\n> More information: <https://www.gnu.org/software/tar>.\n\n- Create an archive:\n\n`tar cf a.tar b`\n",
			title:   "tar",
			summary: "Archiving utility. More information: https://www.gnu.org/software/tar.",
		},
		{
			name:    "summary skips badges, html and tags line; links keep text",
			in:      "# P\n\n[![ci](https://x/badge.svg)](https://x)\n<div>x</div>\nTags: Alpha, beta\n\nUse [the tool](https://t) **now**.\n",
			title:   "P",
			summary: "Use the tool now.",
			tags:    []string{"alpha", "beta"},
		},
		{
			name:    "front matter tags win over inline",
			in:      "---\ntags: [fm]\n---\nTags: inline\n\nText.\n",
			file:    "t.md",
			title:   "t",
			summary: "Text.",
			tags:    []string{"fm"},
		},
		{
			name:    "inline tags inside code are ignored",
			in:      "# T\n\n```\nTags: no\n```\n\nText.\n",
			title:   "T",
			summary: "Text.",
		},
		{
			name:    "summary from a Summary section, past toc and checklists",
			in:      "# KEP-1\n\n- [Summary](#summary)\n- [ ] (R) Enhancement issue\n\n## Release checklist\n\n- [x] done\n\n## Summary\n\nThe real summary.\n\n## Motivation\n\nWhy.\n",
			title:   "KEP-1",
			summary: "The real summary.",
		},
		{
			name:    "navigation links are not a summary",
			in:      "# Book\n\n[Foreword](foreword.md)\n[Introduction](intro.md)\n\nWelcome to the book.\n",
			title:   "Book",
			summary: "Welcome to the book.",
		},
		{
			name:    "empty Summary section falls back to the first paragraph",
			in:      "# D\n\nIntro text.\n\n## Summary\n\n## Next\n\nMore.\n",
			title:   "D",
			summary: "Intro text.",
		},
		{
			name:    "closing hashes removed",
			in:      "# Title ##\n\nx\n",
			title:   "Title",
			summary: "x",
		},
		{
			name:    "the first heading of any level is the title (issue 26)",
			file:    "ch15-02-deref.md",
			in:      "## Treating Smart Pointers Like Regular References\n\nx\n\n# Later H1\n\ny\n",
			title:   "Treating Smart Pointers Like Regular References",
			summary: "x",
		},
		{
			name:    "heading-ID markers are not in the title",
			in:      "## Usage {/*usage*/}\n\nx\n",
			title:   "Usage",
			summary: "x",
		},
		{
			name:    "attr_list id is not in the title",
			in:      "# First Steps { #first-steps }\n\nx\n",
			title:   "First Steps",
			summary: "x",
		},
		{
			name:    "HashiCorp anchor aliases are not in the title",
			file:    "api-docs/agent/check.mdx",
			in:      "## Register Check ((#register-check))\n\nx\n",
			title:   "Register Check",
			summary: "x",
		},
		{
			name:    "page_title when the first heading is not an H1 (HashiCorp)",
			file:    "security/security-models/core.mdx",
			in:      "---\npage_title: Security Models - Consul\ndescription: How Consul is secured.\n---\n\n## Overview\n\nx\n",
			title:   "Security Models - Consul",
			summary: "How Consul is secured.",
		},
		{
			name:    "page_title when there is no heading",
			file:    "docs/x.mdx",
			in:      "---\npage_title: Some Page\n---\n\nx\n",
			title:   "Some Page",
			summary: "x",
		},
		{
			name:    "an H1 wins over page_title",
			file:    "cli/import/usage.mdx",
			in:      "---\npage_title: 'Import: Usage'\n---\n\n# Import Usage\n\nx\n",
			title:   "Import Usage",
			summary: "x",
		},
		{
			name:    "title wins over page_title",
			in:      "---\ntitle: The Title\npage_title: Page Title\n---\n\n## Section\n\nx\n",
			title:   "The Title",
			summary: "x",
		},
		{
			name:    "MDX export const title when there is no heading",
			file:    "learn/thinking.mdx",
			in:      "export const title = \"Thinking in React\";\n\nx\n",
			title:   "Thinking in React",
			summary: "export const title = \"Thinking in React\";",
		},
		{
			name:    "a heading wins over an MDX export",
			in:      "export const title = 'Exported'\n\n### The Heading\n\nx\n",
			title:   "The Heading",
			summary: "export const title = 'Exported'",
		},
		{
			name:    "no heading, no export: the file name",
			file:    "docs/plain-notes.md",
			in:      "Just text.\n",
			title:   "plain-notes",
			summary: "Just text.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := tt.file
			if file == "" {
				file = "doc.md"
			}
			var warns []string
			p := parseMarkdown(file, []byte(tt.in), func(s string) { warns = append(warns, s) })
			if p.Title != tt.title {
				t.Errorf("title = %q, want %q", p.Title, tt.title)
			}
			if p.Summary != tt.summary {
				t.Errorf("summary = %q, want %q", p.Summary, tt.summary)
			}
			if !reflect.DeepEqual(p.Tags, tt.tags) {
				t.Errorf("tags = %q, want %q", p.Tags, tt.tags)
			}
			if p.Type != tt.typ {
				t.Errorf("type = %q, want %q", p.Type, tt.typ)
			}
			switch {
			case tt.warn == "" && len(warns) > 0:
				t.Errorf("unexpected warnings %q", warns)
			case tt.warn != "" && (len(warns) != 1 || !strings.Contains(warns[0], tt.warn)):
				t.Errorf("warnings = %q, want one containing %q", warns, tt.warn)
			}
			checkCoverage(t, tt.in, p.Chunks)
		})
	}
}

func TestBrokenYAMLLineNumber(t *testing.T) {
	t.Parallel()
	in := "---\ntitle: ok\nlist:\n  - a\n bad: indent\n---\nbody\n"
	var warns []string
	parseMarkdown("a.md", []byte(in), func(s string) { warns = append(warns, s) })
	if len(warns) != 1 {
		t.Fatalf("warnings = %q, want 1", warns)
	}
	// The YAML error is on the 5th line of the file (" bad: indent") or
	// the line yaml reports near it; it must be a file line, past the ---.
	if !strings.HasPrefix(warns[0], "a.md:") || strings.HasPrefix(warns[0], "a.md:1:") {
		t.Errorf("warning %q: want a.md:<line in the block>", warns[0])
	}
}

func TestChunkTrailsAndLines(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 40) // 200 bytes: more than markdown.MinSectionBytes
	in := "# Guide\n\nIntro " + long + "\n\n## Install\n\n" + long + "\n\n### On Linux\n\n" + long + "\n\n#### Deep\n\n" + long + "\n\n## Use\n\n" + long + long + "\n"
	p := parseMarkdown("g.md", []byte(in), nil)
	type c struct {
		trail      string
		start, end int
	}
	var got []c
	for _, ch := range p.Chunks {
		got = append(got, c{strings.Join(ch.Trail, " > "), ch.Start, ch.End})
	}
	want := []c{
		{"Guide", 1, 3},
		{"Guide > Install", 5, 7},
		{"Guide > Install > On Linux", 9, 15}, // H4 stays inside
		{"Guide > Use", 17, 19},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chunks =\n%+v\nwant\n%+v", got, want)
	}
}

func TestChunkSmallSectionsMerge(t *testing.T) {
	t.Parallel()
	in := "# KEP-1: Thing\n\n## Summary\n\nShort.\n\n## Motivation\n\n" + strings.Repeat("Because reasons. ", 20) + "\n\n## Drawbacks\n\n<!--\nTemplate text.\n-->\n"
	p := parseMarkdown("k.md", []byte(in), nil)
	if len(p.Chunks) != 1 {
		for _, c := range p.Chunks {
			t.Logf("%v %d-%d", c.Trail, c.Start, c.End)
		}
		t.Fatalf("got %d chunks, want 1 (title and the short summary join Motivation, named for Motivation, which holds its text; the empty last section joins it too)", len(p.Chunks))
	}
	c := p.Chunks[0]
	if c.Start != 1 || c.End != 15 || strings.Join(c.Trail, " > ") != "KEP-1: Thing > Motivation" {
		t.Errorf("chunk = %v %d-%d", c.Trail, c.Start, c.End)
	}
}

func TestChunkSplitsLongSections(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("# Big\n\n")
	for i := 0; i < 60; i++ {
		b.WriteString(strings.Repeat("lorem ipsum dolor ", 8))
		b.WriteString("\n\n")
	}
	b.WriteString("```\n" + strings.Repeat("code line inside a fence\n", 300) + "```\n")
	b.WriteString(strings.Repeat("x", 9000) + "\n") // one line over the cap is cut in three
	in := b.String()
	p := parseMarkdown("big.md", []byte(in), nil)
	if len(p.Chunks) < 4 {
		t.Fatalf("got %d chunks, want the section split", len(p.Chunks))
	}
	pieces := 0
	for i, c := range p.Chunks {
		if len(c.Text) > markdown.MaxChunkBytes {
			t.Errorf("chunk %d is %d bytes (cap %d)", i, len(c.Text), markdown.MaxChunkBytes)
		}
		if strings.Join(c.Trail, ">") != "Big" {
			t.Errorf("chunk %d trail %q, want Big", i, c.Trail)
		}
		if c.Start == 425 {
			pieces++
			if c.End != 425 || len(c.Text) != 3000 {
				t.Errorf("piece %d of the long line: lines %d-%d, %d bytes; want line 425, 3000 bytes", pieces, c.Start, c.End, len(c.Text))
			}
		} else if i > 0 && c.Start <= p.Chunks[i-1].End {
			t.Errorf("chunk %d starts at %d, before the previous end %d", i, c.Start, p.Chunks[i-1].End)
		}
	}
	if pieces != 3 {
		t.Errorf("the 9,000-byte line is in %d chunks, want 3 of 3,000 bytes", pieces)
	}
	checkCoverage(t, in, p.Chunks)
}

// checkCoverage asserts that the chunks, in order, hold every non-blank
// body line of in exactly once, and that their line ranges are right.
// Pieces of one long chunk (boundChunks: their ranges overlap) are joined
// first.
func checkCoverage(t *testing.T, in string, chunks []chunk) {
	t.Helper()
	checkDocCoverage(t, markdown.Parse([]byte(in)), chunks)
}

// checkDocCoverage is checkCoverage on a parsed document of any format.
func checkDocCoverage(t *testing.T, d markdown.Doc, chunks []chunk) {
	t.Helper()
	var joined []chunk
	for _, c := range chunks {
		if n := len(joined); n > 0 && c.Start <= joined[n-1].End {
			prev := &joined[n-1]
			if !strings.HasSuffix(prev.Text, "\n") && c.Start != prev.End {
				t.Fatalf("chunk %d-%d overlaps the previous %d-%d", c.Start, c.End, prev.Start, prev.End)
			}
			prev.Text += c.Text
			prev.End = max(prev.End, c.End)
			continue
		}
		joined = append(joined, c)
	}
	chunks = joined
	lines, start := d.Lines, d.FrontMatter.End
	var want []string
	for _, l := range lines[start:] {
		if strings.TrimSpace(l) != "" {
			want = append(want, l)
		}
	}
	var got []string
	for _, c := range chunks {
		if c.Start < 1 || c.End < c.Start || c.End > len(lines) {
			t.Fatalf("chunk lines %d-%d out of range (file has %d lines)", c.Start, c.End, len(lines))
		}
		if c.Text != strings.Join(lines[c.Start-1:c.End], "\n") {
			t.Fatalf("chunk %d-%d text does not match its lines", c.Start, c.End)
		}
		for _, l := range strings.Split(c.Text, "\n") {
			if strings.TrimSpace(l) != "" {
				got = append(got, l)
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("chunks lost or duplicated text:\n got %d non-blank lines\nwant %d", len(got), len(want))
	}
}

func FuzzParseMarkdown(f *testing.F) {
	for _, s := range []string{
		"---\ntitle: a\ntags: [x]\n---\n# H\n\ntext\n",
		"+++\ntitle = 'a'\n+++\nbody",
		"{\n\"title\": 1\n}\n",
		"A\n===\nB\n---\n```\n# c\n```\n~~~\n~~~\n",
		"\xef\xbb\xbf# x\r\n\r\n\xff\n",
		"<!--\n# a\n-->\n## b ##\n",
		"---\n: [\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		p := parseMarkdown("f.md", in, func(w string) {
			if !strings.HasPrefix(w, "f.md:") {
				t.Errorf("warning without file:line: %q", w)
			}
		})
		if p.Title == "" {
			t.Errorf("empty title")
		}
		checkCoverage(t, string(in), p.Chunks)
		for _, c := range p.Chunks {
			if len(c.Text) > markdown.MaxChunkBytes && strings.Contains(strings.TrimSpace(c.Text), "\n") {
				// Over the cap only when one line alone is over it.
				longLine := false
				for _, l := range strings.Split(c.Text, "\n") {
					longLine = longLine || len(l) > markdown.MaxChunkBytes
				}
				if !longLine {
					t.Errorf("chunk %d-%d is %d bytes, over the cap", c.Start, c.End, len(c.Text))
				}
			}
		}
		for _, h := range markdown.Parse(in).Outline() {
			if h.Level < 1 || h.Level > 6 || h.Line < 1 {
				t.Errorf("bad heading %+v", h)
			}
		}
	})
}

func FuzzFrontMatter(f *testing.F) {
	for _, s := range []string{
		"title: a\ntags: [x, y]\n", "title: [\n", "tags: {a: b}\n", "summary: 3\n", ": :\n",
	} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, block string, kind uint8) {
		var in string
		switch kind % 3 {
		case 0:
			in = "---\n" + block + "\n---\nbody\n"
		case 1:
			in = "+++\n" + block + "\n+++\nbody\n"
		default:
			in = "{\n" + block + "\n}\nbody\n"
		}
		p := parseMarkdown("fm.md", []byte(in), func(w string) {
			if !strings.HasPrefix(w, "fm.md:") {
				t.Errorf("warning without file:line: %q", w)
			}
		})
		checkCoverage(t, in, p.Chunks)
	})
}

// TestTagBounds: a document's tags are bounded (maxTagsPerDoc, the first
// ones in the document's order; none longer than maxTagBytes), in front
// matter and in a Tags: line, since every chunk stores them and every hit
// shows them.
func TestTagBounds(t *testing.T) {
	var many []string
	for i := range 3 * maxTagsPerDoc {
		many = append(many, fmt.Sprintf("z%04d", 3*maxTagsPerDoc-i)) // written in reverse order
	}
	long := strings.Repeat("x", maxTagBytes+1)
	for name, in := range map[string]string{
		"front matter list":   "---\ntags: [" + long + ", " + strings.Join(many, ", ") + "]\nkeywords: [kw]\n---\n# T\n\nText.\n",
		"front matter string": "---\ntags: \"" + long + ", " + strings.Join(many, ", ") + "\"\n---\n# T\n\nText.\n",
		"inline line":         "# T\n\nTags: " + long + ", " + strings.Join(many, ", ") + "\n\nText.\n",
	} {
		t.Run(name, func(t *testing.T) {
			p := parseMarkdown("doc.md", []byte(in), nil)
			if len(p.Tags) != maxTagsPerDoc {
				t.Fatalf("%d tags, want %d", len(p.Tags), maxTagsPerDoc)
			}
			want := slices.Clone(many[:maxTagsPerDoc]) // the first ones written, not the first sorted
			slices.Sort(want)
			if !slices.Equal(p.Tags, want) {
				t.Errorf("tags %v..., want %v...", p.Tags[:3], want[:3])
			}
		})
	}
	p := parseMarkdown("doc.md", []byte("---\ntags: [a]\nkeywords: [b, a]\n---\nText.\n"), nil)
	if !slices.Equal(p.Tags, []string{"a", "b"}) {
		t.Errorf("tags and keywords: %v, want [a b]", p.Tags)
	}
}

// TestTitleClipped: a document's title, from front matter or its first
// heading, is at most markdown.MaxHeadingBytes (and the mark): it leads
// every chunk's heading field and INDEX.md's lines.
func TestTitleClipped(t *testing.T) {
	long := strings.Repeat("long title ", 50_000)
	for _, in := range []string{"---\ntitle: " + long + "\n---\nText.\n", "# " + long + "\n\nText.\n"} {
		p := parseMarkdown("doc.md", []byte(in), nil)
		if n := len(p.Title); n > markdown.MaxHeadingBytes+len("…") || !strings.HasPrefix(p.Title, "long title") {
			t.Errorf("title of %d bytes (%.20q…)", n, p.Title)
		}
	}
}

// TestJSXMarkupNotIndexed: in an MDX page, the prose inside components is
// text; the components' tags, imports and exports are not words of the
// page (issue 27).
func TestJSXMarkupNotIndexed(t *testing.T) {
	t.Parallel()
	in := "---\ntitle: useState\n---\nimport { Sandpack } from '@site/components';\nexport const meta = {a: 1};\n\n<Intro>\n\n`useState` lets you add a state variable to your component.\n\n</Intro>\n\n<InlineToc />\n\n## Usage {/*usage*/}\n\n<Recipes titleText=\"Basic counter examples\" titleId=\"examples-basic\" note='two words'>\n\n<Note>Keep the setter stable.</Note>\n\n<Sandpack>\n\n```js\nimport { useState } from 'react';\n```\n\n</Sandpack>\n\n</Recipes>\n\n<details>\n"
	p := parseMarkdown("reference/usestate.mdx", []byte(in), nil)
	var all strings.Builder
	for _, c := range p.Chunks {
		text, _, _ := searchText(p.Title, c, "")
		all.WriteString(text + "\n")
	}
	text := all.String()
	for _, want := range []string{"lets you add a state variable", "Basic counter examples two words", "<Note>Keep the setter stable.</Note>", "import { useState } from 'react';", "<details>"} {
		if !strings.Contains(text, want) {
			t.Errorf("indexed text lacks %q:\n%s", want, text)
		}
	}
	for _, gone := range []string{"Intro", "InlineToc", "Sandpack }", "<Sandpack>", "Recipes", "examples-basic", "titleId", "export const meta", "@site/components"} {
		if strings.Contains(text, gone) {
			t.Errorf("indexed text has %q:\n%s", gone, text)
		}
	}
	if p.Title != "useState" {
		t.Errorf("title = %q", p.Title)
	}
	checkCoverage(t, in, p.Chunks)
}

// TestJSXMultiLineTagNotIndexed: a component's opening tag whose props
// span lines (MDX is JSX: an element's attributes may be on lines of
// their own, as Consul's and Docusaurus' pages write them) and a
// multi-line import are markup too; a prop of several words stays, as on
// one line.
func TestJSXMultiLineTagNotIndexed(t *testing.T) {
	t.Parallel()
	in := "# Mesh\n\nimport {\n  Tabs,\n  TabItem,\n} from '@theme/Tabs';\n\nThe zebra mesh prose.\n\n<CodeTabs\n  heading=\"Two zebra words\"\n  keys={[\n    { a: 'zkey', label: 'Zebra (AWS Neptune)' },\n  ]}\n  onClick={() => zfn()}\n>\n\nInside the tabs, zprose.\n\n</CodeTabs>\n\n<iframe\n  src=\"https://zurl.example/x\"\n/>\n"
	p := parseMarkdown("docs/mesh.mdx", []byte(in), nil)
	var all strings.Builder
	for _, c := range p.Chunks {
		all.WriteString(c.body() + "\n")
	}
	text := all.String()
	for _, want := range []string{"The zebra mesh prose.", "Two zebra words", "Zebra (AWS Neptune)", "Inside the tabs, zprose."} {
		if !strings.Contains(text, want) {
			t.Errorf("indexed text lacks %q:\n%s", want, text)
		}
	}
	for _, gone := range []string{"CodeTabs", "zkey", "zfn", "keys=", "TabItem", "@theme", "heading="} {
		if strings.Contains(text, gone) {
			t.Errorf("indexed text has %q:\n%s", gone, text)
		}
	}
	checkCoverage(t, in, p.Chunks)
}

// TestJSXMultiLineTagReadAsJSX: a tag over several lines is read by the
// reader of an MDX heading's tags (markdown.JSXTagEnd), as JSX reads it:
// a string attribute may span lines, and a ">" in it does not end the
// tag (read line by line, the tag seemed to end on its third line, with
// text after it, so it was not taken for markup).
func TestJSXMultiLineTagReadAsJSX(t *testing.T) {
	t.Parallel()
	in := "# Mesh\n\n<Zcallout\n  title='a \"quoted\n  > zword'\n  kind=\"znote\"\n>\n\nThe zebra prose.\n\n</Zcallout>\n"
	p := parseMarkdown("docs/mesh.mdx", []byte(in), nil)
	var all strings.Builder
	for _, c := range p.Chunks {
		all.WriteString(c.body() + "\n")
	}
	text := all.String()
	if !strings.Contains(text, "The zebra prose.") {
		t.Errorf("indexed text lacks the prose:\n%s", text)
	}
	for _, gone := range []string{"Zcallout", "znote", "kind="} {
		if strings.Contains(text, gone) {
			t.Errorf("indexed text has %q:\n%s", gone, text)
		}
	}
	checkCoverage(t, in, p.Chunks)
}

// TestJSXMarkupOnlyChunkIndexesNothing: a chunk that is only markup (an
// MDX page of one component) indexes no body, rather than its markup
// (chunk.masked with an empty indexed text).
func TestJSXMarkupOnlyChunkIndexesNothing(t *testing.T) {
	t.Parallel()
	in := "<Zquux />\n"
	p := parseMarkdown("docs/page.mdx", []byte(in), nil)
	found := false
	for _, c := range p.Chunks {
		if strings.Contains(c.Text, "Zquux") {
			found = true
			if b := c.body(); strings.TrimSpace(b) != "" {
				t.Errorf("a chunk of markup only indexes %q, want nothing", b)
			}
		}
	}
	if !found {
		t.Fatalf("no chunk holds the markup: %+v", p.Chunks)
	}
	checkCoverage(t, in, p.Chunks)
}
