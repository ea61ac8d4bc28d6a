package indexer

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestBM25FFormula pins the scoring formula (bm25f.go) on two chunks
// computed by hand. a.md is "# Alpha" over "zebra zebra lion": its head
// field (the trail) is "alpha" (1 token), its title "alpha" (1), its body
// "zebra zebra lion" (3); b.md is "# Zebra" over "lion tiger": head and
// title "zebra" (1 each), body "lion tiger" (2). So N = 2, avgdl(body) =
// 5/2 = 2.5, avgdl(head) = avgdl(title) = 2/2 = 1, k1 = 1.3, b = 0.75, and
// a field's length normalisation is 0.25 + 0.75·dl/avgdl: 1.15 for a's
// body, 0.85 for b's, 1 for either head or title. A word of b's heading
// counts 3 (the head's weight) + 1 (the title's) = 4 times, and a chunk
// whose title holds the query's content words scores 1 +
// titleCoverageBonus times more (TestTitleCoverage).
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
	sat := func(tf float64) float64 { return tf / (1.3 + tf) }
	flat := func(idf float64) float64 { return math.Pow(idf/((idf2of2+idf1of2)/2), -0.3) }
	for _, tc := range []struct {
		query string
		want  map[string]float64
	}{
		// zebra: twice in a's body; once in b's head and title (and in
		// its text only as that heading, so b's body has none).
		{"zebra", map[string]float64{
			"a.md": idf2of2 * sat(2/1.15),
			"b.md": idf2of2 * sat(3*1/1.0+1*1/1.0) * (1 + titleCoverageBonus),
		}},
		// lion once in each body; tiger in b's body only: idf once per
		// term, summed after each term's saturation, each weighted by
		// (idf / m)^−0.3, m the two idfs' mean (flattenIDF).
		{"lion tiger", map[string]float64{
			"a.md": flat(idf2of2) * idf2of2 * sat(1/1.15),
			"b.md": flat(idf2of2)*idf2of2*sat(1/0.85) + flat(idf1of2)*idf1of2*sat(1/0.85),
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
	if got, want := bm25fTerm(2, fieldFreq{tf: 3, dl: 10, avgdl: 10, weight: 1}), 2*3/(1.3+3); math.Abs(got-want) > 1e-12 {
		t.Errorf("got %v, want %v", got, want)
	}
	// Two fields are added before one saturation, not after.
	got := bm25fTerm(1, fieldFreq{tf: 1, dl: 5, avgdl: 5, weight: 1}, fieldFreq{tf: 1, dl: 2, avgdl: 2, weight: 1})
	if want := 2 / (1.3 + 2); math.Abs(got-want) > 1e-12 {
		t.Errorf("two fields: got %v, want %v", got, want)
	}
	if got := bm25fTerm(1, fieldFreq{dl: 5, avgdl: 5, weight: 1}); got != 0 {
		t.Errorf("no occurrence scored %v", got)
	}
}

// TestHeadLengthsAfterUpdate checks that a Reader kept open across an
// incremental Sync scores with the new heading lengths (read once per
// opening of the index). After the update a.md is "# Alpha beta gamma
// delta" (head and title 4 tokens) over "zebra zebra lion" (body 3), b.md
// "# Zebra" (1) over "lion tiger alpha" (3): avgdl(head) = avgdl(title) =
// 2.5, avgdl(body) = 3, and alpha is in both chunks.
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
	sat := func(tf float64) float64 { return tf / (1.3 + tf) }
	want := map[string]float64{
		"a.md": idf * sat((headWeight+titleWeight)*1/(0.25+0.75*4/2.5)), // head and title alike: 4 tokens, average 2.5
		"b.md": idf * sat(1/(0.25+0.75*3/3)),
	}
	want["a.md"] *= 1 + titleCoverageBonus // its title holds alpha
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

// TestSnapshotCacheSameScores checks that a search scores and ranks the
// same on a snapshot's first search (doc values, postings advanced to the
// candidates), its second (heading lengths read, frequent terms noted) and
// later ones (frequent terms' postings kept), and that the later ones did
// use the cache.
func TestSnapshotCacheSameScores(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	rng := rand.New(rand.NewPCG(1, 2))
	common := []string{"the", "a", "of", "pod", "node", "file"}
	rare := []string{"zebra", "lion", "tiger", "heron", "otter", "lynx", "bison", "koala"}
	files := map[string]string{}
	for i := range 40 {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s %s\n\n", common[rng.IntN(len(common))], rare[rng.IntN(len(rare))])
		for s := range 1 + rng.IntN(3) {
			fmt.Fprintf(&b, "## Part %d %s\n\n", s, rare[rng.IntN(len(rare))])
			for range 5 + rng.IntN(40) {
				w := common[rng.IntN(len(common))]
				if rng.IntN(30) == 0 {
					w = rare[rng.IntN(len(rare))]
				}
				b.WriteString(w + " ")
			}
			b.WriteString("\n\n")
		}
		files[fmt.Sprintf("f%02d.md", i)] = b.String()
	}
	writeFiles(t, dir, "d", files)
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "d"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, open := heldSnapshot(t, dir) // every search is of one snapshot
	queries := []string{"the pod of a zebra", "node file", "lion", "a tiger and the otter", "koala otter -lynx"}
	first := map[string][]Hit{}
	for round := range 4 {
		for _, q := range queries {
			for _, best := range []bool{false, true} {
				hits, err := r.Search(ctx, Query{Text: q, Limit: 30, BestPerDocument: best})
				if err != nil {
					t.Fatal(err)
				}
				key := fmt.Sprint(q, best)
				if round == 0 {
					if len(hits) == 0 {
						t.Fatalf("%q: no hits", q)
					}
					first[key] = hits
				} else if !reflect.DeepEqual(hits, first[key]) {
					t.Errorf("%q (best per document %v), round %d:\n%+v\nfirst search:\n%+v", q, best, round, hits, first[key])
				}
			}
		}
	}
	open.cache.mu.Lock()
	defer open.cache.mu.Unlock()
	if open.cache.heads == nil || len(open.cache.terms) == 0 {
		t.Errorf("the cache was not used: heads %v, terms %d", open.cache.heads != nil, len(open.cache.terms))
	}
	docs, _ := open.idx.DocCount()
	for term, p := range open.cache.terms {
		if p.df*frequentShare < docs {
			t.Errorf("kept the postings of %q, in %d of %d chunks", term, p.df, docs)
		}
	}
	if rare := slices.DeleteFunc(slices.Clone(rare), func(w string) bool { return open.cache.terms[w] != nil }); len(rare) == 0 {
		t.Errorf("kept the postings of every word")
	}
}

// TestBM25FFieldWeights pins the page-aware weights (issue 27) on a corpus
// computed by hand: t.md is titled "Lion" over "zebra"; b.md is titled
// "Zebra" over "lion lion lion". For "lion" (in both chunks: idf ln 1.2),
// t.md has it once in its head (weight 3) and title (weight 1), lengths at
// their averages (1): tf~ = 3 + 1 = 4; b.md three times in its body of 3
// (average 2, normalisation 0.25 + 0.75·3/2 = 1.375): tf~ = 3/1.375. So
// the page titled by the question's subject comes first; with every
// field at weight 1 and no title field (tf~ 1 against 2.18) it did not.
func TestBM25FFieldWeights(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", map[string]string{
		"t.md": "# Lion\n\nzebra\n",
		"b.md": "# Zebra\n\nlion lion lion\n",
	})
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "d"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	idf := math.Log(1.2)
	sat := func(tf float64) float64 { return tf / (1.3 + tf) }
	want := []struct {
		path  string
		score float64
	}{
		{"t.md", idf * sat(3*1/1.0+1*1/1.0) * (1 + titleCoverageBonus)},
		{"b.md", idf * sat(3/1.375)},
	}
	hits, err := r.Search(ctx, Query{Text: "lion"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Fatalf("%d hits, want 2: %+v", len(hits), hits)
	}
	for i, h := range hits {
		if h.Path != want[i].path || math.Abs(h.Score-want[i].score) > 1e-9 {
			t.Errorf("hit %d: %s scored %.9f, want %s %.9f", i+1, h.Path, h.Score, want[i].path, want[i].score)
		}
	}
	// The weights as pinned: with all at 1 and no title field the order
	// above would be the other way round.
	if sat(1) >= sat(3/1.375) || headWeight != 3 || titleWeight != 1 || bodyWeight != 1 {
		t.Errorf("weights changed: head %v, title %v, body %v", headWeight, titleWeight, bodyWeight)
	}
}

// TestDocKindPrior: a changelog's chunk scores docKindPrior times its
// BM25F score unless the query asks for changes (a word of kindQueryRE, or
// kind:changelog, which also keeps only such documents).
func TestDocKindPrior(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", map[string]string{
		"CHANGELOG.md":    "# Changes\n\n## 1.2\n\nThe lion option is added.\n",
		"guide/lion.md":   "# Taming\n\nThe lion is fed at noon.\n",
		"guide/zebras.md": "# Zebras\n\nStripes.\n",
	})
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "d"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	score := func(q, path string) float64 {
		t.Helper()
		hits, err := r.Search(ctx, Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.Path == path {
				return h.Score
			}
		}
		t.Fatalf("%q: no hit in %s: %+v", q, path, hits)
		return 0
	}
	plain, asked := score("lion option", "CHANGELOG.md"), score("lion option kind:changelog", "CHANGELOG.md")
	if math.Abs(plain-docKindPrior*asked) > 1e-9 {
		t.Errorf("changelog scored %.9f for a plain query, %.9f with kind:changelog; want the first %v times the second", plain, asked, docKindPrior)
	}
	hits, err := r.Search(ctx, Query{Text: "lion kind:changelog"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Path != "CHANGELOG.md" {
		t.Errorf("kind:changelog: %+v, want CHANGELOG.md only", hits)
	}
	// A query that asks for changes ranks the changelog as it scores.
	if a, b := score("lion option changelog", "CHANGELOG.md"), score("lion option changelog kind:changelog", "CHANGELOG.md"); math.Abs(a-b) > 1e-9 {
		t.Errorf("asked for a changelog: %.9f, want %.9f (no prior)", a, b)
	}
}

// TestDocKindFromHeadingsIndexed: a page whose kind only its headings
// tell (news.md, its sections named for versions) and a deprecation notice
// known by its title are indexed with their kinds (Sync passes a page's
// headings to docKind): kind: finds them, and a plain query ranks them
// below the guide.
func TestDocKindFromHeadingsIndexed(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", map[string]string{
		"news.md":        "# News\n\n## 1.3.0 (2024-03-01)\n\nThe lion option is renamed.\n\n## 1.2.0 (2024-02-01)\n\nThe lion option is added.\n\n## 1.1.0\n\nFixes.\n",
		"deprecated.md":  "# Deprecated features\n\n## The lion option\n\nThe lion option is deprecated.\n",
		"guide/lion.md":  "# The lion option\n\nThe lion option tames lions.\n",
		"guide/other.md": "# Zebras\n\n## 2.1 Stripes\n\n## 2.2 Hooves\n\n## 2.3 Manes\n\nSections numbered, not versions.\n",
	})
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "d"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	paths := func(q string) []string {
		t.Helper()
		hits, err := r.Search(ctx, Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		var ps []string
		for _, h := range hits {
			ps = append(ps, h.Path)
		}
		return ps
	}
	if got := paths("lion kind:changelog"); len(got) != 1 || got[0] != "news.md" {
		t.Errorf("kind:changelog: %q, want news.md only", got)
	}
	if got := paths("lion kind:deprecation"); len(got) != 1 || got[0] != "deprecated.md" {
		t.Errorf("kind:deprecation: %q, want deprecated.md only", got)
	}
	if got := paths("zebras kind:changelog"); len(got) != 0 {
		t.Errorf("numbered sections taken for versions: %q", got)
	}
	if got := paths("lion option"); len(got) == 0 || got[0] != "guide/lion.md" {
		t.Errorf("lion option: %q, want guide/lion.md first", got)
	}
}

