package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadRelevantMergesTouchingSections (round 21's leftover): two
// passages of one document that touch (one ends on the line before the
// other starts, or only blank lines are between them) are one text, with
// one header, not two texts each with its own header and provenance.
// Before, guide.md's Setup (lines 1-7) and Otters (9-12) were two texts.
func TestReadRelevantMergesTouchingSections(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "notes", "guide.md"), "# Guide\n\nHow to keep the office animals.\n\n## Setup\n\nInstall the feeder; an otter needs one.\n\n## Otters\n\nThe otter: otter care, otter food, otter games and otter naps.\nEvery otter sleeps in the afternoon.\n\n## Badgers\n\n"+strings.Repeat("Badgers dig long tunnels under the meadow and sleep in them all winter.\n", 80))
	writeFile(t, filepath.Join(dir, "notes", "other.md"), "# Other\n\nOther animals.\n\n## Pond\n\nThe pond has an otter and an otter slide.\n")
	cs := indexedNotes(t, dir)

	a := readRelevant(t, cs, map[string]any{"query": "otter"})
	var got []string
	for _, sec := range a.out.Sections {
		got = append(got, sec.Path+":"+sec.Heading)
	}
	want := []string{"guide.md:Guide > Setup", "other.md:Other > Pond"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("sections %q, want %q: Setup and Otters touch and are one text", got, want)
	}
	if l := a.out.Sections[0].Lines; l != [2]int{1, 12} {
		t.Errorf("the merged text's lines %v, want [1 12]", l)
	}
	if a.out.Sections[0].Section != [2]int{} {
		t.Errorf("two whole sections merged are whole, not part of %v", a.out.Sections[0].Section)
	}
	first := a.texts[0]
	if !strings.HasPrefix(first, "[1] notes/guide.md:1-12 · Guide > Setup · live\n# Guide\n") || !strings.Contains(first, "one.\n\n## Otters\n") || strings.Count(first, "[") != 1 {
		t.Errorf("the merged text:\n%s", first)
	}
	if !strings.HasPrefix(a.texts[1], "[2] notes/other.md:") {
		t.Errorf("the second text:\n%s", a.texts[1])
	}
}

// TestReadRelevantClosesCutCodeBlocks: a passage cut inside a fenced code
// block ends with a closing fence, and one that starts inside a block
// opens it, so that each text's fences pair up and the next passage's
// header never reads as code. Before, a part of garbage-collection.md cut
// in its toml example left the fence open across the next header.
func TestReadRelevantClosesCutCodeBlocks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("# Walrus\n\n## Config\n\nThe walrus config file sets the walrus keys:\n\n~~~~toml\n")
	for i := range 400 {
		fmt.Fprintf(&b, "walrus_key_%d = \"walrus value %d\"\n", i, i)
	}
	b.WriteString("~~~~\n\nThe end of the walrus config.\n")
	writeFile(t, filepath.Join(dir, "notes", "walrus.md"), b.String())
	cs := indexedNotes(t, dir)
	for _, maxTokens := range []int{600, 1500, 4000} {
		a := readRelevant(t, cs, map[string]any{"query": "walrus config keys", "maxTokens": maxTokens})
		cut := 0
		for i, text := range a.texts {
			fences := 0
			for _, l := range strings.Split(text, "\n")[1:] {
				if strings.HasPrefix(l, "~~~~") {
					fences++
				}
			}
			if fences%2 != 0 {
				t.Errorf("maxTokens %d: text %d has %d fences, an open block:\n%.300s\n…\n%s", maxTokens, i+1, fences, text, text[max(0, len(text)-300):])
			}
			if a.out.Sections[i].Section != [2]int{} {
				cut++
			}
		}
		if cut == 0 && maxTokens < 4000 {
			t.Errorf("maxTokens %d: no passage is cut: the test tests nothing", maxTokens)
		}
	}
}

