package indexer

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
)

// TestTiesAnyInternalOrder builds the same documents twice so that
// bleve's internal document numbers differ (all at once; and one document
// first, the other added by an update, so its chunks come after), with
// more chunks tied at the candidates' cut than the cut keeps, and checks
// that every search (each way of finding candidates, best per document or
// not, filtered or not) gives the same hits both times: the same chunks,
// order, scores and More (issue 27: ties are decided by chunk key,
// rankOrder, not by the order bleve happens to number the chunks in).
func TestTiesAnyInternalOrder(t *testing.T) {
	t.Parallel()
	t.Run("bit-equal", func(t *testing.T) {
		t.Parallel()
		// Two documents of tiedChunks identical sections each: every chunk
		// scores the same for any of their words, 2·tiedChunks of them, more
		// than the candidates a search of limit 10 keeps (rescoreCandidates).
		const tiedChunks = 3 * rescoreCandidates / 4
		var b strings.Builder
		for i := range tiedChunks {
			fmt.Fprintf(&b, "## Part %d\n\nzeta kappa filler words of the part, zeta again.\n\n", i)
		}
		tiesBothWays(t, b.String(), nil, []string{"zeta", "zeta kappa", "part zeta filler", "path:a zeta", "path:b zeta", "\"zeta kappa\"", "zeta -nothing"}, []int{1, 10, 12})
	})
	t.Run("rounding", func(t *testing.T) {
		t.Parallel()
		// Past DisjunctionHeapTakeover (10) terms bleve sums a chunk's
		// term scores in its heap's order, which depends on the other
		// chunks merged with it: identical chunks score a few ulps apart
		// (issue 27, round 15's review). Two documents of identical
		// sections of 14 words and zeta, and six others with a third of
		// those words at random; queries of 11, 14 and 15 of the words.
		words, same, others := roundingCorpus()
		all := strings.Join(words, " ")
		tiesBothWays(t, same, others, []string{strings.Join(words[:11], " "), all, all + " zeta"}, []int{10})
	})
}

// tiesBothWays builds a.md and b.md, both doc, with others, twice: all at
// once, and b.md first with a.md added by an update (its chunks numbered
// after b's); then every query, at each limit, best per document or not,
// by every way of finding candidates and by bleve's alone (exhaustive),
// must give the same hits both times, and the same both ways.
func tiesBothWays(t *testing.T, doc string, others map[string]string, queries []string, limits []int) {
	ctx := context.Background()
	pkgs := []Package{{Alias: "d"}}

	once := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, once, "d", map[string]string{"a.md": doc, "b.md": doc})
	writeFiles(t, once, "d", others)
	if _, err := Sync(ctx, once, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	// b first, then a by an update: a's chunks are numbered after b's.
	later := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, later, "d", map[string]string{"b.md": doc})
	writeFiles(t, later, "d", others)
	if _, err := Sync(ctx, later, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, later, "d", map[string]string{"a.md": doc})
	if rep, err := Sync(ctx, later, pkgs, Options{}); err != nil || rep.Rebuilt || rep.Added != 1 {
		t.Fatalf("update: %+v, %v; want a.md added in place", rep, err)
	}

	first := map[string][]Hit{} // with the shortcuts: exhaustive gives the same
	for _, exhaustive := range []bool{false, true} {
		ra, err := OpenReader(once)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := OpenReader(later)
		if err != nil {
			t.Fatal(err)
		}
		ra.exhaustive, rb.exhaustive = exhaustive, exhaustive
		for _, q := range queries {
			for _, limit := range limits {
				for _, best := range []bool{false, true} {
					query := Query{Text: q, Limit: limit, BestPerDocument: best}
					a, err := ra.Search(ctx, query)
					if err != nil {
						t.Fatal(err)
					}
					b, err := rb.Search(ctx, query)
					if err != nil {
						t.Fatal(err)
					}
					if len(a) == 0 {
						t.Fatalf("%q: no hits", q)
					}
					if !reflect.DeepEqual(a, b) {
						t.Errorf("%q (limit %d, best per document %v, exhaustive %v): built at once:\n%s\nupdated:\n%s",
							q, limit, best, exhaustive, tieHits(a), tieHits(b))
					}
					key := fmt.Sprint(q, limit, best)
					if !exhaustive {
						first[key] = a
					} else if !reflect.DeepEqual(a, first[key]) {
						t.Errorf("%q (limit %d, best per document %v): with the shortcuts:\n%s\nexhaustive:\n%s",
							q, limit, best, tieHits(first[key]), tieHits(a))
					}
				}
			}
		}
		ra.Close()
		rb.Close()
	}
}