// TestQuestionWordsHeadOnly pins how a question's words are scored
// (questionTerms, rescore), computed by hand. a.md is "# Alpha" over "how
// zebra", b.md "# How" over "lion zebra": head and title 1 token each,
// body 2, so N = 2, every average length is the chunks' own and each
// field's normalisation is 1. "how" and zebra are in both chunks: idf(2)
// each.
func TestQuestionWordsHeadOnly(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", map[string]string{
		"a.md": "# Alpha\n\nhow zebra\n",
		"b.md": "# How\n\nlion zebra\n",
	})
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "d"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	idf := math.Log(1 + 0.5/2.5)
	sat := func(tf float64) float64 { return tf / (1.3 + tf) }
	for _, tc := range []struct {
		query string
		want  map[string]float64
	}{
		// With a content word (zebra), "how" counts in headings and
		// titles only, and there only beside a content word
		// (TestQuestionWordsBesideTheSubject): nothing for a's body,
		// nothing for b's heading "How", which zebra is not in.
		{"how zebra", map[string]float64{
			"a.md": idf * sat(1),
			"b.md": idf * sat(1),
		}},
		// "do" is a question word too (in no chunk); "the" a stop word,
		// not a content word.
		{"how do the zebra", map[string]float64{
			"a.md": idf * sat(1),
			"b.md": idf * sat(1),
		}},
		// Question words alone are the query: scored everywhere.
		// (and "how" is then the query's subject: b's title "How" holds
		// all of it, TestTitleCoverage).
		{"how", map[string]float64{
			"a.md": idf * sat(1),
			"b.md": idf * sat(3+1) * (1 + titleCoverageBonus),
		}},
		// Quoted, a question word is asked for as it is (and only a.md
		// has the phrase).
		{`"how zebra"`, map[string]float64{
			"a.md": idf*sat(1) + idf*sat(1),
		}},
	} {
		checkScores(t, r, tc.query, tc.want)
	}
}

