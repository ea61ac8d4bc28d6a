package mcpserver

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"
)

// docProject is a project with one package "d" holding files (path →
// content), indexed.
func docProject(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "proj")
	ctxDir := filepath.Join(dir, ".context")
	for rel, content := range files {
		writeFile(t, filepath.Join(ctxDir, "packages", "d", filepath.FromSlash(rel)), content)
	}
	lock := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{"d": {
		Source: "https://example.com/d.git", Path: "docs", Ref: "main",
		Rev: strings.Repeat("a1", 20), Tree: strings.Repeat("b2", 20),
		Hash: "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", Updated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	}}}
	if err := lockfiletest.WriteInstalled(ctxDir, lock); err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Sync(context.Background(), ctxDir, lockPackages(ctxDir, lock), indexer.Options{}); err != nil {
		t.Fatalf("indexer.Sync: %v", err)
	}
	return dir
}

// TestLineEndsAgreeWithSearch is the regression test for D3: the indexer
// and the server split a document into the same lines, whatever its line
// ends (lone CR, CRLF, a byte-order mark), so a search hit's line range is
// the range get_document and get_section serve.
func TestLineEndsAgreeWithSearch(t *testing.T) {
	t.Parallel()
	for name, nl := range map[string]string{"lone-cr": "\r", "crlf": "\r\n", "lf": "\n"} {
		t.Run(name, func(t *testing.T) {
			doc := strings.Join([]string{"a", "b", "# H", "", "The zebra crossing is painted white on black asphalt roads.", "", "## Sub", "", "More words about nothing in particular at all, padding it out.", ""}, nl)
			if name == "crlf" {
				doc = "\xef\xbb\xbf" + doc
			}
			cs := connect(t, docProject(t, map[string]string{"cr.md": doc}))
			var s SearchOut
			if res := call(t, cs, "search", map[string]any{"query": "zebra crossing"}, &s); res.IsError || len(s.Hits) == 0 {
				t.Fatalf("search: %s", text(res))
			}
			h := s.Hits[0]
			if h.Lines != [2]int{1, 5} || h.Heading != "H" {
				t.Fatalf("hit = %+v, want lines 1-5 under H", h)
			}
			var d DocumentOut
			if res := call(t, cs, "get_document", map[string]any{"package": "d", "path": "cr.md", "offset": h.Lines[0], "limit": h.Lines[1] - h.Lines[0] + 1}, &d); res.IsError {
				t.Fatal(text(res))
			}
			if d.TotalLines != 9 || d.StartLine != 1 || d.EndLine != 5 || !strings.HasPrefix(d.Text, "a\nb\n# H\n") || !strings.HasSuffix(d.Text, "zebra crossing is painted white on black asphalt roads.\n") {
				t.Errorf("get_document lines %v = %+v, want the hit's 5 of 9 lines", h.Lines, d)
			}
			if res := call(t, cs, "get_section", map[string]any{"package": "d", "path": "cr.md", "heading": h.Heading}, &d); res.IsError {
				t.Fatal(text(res))
			}
			// The hit's trail opens a section that holds the hit: the two
			// short lines before H joined its chunk.
			if d.StartLine != 1 || d.EndLine != 9 || !strings.HasPrefix(d.Text, "a\nb\n# H\n\nThe zebra") || !strings.HasSuffix(d.Text, "padding it out.\n") {
				t.Errorf("get_section %q = %+v, want lines 1-9", h.Heading, d)
			}
		})
	}
}

// TestSectionByHitTrail: the heading trail of a search hit names the
// section the hit is in, for get_section: with the same heading under two
// parents, a heading that is a link (the trail shows its text), one with
// <T> in a code span and an HTML anchor, and the same trail twice.
func TestSectionByHitTrail(t *testing.T) {
	t.Parallel()
	doc := `# Linux

Some words about installing packages on linux with apt and friends.

## Install

Use apt-get to install the tool on linux systems of every kind.

# Mac

Words about mac machines, homebrew and everything else in this part.

## Install

Use brew to install the quokkafish on mac machines all around.

## [Configure](https://example.com/cfg)

Edit the settings file for the walrusberry by hand, carefully.

## The ` + "`Option<T>`" + ` ` + "`match`" + ` Pattern <a name="opt"></a>

Matching on an optional narwhalberry value covers both of its cases.

## Install

A second Install under Mac: the pangolinfruit is installed twice.
`
	cs := connect(t, docProject(t, map[string]string{"os.md": doc}))
	for _, c := range []struct {
		query, trail string
		start, end   int
	}{
		{"brew quokkafish", "Mac > Install", 13, 15},
		{"walrusberry settings", "Mac > Configure", 17, 19},
		// <T> is kept in the trail, the anchor is not.
		{"narwhalberry optional", "Mac > The `Option<T>` `match` Pattern", 21, 23},
		// A heading whose trail is taken is numbered.
		{"pangolinfruit", "Mac > Install (2)", 25, 27},
	} {
		var s SearchOut
		if res := call(t, cs, "search", map[string]any{"query": c.query}, &s); res.IsError || len(s.Hits) == 0 {
			t.Fatalf("search %q: %s", c.query, text(res))
		}
		h := s.Hits[0]
		if h.Heading != c.trail {
			t.Fatalf("search %q: hit %+v, want heading %q", c.query, h, c.trail)
		}
		var d DocumentOut
		if res := call(t, cs, "get_section", map[string]any{"package": "d", "path": "os.md", "heading": h.Heading}, &d); res.IsError {
			t.Fatalf("get_section %q: %s", h.Heading, text(res))
		}
		if d.StartLine != c.start || d.EndLine != c.end || d.StartLine > h.Lines[1] || d.EndLine < h.Lines[0] {
			t.Errorf("get_section %q = lines %d-%d (%q), want %d-%d, where the hit (lines %v) is", h.Heading, d.StartLine, d.EndLine, d.Text, c.start, c.end, h.Lines)
		}
	}
}