// tieHits lists hits one a line: path, lines, score and More.
func tieHits(hits []Hit) string {
	var b strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&b, "  %s %v %v more %d\n", h.Path, h.Lines, h.Score, h.More)
	}
	return b.String()
}

// TestSettleCut checks the cut of a list best first by score: the run of
// hits tied at the size-th within rounding (tiedAtCut; scores a few ulps
// apart, in an order unrelated to their keys, as bleve's heap sums give)
// is cut by chunk key whatever order it came in; a run kept whole keeps
// its order (rescore orders it); hits outside the run, even 1e-6 apart,
// keep their place; size ≤ 0 keeps none.
func TestSettleCut(t *testing.T) {
	const s = 2.5
	run := []*search.DocumentMatch{ // chunks 10, 2, 7, 3 of d/a.md: 2, 3, 7, 10 by key
		{ID: chunkID("d", "a.md", 10), Score: math.Nextafter(s, 3)},
		{ID: chunkID("d", "a.md", 2), Score: s},
		{ID: chunkID("d", "a.md", 7), Score: s},
		{ID: chunkID("d", "a.md", 3), Score: math.Nextafter(s, 2)},
	}
	above := &search.DocumentMatch{ID: chunkID("d", "z.md", 0), Score: s * (1 + 1e-6)}
	below := &search.DocumentMatch{ID: chunkID("d", "a.md", 0), Score: s * (1 - 1e-6)}
	ids := func(hits []*search.DocumentMatch) []string {
		var out []string
		for _, h := range hits {
			_, n := splitChunkID(h.ID)
			out = append(out, fmt.Sprintf("%s:%d", h.ID[2:6], n))
		}
		return out
	}
	want := map[int][]string{
		0: nil,
		1: {"z.md:0"},
		2: {"z.md:0", "a.md:2"},
		3: {"z.md:0", "a.md:2", "a.md:3"},
		5: {"z.md:0", "a.md:10", "a.md:2", "a.md:3", "a.md:7"}, // the whole run: compared as a set
		6: {"z.md:0", "a.md:10", "a.md:2", "a.md:3", "a.md:7", "a.md:0"},
	}
	// Every order of the run (bleve's, whatever it is).
	perm := []int{0, 1, 2, 3}
	for range 24 {
		for size, w := range want {
			hits := []*search.DocumentMatch{above}
			for _, i := range perm {
				hits = append(hits, run[i])
			}
			hits = append(hits, below)
			got := ids(settleCut(hits, size))
			if size >= 5 && len(got) >= 5 {
				slices.Sort(got[1:5])
			}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("run in order %v, size %d: %v; want %v", perm, size, got, w)
			}
		}
		nextPerm(perm)
	}
	if got := settleCut([]*search.DocumentMatch{above}, -1); len(got) != 0 {
		t.Errorf("size -1: %d hits; want none", len(got))
	}
}

// nextPerm makes p its next permutation in lexical order (the first after
// the last).
func nextPerm(p []int) {
	i := len(p) - 2
	for i >= 0 && p[i] >= p[i+1] {
		i--
	}
	if i >= 0 {
		j := len(p) - 1
		for p[j] <= p[i] {
			j--
		}
		p[i], p[j] = p[j], p[i]
	}
	slices.Reverse(p[i+1:])
}

