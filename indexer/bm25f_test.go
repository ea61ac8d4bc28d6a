package indexer

import (
	"context"
	"math"
	"path/filepath"
	"testing"
)

// TestBM25FFormula pins the scoring formula (bm25f.go) on two chunks
// computed by hand. a.md is "# Alpha" over "zebra zebra lion": its head
// field (the trail) is "alpha" (1 token), its body "zebra zebra lion" (3);
// b.md is "# Zebra" over "lion tiger": head "zebra" (1), body "lion tiger"
// (2). So N = 2, avgdl(body) = 5/2 = 2.5, avgdl(head) = 2/2 = 1, k1 = 1.2,
// b = 0.75, and a field's length normalisation is 0.25 + 0.75·dl/avgdl:
// 1.15 for a's body, 0.85 for b's, 1 for either head.
func TestBM25FFormula(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", map[string]string{
		"a.md": "# Alpha\n\nzebra zebra lion\n",
		"b.md": "# Zebra\n\nlion tiger\n",
	})
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "d"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	// idf = ln(1 + (N - n + 0.5)/(n + 0.5)) with N = 2 chunks.
	idf := func(n float64) float64 { return math.Log(1 + (2-n+0.5)/(n+0.5)) }
	idf2of2 := idf(2) // ln 1.2: a term in both chunks
	idf1of2 := idf(1) // ln 2: a term in one chunk
	sat := func(tf float64) float64 { return tf / (1.2 + tf) }
	for _, tc := range []struct {
		query string
		want  map[string]float64
	}{
		// zebra: twice in a's body; once in b's head (and in its text
		// only as that heading, so b's body has none).
		{"zebra", map[string]float64{
			"a.md": idf2of2 * sat(2/1.15),
			"b.md": idf2of2 * sat(1/1.0),
		}},
		// lion once in each body; tiger in b's body only: idf once per
		// term, summed after each term's saturation.
		{"lion tiger", map[string]float64{
			"a.md": idf2of2 * sat(1/1.15),
			"b.md": idf2of2*sat(1/0.85) + idf1of2*sat(1/0.85),
		}},
	} {
		hits, err := r.Search(ctx, Query{Text: tc.query})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != len(tc.want) {
			t.Fatalf("%q: %d hits, want %d: %+v", tc.query, len(hits), len(tc.want), hits)
		}
		for _, h := range hits {
			if want := tc.want[h.Path]; math.Abs(h.Score-want) > 1e-9 {
				t.Errorf("%q: %s scored %.9f, want %.9f", tc.query, h.Path, h.Score, want)
			}
		}
	}
}

func TestBM25FTerm(t *testing.T) {
	t.Parallel()
	// One field at the average length: tf/(k1+tf) times idf.
	if got, want := bm25fTerm(2, fieldFreq{tf: 3, dl: 10, avgdl: 10, weight: 1}), 2*3/(1.2+3); math.Abs(got-want) > 1e-12 {
		t.Errorf("got %v, want %v", got, want)
	}
	// Two fields are added before one saturation, not after.
	got := bm25fTerm(1, fieldFreq{tf: 1, dl: 5, avgdl: 5, weight: 1}, fieldFreq{tf: 1, dl: 2, avgdl: 2, weight: 1})
	if want := 2 / (1.2 + 2); math.Abs(got-want) > 1e-12 {
		t.Errorf("two fields: got %v, want %v", got, want)
	}
	if got := bm25fTerm(1, fieldFreq{dl: 5, avgdl: 5, weight: 1}); got != 0 {
		t.Errorf("no occurrence scored %v", got)
	}
}

// TestHeadLengthsAfterUpdate checks that a Reader kept open across an
// incremental Sync scores with the new heading lengths (read once per
// opening of the index). After the update a.md is "# Alpha beta gamma
// delta" (head 4 tokens) over "zebra zebra lion" (body 3), b.md "# Zebra"
// (1) over "lion tiger alpha" (3): avgdl(head) = 2.5, avgdl(body) = 3,
// and alpha is in both chunks.
func TestHeadLengthsAfterUpdate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", map[string]string{
		"a.md": "# Alpha\n\nzebra zebra lion\n",
		"b.md": "# Zebra\n\nlion tiger alpha\n",
	})
	ctx := context.Background()
	pkgs := []Package{{Alias: "d"}}
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	if _, err := r.Search(ctx, Query{Text: "alpha"}); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, "d", map[string]string{"a.md": "# Alpha beta gamma delta\n\nzebra zebra lion\n"})
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	idf := math.Log(1 + 0.5/2.5)
	sat := func(tf float64) float64 { return tf / (1.2 + tf) }
	want := map[string]float64{
		"a.md": idf * sat(1/(0.25+0.75*4/2.5)),
		"b.md": idf * sat(1/(0.25+0.75*3/3)),
	}
	hits, err := r.Search(ctx, Query{Text: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != len(want) {
		t.Fatalf("%d hits, want %d: %+v", len(hits), len(want), hits)
	}
	for _, h := range hits {
		if math.Abs(h.Score-want[h.Path]) > 1e-9 {
			t.Errorf("%s scored %.9f, want %.9f", h.Path, h.Score, want[h.Path])
		}
	}
}