// TestMetaTagsSaidOnce: a front matter's tags that the index keeps as the
// document's tags (cleaned: lower-cased, sorted) are not sent again in
// meta. CoreDNS's release notes have tags: [Release, 0.9.10, Notes];
// find_documents and get_metadata sent them twice, once as written.
// Tags the index does not keep as written (keywords merged in) stay.
func TestMetaTagsSaidOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "notes", "rel.md"), "---\ntags: [Release, 0.9.10, Notes]\ndraft: false\n---\n# CoreDNS-0.9.10 Release\n\nThe release notes.\n")
	writeFile(t, filepath.Join(dir, "notes", "kw.md"), "---\ntags: [Release]\nkeywords: [dns]\n---\n# Other\n\nOther notes.\n")
	cs := indexedNotes(t, dir)
	var m GetMetadataOut
	if res := call(t, cs, "get_metadata", map[string]any{"package": "notes", "path": "rel.md"}, &m); res.IsError {
		t.Fatal(text(res))
	}
	if _, ok := m.Meta["tags"]; ok || strings.Join(m.Tags, ",") != "0.9.10,notes,release" || m.Meta["draft"] != false {
		t.Errorf("rel.md: tags %v, meta %v: want the tags once, the other fields kept", m.Tags, m.Meta)
	}
	if res := call(t, cs, "get_metadata", map[string]any{"package": "notes", "path": "kw.md"}, &m); res.IsError {
		t.Fatal(text(res))
	}
	if _, ok := m.Meta["tags"]; !ok {
		t.Errorf("kw.md: tags %v, meta %v: the front matter's tags are not all of the document's: keep them", m.Tags, m.Meta)
	}
}

// TestDocumentWindowClosesItsCodeBlock: a document window that ends
// inside a fenced code block (as a reader of the window sees it) closes
// it before the footer, so that ctx's footer is not read as code; the
// window's own text stays the document's lines.
func TestDocumentWindowClosesItsCodeBlock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "notes", "cfg.md"), "# Config\n\nThe file:\n\n```toml\nversion = 3\n[plugins]\n  x = 1\n```\n\nThe end.\n")
	cs := indexedNotes(t, dir)
	for _, c := range []struct {
		args  map[string]any
		close bool
	}{
		{map[string]any{"package": "notes", "path": "cfg.md", "limit": 6}, true},              // ends in the block
		{map[string]any{"package": "notes", "path": "cfg.md", "offset": 6, "limit": 4}, true}, // starts in it: its closing fence opens one
		{map[string]any{"package": "notes", "path": "cfg.md", "offset": 6, "limit": 2}, false},
		{map[string]any{"package": "notes", "path": "cfg.md"}, false},
	} {
		res := call(t, cs, "get_document", c.args, nil)
		if res.IsError {
			t.Fatal(text(res))
		}
		window := res.Content[0].(*mcp.TextContent).Text
		foot := res.Content[1].(*mcp.TextContent).Text
		if got := strings.HasPrefix(foot, "```\n[ctx: "); got != c.close {
			t.Errorf("%v: footer %q, want a closing fence first: %v", c.args, foot, c.close)
		}
		if strings.Contains(window, "[ctx") || strings.Count(window, "```") > 2 {
			t.Errorf("%v: the window's text changed: %q", c.args, window)
		}
	}
}

// TestToolListSaysWhatTheModelSees: tools/list names only what a model is
// shown. A search hit's `more` was not explained anywhere (there is no
// output schema), and the document tools' offset was "nextOffset of the
// previous page", a field of _meta, which Claude Code and Codex do not
// show: the footer says which offset to send.
func TestToolListSaysWhatTheModelSees(t *testing.T) {
	t.Parallel()
	cs := connect(t, sharedProject(t).dir)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "nextOffset") {
			t.Errorf("%s names nextOffset, which the model never reads: %s", tool.Name, b)
		}
		if tool.Name == "search" && !strings.Contains(tool.Description, "`more`") {
			t.Errorf("search does not say what a hit's more is: %s", tool.Description)
		}
	}
}
