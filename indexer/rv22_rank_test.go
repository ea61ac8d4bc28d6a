package indexer

import (
	"context"
	"math"
	"path/filepath"
	"testing"
)

// TestQuestionWordsInTheTrail pins questionHead's other half (review of
// round 22): a question word in the heading trail below the title counts
// when the trail holds a content word of the query, and a question word
// in the title does not count because of it. Computed by hand, one chunk
// a page, each titled in its front matter (so the title heads the head
// field, above the trail):
//
//	e.md titled "Lion", "# How zebra" over "lion": head "lion / how zebra" (3), title "lion" (1), body 1
//	f.md titled "Lion", "# Who zebra" over "lion": the same lengths, no "how"
//	g.md titled "How lion", "# Zebra" over "lion": head "how lion / zebra" (3), title "how lion" (2), body 1
//
// N = 3; "how" is in e and g (idf ln(1 + 1.5/2.5)), zebra in all three
// (idf ln(1 + 0.5/3.5)). Average lengths: head 3, title 4/3, body 1. No
// title holds zebra: no title coverage. e's trail holds zebra beside
// "how": "how" counts 3× in the head. g's "how" is in its title, which
// does not hold zebra: it counts for nothing though the trail holds zebra,
// so g scores as f does.
func TestQuestionWordsInTheTrail(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", map[string]string{
		"e.md": "---\ntitle: Lion\n---\n# How zebra\n\nlion\n",
		"f.md": "---\ntitle: Lion\n---\n# Who zebra\n\nlion\n",
		"g.md": "---\ntitle: How lion\n---\n# Zebra\n\nlion\n",
	})
	if _, err := Sync(context.Background(), dir, []Package{{Alias: "d"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	idfHow, idfZebra := math.Log(1+1.5/2.5), math.Log(1+0.5/3.5)
	sat := func(tf float64) float64 { return tf / (1.3 + tf) }
	norm := func(dl, avg float64) float64 { return 0.25 + 0.75*dl/avg }
	zebra := idfZebra * sat(3/norm(3, 3)) // once in the trail, in each page's head
	checkScores(t, r, "how zebra", map[string]float64{
		"e.md": zebra + idfHow*sat(3/norm(3, 3)),
		"f.md": zebra,
		"g.md": zebra,
	})
}