// TestQuestionWordsBesideTheSubject pins that a question word counts in
// a part of a chunk's heading (the page's title, the heading trail below
// it) only when that part holds a content word of the query too (issue
// 27, class A: the demo's "how do we deploy" ranked rollback.md's "How to
// roll back" above deploy.md). Computed by hand, one chunk a page:
//
//	a.md "# How" over "lion zebra": head "how" (1), title (1), body 2
//	b.md "# How zebra" over "lion":  head "how zebra" (2), title (2), body 1
//	c.md titled "Zebra" in its front matter, "# How to" over "lion":
//	     head "zebra / how to" (3), title "zebra" (1), body 1
//
// N = 3; "how" and "zebra" are in every chunk: idf ln(1 + 0.5/3.5) each
// (one content word: no flattening). Average lengths: head 2, title 4/3,
// body 4/3; a field's normalisation is 0.25 + 0.75·dl/avgdl.
func TestQuestionWordsBesideTheSubject(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", map[string]string{
		"a.md": "# How\n\nlion zebra\n",
		"b.md": "# How zebra\n\nlion\n",
		"c.md": "---\ntitle: Zebra\n---\n# How to\n\nlion\n",
	})
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "d"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	idf := math.Log(1 + 0.5/3.5)
	sat := func(tf float64) float64 { return tf / (1.3 + tf) }
	norm := func(dl, avg float64) float64 { return 0.25 + 0.75*dl/avg }
	cover := 1 + titleCoverageBonus
	for _, tc := range []struct {
		query string
		want  map[string]float64
	}{
		// a: zebra in its body; its title "How" holds no content
		// word, so "how" counts for nothing. b: zebra and "how" in the
		// title, so both count, 3× in the head and once in the title.
		// c: zebra in the title (and so in the head); "how" only in
		// the trail "How to", which holds no content word.
		// b's and c's titles hold zebra, the query's one content word:
		// 1 + titleCoverageBonus more each.
		{"how zebra", map[string]float64{
			"a.md": idf * sat(1/norm(2, 4.0/3)),
			"b.md": 2 * idf * sat(3/norm(2, 2)+1/norm(2, 4.0/3)) * cover,
			"c.md": idf * sat(3/norm(3, 2)+1/norm(1, 4.0/3)) * cover,
		}},
		// A query of question words alone is scored everywhere, as
		// before: a's and b's head and title, c's head; "how" is then
		// the subject, which a's and b's titles hold.
		{"how", map[string]float64{
			"a.md": idf * sat(3/norm(1, 2)+1/norm(1, 4.0/3)) * cover,
			"b.md": idf * sat(3/norm(2, 2)+1/norm(2, 4.0/3)) * cover,
			"c.md": idf * sat(3/norm(3, 2)),
		}},
	} {
		checkScores(t, r, tc.query, tc.want)
	}
}

