package indexer

import "testing"

// TestEntryTitle (agent20): a document's INDEX.md line, as docLine writes
// it at each level, reads back as its title form; a folder's line and a
// title with code spans and parentheses of its own are kept whole.
func TestEntryTitle(t *testing.T) {
	t.Parallel()
	s := &pkgSection{}
	for _, d := range []fileRecord{
		{Path: "a.md", Title: "Plain", Summary: "A summary: with a colon (and parens)."},
		{Path: "b c.md", Title: "The `Option<T>` type (`x`)", Summary: "See (`y`) more: (`z`)."},
		{Path: "`tick`.md", Title: "Ticks", Summary: "s"},
		{Path: "d.md", Title: "No summary"},
	} {
		want := s.docLine(d, levelTitles)
		want = want[:len(want)-1]
		for _, level := range []int{levelFull, levelSentence, levelTitles} {
			l := s.docLine(d, level)
			if got := EntryTitle(l[:len(l)-1]); got != want {
				t.Errorf("EntryTitle(%q) = %q, want %q", l, got, want)
			}
		}
	}
	// A line that reads two ways is kept whole (review20-agent20): a title
	// with "(`make`): " of its own was cut there, and the outline showed
	// "make" as the document's path; a summary with one could be read as
	// the path the same way.
	for _, d := range []fileRecord{
		{Path: "run.md", Title: "Run (`make`): build", Summary: "How to build."},
		{Path: "run.md", Title: "Run (`make`): build"},
		{Path: "b.md", Title: "B", Summary: "See (`y`): more."},
	} {
		for _, level := range []int{levelFull, levelSentence, levelTitles} {
			l := s.docLine(d, level)
			l = l[:len(l)-1]
			if got := EntryTitle(l); got != l {
				t.Errorf("EntryTitle(%q) = %q, want it whole", l, got)
			}
		}
	}
	for _, l := range []string{"- `sig-node/` — 236 more documents", "- `./` — 4613 documents, e.g. fossil new; magick montage", "`../k8s-keps/` · live", ""} {
		if got := EntryTitle(l); got != l {
			t.Errorf("EntryTitle(%q) = %q, want it unchanged", l, got)
		}
	}
}
