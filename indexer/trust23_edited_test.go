package indexer

import (
	"strings"
	"testing"
)

// TestEntryTitleKeepsEditMark (trust23): the outline's title form of a
// document line marked as a local edit keeps the mark and drops the
// summary; a title that only looks like a mark is kept whole.
func TestEntryTitleKeepsEditMark(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"- Deploy (`deploy.md`)" + editMark + ": how to ship", "- Deploy (`deploy.md`)" + editMark},
		{"- Deploy (`deploy.md`)" + editMark, "- Deploy (`deploy.md`)" + editMark},
		{"- Deploy (`deploy.md`): how to ship", "- Deploy (`deploy.md`)"},
		// A title forging a path and a mark: two readings, kept whole.
		{"- A (`x.md`)" + editMark + ": b (`deploy.md`): s", "- A (`x.md`)" + editMark + ": b (`deploy.md`): s"},
	} {
		if got := EntryTitle(c.line); got != c.want {
			t.Errorf("EntryTitle(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}

// TestRenderMarksEditedDocuments (trust23): the documents that differ from
// what ctx installed are marked on their lines and counted on the
// package's; with none, the render is the one without marks.
func TestRenderMarksEditedDocuments(t *testing.T) {
	pkgs := []Package{{Alias: "up", Kind: "git", Source: "https://example.com/up.git", Rev: strings.Repeat("a", 40)}}
	files := map[string][]fileRecord{"up": {
		{Path: "deploy.md", Title: "Deploy", Summary: "How to ship."},
		{Path: "guide.md", Title: "Guide", Summary: "Read it."},
	}}
	plain, _ := renderIndexMemo(pkgs, files, 4000, "", nil, nil, nil, nil)
	none, _ := renderIndexMemo(pkgs, files, 4000, "", nil, nil, nil, map[string]map[string]bool{})
	if plain != none || strings.Contains(plain, "local edit") {
		t.Fatalf("no edit: the render changed or is marked:\n%s", none)
	}
	md, _ := renderIndexMemo(pkgs, files, 4000, "", nil, nil, nil, editedSets(map[string]catalogPart{"up": {Edited: "deploy.md"}}))
	if !strings.Contains(md, "- Deploy (`deploy.md`)"+editMark+": How to ship.\n") {
		t.Errorf("deploy.md not marked:\n%s", md)
	}
	if strings.Contains(md, "(`guide.md`)"+editMark) {
		t.Errorf("guide.md marked:\n%s", md)
	}
	if !strings.Contains(md, "1 local edit: not the commit's text") {
		t.Errorf("the package's line does not count the edit:\n%s", md)
	}
}
