package mcpserver

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindDocumentsPageNoteOnlyWhenMore (audit16, finding 11): find_documents
// says "the next page has the others (nextCursor)" only when there is a
// next page, and its note for a front matter left out names get_document. On main 1b4f197 a single match whose front matter is over the
// budget gets that note with total 1 and no nextCursor.
func TestFindDocumentsPageNoteOnlyWhenMore(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	var fm strings.Builder
	fm.WriteString("---\ntitle: Huge\nrefs:\n")
	for i := range 3000 {
		fmt.Fprintf(&fm, "  - \"item number %d with some extra words to make tokens\"\n", i)
	}
	fm.WriteString("---\n# Huge\n\nbody\n")
	writeFile(t, filepath.Join(p.ctxDir, "packages", "api", "huge.md"), fm.String())
	// And 20 documents of about 800 tokens of front matter each: over the
	// default budget together, under it one by one.
	for d := range 20 {
		var mid strings.Builder
		fmt.Fprintf(&mid, "---\ntitle: Mid %d\nmid: yes\nrefs:\n", d)
		for i := range 80 {
			fmt.Fprintf(&mid, "  - \"mid item %d with a few extra words\"\n", i)
		}
		mid.WriteString("---\n# Mid\n\nbody\n")
		writeFile(t, filepath.Join(p.ctxDir, "packages", "api", fmt.Sprintf("mid%02d.md", d)), mid.String())
	}
	cs := connect(t, p.dir)
	var out FindDocumentsOut
	res := call(t, cs, "find_documents", map[string]any{"where": map[string]any{"title": "Huge"}}, &out)
	if res.IsError {
		t.Fatal(text(res))
	}
	if len(out.Documents) != 1 || out.Total != 1 {
		t.Fatalf("want the one document, got %d of %d: %s", len(out.Documents), out.Total, text(res))
	}
	if out.NextCursor == "" && strings.Contains(out.Note, "nextCursor") {
		t.Errorf("no next page, yet the note says: %q", out.Note)
	}
	// The front matter is over get_metadata's budget too: the note says
	// where it can be read.
	if !strings.Contains(out.Note, "get_document") {
		t.Errorf("the lean note does not say where the front matter can be read: %q", out.Note)
	}
	// Documents over the budget together: a page of some, and the note
	// says how many of all, and that the next page has the others.
	out = FindDocumentsOut{}
	res = call(t, cs, "find_documents", map[string]any{"where": map[string]any{"mid": map[string]any{"$exists": true}}}, &out)
	if res.IsError {
		t.Fatal(text(res))
	}
	want := fmt.Sprintf("%d of 20 documents on this page", len(out.Documents))
	if len(out.Documents) == 0 || len(out.Documents) == 20 || out.Total != 20 || out.NextCursor == "" || !strings.Contains(out.Note, want) || !strings.Contains(out.Note, "nextCursor") || strings.Contains(out.Note, "front matter") {
		t.Errorf("want a page of some of 20 documents, a nextCursor and a note %q; got %d of %d, cursor %q: %s", want, len(out.Documents), out.Total, out.NextCursor, out.Note)
	}
}