// TestRankOrderNaN checks that rankOrder is a strict weak order with a
// NaN score among the others: sorted, NaN last, and the sort the same
// from any order.
func TestRankOrderNaN(t *testing.T) {
	type h struct {
		s  float64
		id string
	}
	hs := []h{{1, chunkID("d", "a.md", 1)}, {math.NaN(), chunkID("d", "a.md", 0)}, {2, chunkID("d", "b.md", 0)}, {1, chunkID("d", "a.md", 0)}, {math.NaN(), chunkID("d", "b.md", 1)}}
	var first string
	perm := []int{0, 1, 2, 3, 4}
	for range 120 {
		xs := make([]h, 0, len(hs))
		for _, i := range perm {
			xs = append(xs, hs[i])
		}
		slices.SortFunc(xs, func(a, b h) int { return rankOrder(a.s, a.id, b.s, b.id) })
		got := fmt.Sprint(xs)
		if first == "" {
			first = got
		}
		if got != first || !math.IsNaN(xs[3].s) || !math.IsNaN(xs[4].s) || xs[0].s != 2 {
			t.Fatalf("from %v: %v; want %v, NaN last", perm, got, first)
		}
		nextPerm(perm)
	}
	if rankOrder(math.NaN(), "x", math.NaN(), "x") != 0 {
		t.Error("rankOrder(NaN, x, NaN, x) != 0")
	}
}