// checkScores checks that query's hits on r are the documents of want,
// each scored as want says (within 1e-9).
func checkScores(t *testing.T, r *Reader, query string, want map[string]float64) {
	t.Helper()
	hits, err := r.Search(context.Background(), Query{Text: query})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, h := range hits {
		got[h.Path] = h.Score
	}
	if len(got) != len(want) {
		t.Errorf("%q: hits %v, want %v", query, got, want)
		return
	}
	for p, w := range want {
		if math.Abs(got[p]-w) > 1e-9 {
			t.Errorf("%q: %s scored %.9f, want %.9f", query, p, got[p], w)
		}
	}
}

// TestTitleCoverage pins titleCoverage on a table of frequencies computed
// by hand: the share of the query's content words (each counted by its
// weight times its idf) that a chunk's title holds; question and stop
// words are not the subject.
func TestTitleCoverage(t *testing.T) {
	t.Parallel()
	// Terms: "how" (a question word), "the" (a stop word), zebra (idf 2,
	// weight 0.9), lion (idf 1, weight 1.2).
	ft := newFreqTable(4, 4)
	ft.idf = []float64{0.5, 0.1, 2, 1}
	ft.weight = []float64{1, 1, 0.9, 1.2}
	ft.content = []bool{false, false, true, true}
	row := func(i int, title ...uint64) {
		for j, n := range title {
			ft.tf[i*4+j].title = n
		}
	}
	row(0, 1, 1, 1, 1) // every word in the title
	row(1, 1, 1, 0, 0) // only "how" and "the": nothing of the subject
	row(2, 0, 0, 2, 0) // zebra (twice: counted once)
	row(3, 0, 0, 0, 1) // lion
	all := 0.9*2 + 1.2*1
	for i, want := range []float64{1, 0, 0.9 * 2 / all, 1.2 / all} {
		if got := ft.titleCoverage(i); math.Abs(got-want) > 1e-12 {
			t.Errorf("chunk %d: coverage %v, want %v", i, got, want)
		}
	}
	if titleCoverageBonus != 0.1 {
		t.Errorf("titleCoverageBonus %v: the bonus measured in round 22 is 0.1", titleCoverageBonus)
	}
	// No content word in the query: no coverage.
	ft.content = []bool{false, false, false, false}
	if got := ft.titleCoverage(0); got != 0 {
		t.Errorf("no content word: coverage %v, want 0", got)
	}
}

