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
	r := syncedPackage(t, map[string]string{
		"e.md": "---\ntitle: Lion\n---\n# How zebra\n\nlion\n",
		"f.md": "---\ntitle: Lion\n---\n# Who zebra\n\nlion\n",
		"g.md": "---\ntitle: How lion\n---\n# Zebra\n\nlion\n",
	})
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

// TestTitleCoverageOfCompounds pins that titleCoverage measures the
// words the query holds, not the parts of its compound words that the
// search adds to it (compoundParts): for "fmt.Errorf" a page titled
// "fmt.Errorf" names the whole subject, and one titled "Errorf in fmt"
// none of it. With the parts counted, the first was credited the share
// of fmt.errorf's weight among the three terms', the second fmt's and
// errorf's: on a corpus where fmt is common and errorf nearly as rare
// as fmt.errorf, the second more than the first. Computed by hand:
//
//	a.md "# fmt.Errorf" over "lion": head and title "fmt.errorf" (1);
//	     text fmt.errorf, the parts fmt and errorf (compoundParts of the
//	     chunk), lion: body 3
//	b.md "# Errorf in fmt" over "lion": head and title "errorf in fmt" (3), body 1
//
// N = 2: fmt.errorf in a (idf ln 2), fmt and errorf in both (idf ln 1.2
// each), weighted by flattenIDF. Average lengths: head 2, title 2, body 2.
func TestTitleCoverageOfCompounds(t *testing.T) {
	t.Parallel()
	r := syncedPackage(t, map[string]string{
		"a.md": "# fmt.Errorf\n\nlion\n",
		"b.md": "# Errorf in fmt\n\nlion\n",
	})
	idfC, idfP := math.Log(2), math.Log(1.2)
	mean := (idfC + 2*idfP) / 3
	wC, wP := math.Pow(idfC/mean, -idfFlatten), math.Pow(idfP/mean, -idfFlatten)
	sat := func(tf float64) float64 { return tf / (1.3 + tf) }
	norm := func(dl, avg float64) float64 { return 0.25 + 0.75*dl/avg }
	checkScores(t, r, "fmt.Errorf", map[string]float64{
		// a's title holds the query's one word: the whole bonus.
		"a.md": (wC*idfC*sat(3/norm(1, 2)+1/norm(1, 2)) + 2*wP*idfP*sat(1/norm(3, 2))) * (1 + titleCoverageBonus),
		// b's holds only the parts: none.
		"b.md": 2 * wP * idfP * sat(3/norm(3, 2)+1/norm(3, 2)),
	})
}

// syncedPackage indexes files as package d of a fresh project and opens
// its reader (closed at the test's end).
func syncedPackage(t *testing.T, files map[string]string) *Reader {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", files)
	if _, err := Sync(context.Background(), dir, []Package{{Alias: "d"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
