package indexer

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLengthNormalisation: BM25 compares a chunk's length with the real
// average. Bleve's own estimate (distinct terms per document) is a few
// tokens when a corpus repeats its words, so every chunk of more than a few
// words looked huge and a short passing mention beat the page about a
// thing. Here the average chunk is ~170 tokens: a 60-token page that names
// the zebra four times must rank above a 10-token page that names it once
// (with bleve's estimate of about 3 tokens, the short page wins).
func TestLengthNormalisation(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	filler := strings.Repeat("river stone cloud forest meadow valley mountain harbor bridge tower ", 20)
	files := map[string]string{
		"about.md":   "# Stripes\n\n" + strings.Repeat("Savanna grazing herds roam plains. ", 3) + "The zebra has stripes. A zebra runs. Every zebra grazes. Zebra herds move. " + strings.Repeat("Herds roam the wide plains grazing. ", 4) + "\n",
		"mention.md": "# Note\n\nOne zebra seen near camp today.\n",
	}
	for i := 0; i < 10; i++ {
		files[fmt.Sprintf("filler%d.md", i)] = fmt.Sprintf("# Filler %d\n\n%s\n", i, filler)
	}
	writeFiles(t, dir, "docs", files)
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "docs"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	hits, err := r.Search(ctx, Query{Text: "zebra", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hits {
		got = append(got, fmt.Sprintf("%s %.3f", h.Path, h.Score))
	}
	if len(hits) != 2 || hits[0].Path != "about.md" {
		t.Errorf("zebra: %v, want about.md, then mention.md", got)
	}
}

// TestFieldLength: the quick token count is close to what the English
// analyzer makes of the same text, over the relevance fixture.
func TestFieldLength(t *testing.T) {
	t.Parallel()
	analyzer := newMapping().AnalyzerNamed(textAnalyzer)
	var est, exact int64
	for _, alias := range []string{"handbook", "platform"} {
		ents, err := os.ReadDir(filepath.Join("testdata", "relevance", alias))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join("testdata", "relevance", alias, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			est += fieldLength(string(b))
			exact += int64(len(analyzer.Analyze(b)))
		}
	}
	if exact == 0 || math.Abs(float64(est-exact))/float64(exact) > 0.05 {
		t.Errorf("estimated %d tokens, the analyzer made %d: more than 5%% apart", est, exact)
	}
	for _, text := range []string{"", "the and of", "List files in a directory", "tar.gz archive, don't panic!", "E[x]tract 3.14 ünïcode", "fmt.Errorf's wrapping: a.b.c"} {
		if got, want := fieldLength(text), int64(len(analyzer.Analyze([]byte(text)))); got != want {
			t.Errorf("fieldLength(%q) = %d, the analyzer makes %d tokens", text, got, want)
		}
	}
}