// TestSearchCutAsAll: searchCut(size), with its probes, keeps what
// settleCut keeps of all of bleve's hits, for the sizes from 1 to 320
// where searchCut's path can change (cutSizes: every size whose signature
// differs from its neighbour's), on scores tied within rounding (11 and
// 14 words, past bleve's 10-term heap takeover): the one test that fails
// when searchCut's stop check is exact (the review of fix15a, round 15).
func TestSearchCutAsAll(t *testing.T) {
	words, same, others := roundingCorpus()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", map[string]string{"a.md": same, "b.md": same})
	writeFiles(t, dir, "d", others)
	if _, err := Sync(context.Background(), dir, []Package{{Alias: "d"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	var m meta
	if err := readJSON(filepath.Join(dir, "index", metaFile), &m); err != nil {
		t.Fatal(err)
	}
	idx, err := bleve.OpenUsing(filepath.Join(dir, "index", m.Bleve), map[string]any{"read_only": true})
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	ids := func(h []*search.DocumentMatch) []string {
		var out []string
		for _, x := range h {
			out = append(out, x.ID)
		}
		return out
	}
	for _, nw := range []int{11, 14} {
		mk := func(n int) *bleve.SearchRequest {
			mq := bleve.NewMatchQuery(strings.Join(words[:nw], " "))
			mq.SetField(fText)
			mq.Analyzer = textAnalyzer
			return bleve.NewSearchRequestOptions(mq, n, 0, false)
		}
		all, err := idx.Search(mk(100000))
		if err != nil {
			t.Fatal(err)
		}
		bad := 0
		sizes := cutSizes(all.Hits, all.Total, 320)
		t.Logf("%d words: %d of the 320 sizes", nw, len(sizes))
		for _, size := range sizes {
			want := ids(settleCut(append([]*search.DocumentMatch(nil), all.Hits...), size))
			res, err := searchCut(context.Background(), idx, mk(size), size)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(res.Hits); !reflect.DeepEqual(got, want) {
				bad++
				if bad < 3 {
					t.Errorf("%d words size %d: searchCut differs from settleCut of all", nw, size)
				}
			}
		}
		if bad > 0 {
			t.Errorf("%d words: %d sizes differ", nw, bad)
		}
	}
}

// cutSizes returns the sizes from 1 to maxSize at which searchCut, given
// the scores of all (every hit of the query, best first, of total), can
// take another path or keep another run: the first and last size of each
// stretch of sizes with the same signature. A size's signature is what
// searchCut and settleCut look at, read off all's scores (bleve's first k
// hits have all's first k scores, whatever its order among equal ones):
// whether the hit after the cut is tied with it (tiedAtCut) and whether
// bit-equal; whether the first probe (tieProbe times one more than the
// size) asks for fewer than all and, if it does, whether the last it gets
// is tied with the cut and whether bit-equal; and the run settleCut sorts
// (its first and last index). Every 1 to 320 took 640 searches (2 s of
// CPU); the sizes where nothing of that changes give the same answers
// from the same code.
func cutSizes(all []*search.DocumentMatch, total uint64, maxSize int) []int {
	type signature struct {
		tied, equal, probe, probeTied, probeEqual bool
		lo, hi                                    int
	}
	sig := func(size int) signature {
		var g signature
		cut := all[size-1].Score
		if size < len(all) {
			g.tied = tiedAtCut(all[size].Score, cut)
			g.equal = all[size].Score == cut
		}
		if g.probe = uint64(size+1)*tieProbe < total; g.probe {
			last := all[min((size+1)*tieProbe, len(all))-1].Score
			g.probeTied, g.probeEqual = tiedAtCut(last, cut), last == cut
		}
		g.lo, g.hi = size-1, size
		for g.lo > 0 && tiedAtCut(all[g.lo-1].Score, cut) {
			g.lo--
		}
		for g.hi < len(all) && tiedAtCut(all[g.hi].Score, cut) {
			g.hi++
		}
		return g
	}
	maxSize = min(maxSize, len(all))
	var sizes []int
	for size := 1; size <= maxSize; size++ {
		if size == 1 || size == maxSize || sig(size) != sig(size-1) || sig(size) != sig(size+1) {
			sizes = append(sizes, size)
		}
	}
	return sizes
}

// TestSettleCutNoChain: a hit is tied with the cut's score, never through
// another tied hit: of a, a(1+0.9e-9) and a(1+1.8e-9), size 1 cuts at the
// best, tied with the middle one only (the middle one kept, by key); size
// 2 cuts at the middle one, tied with both (the first two by key). The
// lowest may so be kept over the best: rounding, not rank.
func TestSettleCutNoChain(t *testing.T) {
	a := 2.0
	for size, want := range map[int][]string{1: {"b.md"}, 2: {"a.md", "b.md"}} {
		hits := []*search.DocumentMatch{
			{ID: chunkID("d", "c.md", 0), Score: a * (1 + 1.8e-9)},
			{ID: chunkID("d", "b.md", 0), Score: a * (1 + 0.9e-9)},
			{ID: chunkID("d", "a.md", 0), Score: a},
		}
		var got []string
		for _, h := range settleCut(hits, size) {
			got = append(got, h.ID[2:6])
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("size %d: %v; want %v", size, got, want)
		}
	}
}

// roundingCorpus is the corpus of ties within rounding: the 14 words,
// same (150 identical sections of them and zeta, for a.md and b.md), and
// six other pages with about a third of the words at random.
func roundingCorpus() (words []string, same string, others map[string]string) {
	words = strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november")
	var b strings.Builder
	for i := range 150 {
		fmt.Fprintf(&b, "## Part %d\n\n%s zeta.\n\n", i, strings.Join(words, " "))
	}
	others = map[string]string{}
	seed := uint32(7)
	for d := range 6 {
		var e strings.Builder
		for i := range 80 {
			fmt.Fprintf(&e, "## Other %d\n\n", i)
			for _, w := range words {
				seed = seed*1664525 + 1013904223
				if seed>>29 < 3 {
					e.WriteString(w + " ")
				} else {
					e.WriteString("filler ")
				}
			}
			e.WriteString("\n\n")
		}
		others[fmt.Sprintf("c%d.md", d)] = e.String()
	}
	return words, b.String(), others
}