// TestPageScores: each chunk gets pageShare of the best score of another
// chunk of its document; a document of one chunk keeps its score.
func TestPageScores(t *testing.T) {
	t.Parallel()
	c := func(path string, n int, score float64) *candidate {
		return &candidate{ext: chunkID("d", path, n), score: score}
	}
	cands := []*candidate{c("a.md", 0, 2), c("a.md", 1, 1), c("a.md", 2, 0.5), c("b.md", 0, 2.1), c("e.md", 0, 1), c("e.md", 1, 1)}
	pageScores(cands)
	const p = pageShare
	want := []float64{2 + p*1, 1 + p*2, 0.5 + p*2, 2.1, 1 + p*1, 1 + p*1}
	for i, c := range cands {
		if math.Abs(c.score-want[i]) > 1e-12 {
			t.Errorf("%q: score %v, want %v", c.ext, c.score, want[i])
		}
	}
	if pageShare != 0.05 {
		t.Errorf("pageShare %v: the share measured on bench/relevance's four sets is 0.05", pageShare)
	}
}

// TestProseAbstracts keeps SciFact-style prose working (issue 27): a
// document is a one-line title over one paragraph, with no other heading,
// so it is one chunk (no page share, no other passage to count), and a
// claim or a question finds the abstract that holds its words.
func TestProseAbstracts(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", map[string]string{
		"s1.md": "# Vitamin D and bone density\n\nIn a trial of 300 adults, vitamin D supplements raised the bone mineral density of the hip over two years.\n",
		"s2.md": "# Sleep and memory\n\nParticipants who slept eight hours recalled more words the next day than those deprived of sleep.\n",
		"s3.md": "# Fractures in the elderly\n\nFalls cause most hip fractures in adults over 80; what they ate, vitamins included, was not recorded.\n",
		"s4.md": "# Memory clinics\n\nA survey of memory clinics: how long patients wait, and who refers them.\n",
	})
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "d"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	for q, want := range map[string]string{
		"vitamin D supplements increase bone mineral density": "s1.md",
		"does sleep deprivation impair recall of words":       "s2.md",
		"how does sleep affect memory":                        "s2.md",
		"hip fractures after falls in old adults":             "s3.md",
	} {
		hits, err := r.Search(ctx, Query{Text: q, BestPerDocument: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Path != want {
			t.Errorf("%q: hits %+v, want %s first", q, hits, want)
			continue
		}
		for _, h := range hits {
			if h.More != 0 {
				t.Errorf("%q: %s has More %d: an abstract is one chunk", q, h.Path, h.More)
			}
		}
	}
}

// TestFlattenIDF pins flattenIDF on four one-chunk pages computed by
// hand: each has the title "Zoo" and a body of 4 tokens (every field at
// its average length, so each normalisation is 1). "lion" is in a.md
// once (df 1 of N = 4: idf ln(1 + 3.5/1.5)), "tiger" in b.md three times
// and in c.md once (df 2: idf ln 2). For "the lion tiger" the content
// words' weights are (idf / m)^−0.3, m their mean idf; "the" is a stop
// word (in no page: idf ln 10, which would change m if it counted).
// With the weights b.md (three tigers) comes before a.md (one lion);
// on idf alone a.md came first.
func TestFlattenIDF(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", map[string]string{
		"a.md": "# Zoo\n\nlion x y z\n",
		"b.md": "# Zoo\n\ntiger tiger tiger z\n",
		"c.md": "# Zoo\n\ntiger w y z\n",
		"d.md": "# Zoo\n\nv x y z\n",
	})
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "d"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	hits, err := r.Search(ctx, Query{Text: "the lion tiger"})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, h := range hits {
		paths = append(paths, h.Path)
	}
	if !slices.Equal(paths, []string{"b.md", "a.md", "c.md"}) {
		t.Fatalf("hits %v, want b.md, a.md, c.md", paths)
	}
	idfLion, idfTiger := math.Log(1+3.5/1.5), math.Log(2)
	m := (idfLion + idfTiger) / 2
	wLion, wTiger := math.Pow(idfLion/m, -0.3), math.Pow(idfTiger/m, -0.3)
	want := []float64{
		wTiger * idfTiger * 3 / (1.3 + 3),
		wLion * idfLion * 1 / (1.3 + 1),
		wTiger * idfTiger * 1 / (1.3 + 1),
	}
	for i, h := range hits {
		if math.Abs(h.Score-want[i]) > 1e-9 {
			t.Errorf("%s scores %.9f, want %.9f", h.Path, h.Score, want[i])
		}
	}
	// One content word: its weight is 1 (nothing to flatten towards).
	hits, err = r.Search(ctx, Query{Text: "the lion"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || math.Abs(hits[0].Score-idfLion/(1.3+1)) > 1e-9 {
		t.Errorf("the lion: hits %+v, want a.md at %.9f", hits, idfLion/(1.3+1))
	}
}
