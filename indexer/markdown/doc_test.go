package markdown

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/fstest"
)

func TestOutline(t *testing.T) {
	t.Parallel()
	in := "---\ntitle: x\n---\n# One\n\ntext\n\n```\n# fenced\n```\n\nTwo\n===\n\n## Three ##\n\n  ### Four\n\n    # indented code\n\n####### seven\n#no-space\n~~~~\n## in tilde\n~~~~\nPara\nover two\n---\n"
	got := Parse([]byte(in)).Outline()
	want := []Heading{
		{1, "One", 4},
		{1, "Two", 12},
		{2, "Three", 15},
		{3, "Four", 17},
		{2, "Para over two", 26},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Outline =\n%+v\nwant\n%+v", got, want)
	}
}

func TestOutlineUnclosedFence(t *testing.T) {
	t.Parallel()
	got := Parse([]byte("# A\n```\n# B\n")).Outline()
	if len(got) != 1 || got[0].Text != "A" {
		t.Errorf("Outline = %+v, want only A (an unclosed fence runs to the end)", got)
	}
}

func TestSection(t *testing.T) {
	t.Parallel()
	const long = " and enough words after it to make a chunk of its own"
	d := Parse([]byte("---\nt: x\n---\n# Setup\n\n## Linux\n\n### Install\n\napt" + long + "\n\n## Mac\n\n### Install\n\nbrew" + long + "\n\n\n## a > b\n\nodd" + long + "\n\n## [Link](x)\n\nl" + long + "\n"))
	for _, c := range []struct {
		q          string
		start, end int
		ok         bool
	}{
		{"install", 8, 10, true},                 // first match
		{"Setup > Mac > Install", 12, 16, true},  // full trail: with the near-empty Mac that joined its chunk
		{"mac>install", 14, 16, true},            // a suffix of the trail, spacing ignored
		{"Elsewhere > Install", 8, 10, true},     // unknown parents: the last part
		{"Setup > Linux > Install", 4, 10, true}, // full trail: with the near-empty Setup and Linux
		{"## A > B", 19, 21, true},               // a heading that holds ">" itself
		{"Setup > link", 23, 25, true},           // the Plain text of a link heading
		{"  *LINUX* ", 6, 10, true},              // emphasis, case and space ignored
		{"Windows", 0, 0, false},
	} {
		s, hs, ok := d.Section(c.q)
		if ok != c.ok || s.StartLine != c.start || s.EndLine != c.end {
			t.Errorf("Section(%q) = %+v, %v; want lines %d-%d, %v", c.q, s, ok, c.start, c.end, c.ok)
		}
		if len(hs) != 7 {
			t.Errorf("Section(%q): outline has %d headings, want 7", c.q, len(hs))
		}
	}
}

// TestSections checks that every heading's section is the one Section
// finds for its trail, nested sections included.
func TestSections(t *testing.T) {
	t.Parallel()
	d := Parse([]byte("---\nt: x\n---\n# Setup\n\n## Linux\n\n### Install\n\napt\n\n## Mac\n\n### Install\n\nbrew\n\n\nEnd\n===\n"))
	got := d.Sections()
	want := []Section{
		{"Setup", 1, 4, 16}, // the blank lines before End left out
		{"Linux", 2, 6, 10},
		{"Install", 3, 8, 10},
		{"Mac", 2, 12, 16},
		{"Install", 3, 14, 16},
		{"End", 1, 19, 20}, // setext: from its text line
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Sections =\n%+v\nwant\n%+v", got, want)
	}
	// Opened by its trail, a section may also take in the chunks named for
	// its heading (Section's doc), so it holds the one of Sections.
	for i, q := range []string{"Setup", "Setup > Linux", "Setup > Linux > Install", "Setup > Mac", "Setup > Mac > Install", "End"} {
		s, _, ok := d.Section(q)
		if w := want[i]; !ok || s.Heading != w.Heading || s.Level != w.Level || s.StartLine > w.StartLine || s.EndLine < w.EndLine {
			t.Errorf("Section(%q) = %+v, %v: does not hold Sections' %+v", q, s, ok, w)
		}
	}
	if n := len(Parse([]byte("no headings\n")).Sections()); n != 0 {
		t.Errorf("Sections of a document without headings: %d, want 0", n)
	}
}

func TestLines(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		"":                   nil,
		"\n":                 {""},
		"a":                  {"a"},
		"a\n":                {"a"},
		"a\rb\r\nc\n\n":      {"a", "b", "c", ""},
		"\xef\xbb\xbfx\r":    {"x"},
		"\xff\r\r":           {"\uFFFD", ""},
		"a\n\xef\xbb\xbfb\n": {"a", "\ufeffb"}, // only a leading mark is dropped
	} {
		if got := Lines([]byte(in)); !reflect.DeepEqual(got, want) {
			t.Errorf("Lines(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsDocument(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		"a.md": true, "d/B.MarkDown": true, "x.mdx": true, "a.html": false, "md": false, "yaml": false,
		"a.txt": true, "b.RST": true, "c.adoc": true, "kep.yaml": true, "d.yml": true, "e.JSON": true, "f.toml": true,
		".hidden.md": false, "docs/.git/x.md": false, ".github/README.md": false, "a.md/b.html": false,
		".github/workflows/ci.yml": false, "docs/.hidden.yaml": false, "a.json.bak": false, "x.yaml/README": false,
	} {
		if got := IsDocument(p); got != want {
			t.Errorf("IsDocument(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestWalk(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"a/b.md":          {},
		"a-c.md":          {},
		"d/B.markdown":    {},
		".git/x.md":       {},
		"d/.h.md":         {},
		".hidden/y.md":    {},
		"link.md":         {Mode: fs.ModeSymlink},
		"notes.html":      {},
		"notes.txt":       {},
		"api/openapi.YML": {},
		".ci/x.yaml":      {},
		"folder.md/z.md":  {},
	}
	got, err := Walk(fsys, nil)
	want := []string{"a-c.md", "a/b.md", "api/openapi.YML", "d/B.markdown", "folder.md/z.md", "notes.txt"} // sorted by path, not walk order
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Walk = %q, %v; want %q", got, err, want)
	}
	if _, err := Walk(os.DirFS(filepath.Join(t.TempDir(), "missing")), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Walk of a missing folder: %v, want fs.ErrNotExist", err)
	}
}

// TestSectionPrefersFullTrail: a trail names the heading whose whole trail
// it is, before a nested heading of the same text that comes first.
func TestSectionPrefersFullTrail(t *testing.T) {
	t.Parallel()
	d := Parse([]byte("# A\n\n## Foo\n\nnested, with enough words to be a chunk of its own\n\n# Foo\n\ntop, with enough words to be a chunk of its own\n"))
	if s, _, ok := d.Section("Foo"); !ok || s.StartLine != 7 || s.EndLine != 9 {
		t.Errorf("Section(Foo) = %+v, %v; want the top-level Foo, lines 7-9", s, ok)
	}
	if s, _, ok := d.Section("A > Foo"); !ok || s.StartLine != 1 || s.EndLine != 5 {
		t.Errorf("Section(A > Foo) = %+v, %v; want lines 1-5 (the near-empty A joins its chunk)", s, ok)
	}
}
