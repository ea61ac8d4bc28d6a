package indexer

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// TestAccumulatedCandidates compares accumulatedCandidates with bleve's own
// search for the same query (its ties at the cut settled, searchCut), hit
// for hit: the same chunks in the same
// order, the same scores bit for bit, the same total. The corpora are
// generated (Zipf-distributed words, stop words among them, documents of
// very different lengths), indexed in several batches and updated (so
// with several segments and deleted chunks); the queries have 1 to 16
// words (repeated words, words no chunk has, stop words only), past
// bleve's heap disjunction's DisjunctionHeapTakeover terms, at several
// sizes. Both the pruning and the heap order must have been taken, or the
// test proves less than it says.
func TestAccumulatedCandidates(t *testing.T) {
	t.Parallel()
	for seed := range uint64(3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), ".context")
			rng := rand.New(rand.NewPCG(seed, 99))
			words := []string{"the", "of", "and", "how", "is"}
			for i := range 300 {
				words = append(words, fmt.Sprintf("w%dx", i))
			}
			word := zipfWords(rng, words)
			writeFiles(t, dir, "a", zipfDocs(rng, word, 250, 1, 3, 120))
			ctx := context.Background()
			if _, err := Sync(ctx, dir, []Package{{Alias: "a"}}, Options{}); err != nil {
				t.Fatal(err)
			}
			// Change some documents and add a package: deleted chunks, new
			// segments.
			changed := zipfDocs(rng, word, 40, 1, 2, 40)
			writeFiles(t, dir, "a", changed)
			writeFiles(t, dir, "b", zipfDocs(rng, word, 120, 1, 2, 30))
			if _, err := Sync(ctx, dir, []Package{{Alias: "a"}, {Alias: "b"}}, Options{}); err != nil {
				t.Fatal(err)
			}
			var queries []string
			for i := range 150 {
				var q []string
				for range 1 + i%16 {
					q = append(q, word())
				}
				if i%7 == 0 {
					q = append(q, "nowordlikethis")
				}
				queries = append(queries, strings.Join(q, " "))
			}
			queries = append(queries, "the of", "w0x w0x w0x", "w1x the w1x of w2x")
			st := compareAccumulated(t, dir, queries, []int{1, 7, 50, 200})
			t.Logf("%+v", st)
			if st.pruned == 0 || st.heap == 0 || st.fullyRead == 0 || st.cached == 0 {
				t.Errorf("searches pruned, past the heap's takeover, read whole; terms cached: %d, %d, %d, %d; want some of each", st.pruned, st.heap, st.fullyRead, st.cached)
			}
			if st.declined > st.searches/20 {
				t.Errorf("%d of %d searches declined; want at most 5%%", st.declined, st.searches)
			}
		})
	}
}

// TestAccumulatedCandidatesContextDir is TestAccumulatedCandidates on the
// .context folder CTX_TEST_CONTEXT_DIR names (say, bench/scale's ten times
// corpus), with bench/scale's long queries.
func TestAccumulatedCandidatesContextDir(t *testing.T) {
	dir := os.Getenv("CTX_TEST_CONTEXT_DIR")
	if dir == "" {
		t.Skip("CTX_TEST_CONTEXT_DIR not set")
	}
	queries := []string{"borrow checker lifetimes", "pod scheduling", "tar extract archive", "find files by name",
		"api server admission webhook", "feature gate", "the pod", "how do I configure the kubelet eviction thresholds for memory pressure",
		"git rebase interactive squash commits error handling Result trait objects dynamic dispatch cargo workspace"}
	all := strings.Fields(strings.Join(queries, " "))
	for w := 5; w <= 14; w++ {
		for i := range 6 {
			var q []string
			for j := range w {
				q = append(q, all[(i*5+j)%len(all)])
			}
			queries = append(queries, strings.Join(q, " "))
		}
	}
	t.Logf("%+v", compareAccumulated(t, dir, queries, []int{200}))
}

type accumStats struct {
	searches, declined, pruned, heap, fullyRead, cached int
}

// compareAccumulated runs each query through accumulatedCandidates and
// bleve at each size, and reports every difference as an error.
func compareAccumulated(t *testing.T, dir string, queries []string, sizes []int) accumStats {
	t.Helper()
	ctx := context.Background()
	_, open := heldSnapshot(t, dir)
	idx := open.idx
	rdr := indexReader(t, idx)
	defer rdr.Close()
	stats := bm25Stats(idx, open.tokens)
	// Every term cached at its first search after the first (each query
	// is searched at every size), within a bound that some terms pass.
	cache := newAccumCache()
	cache.share, cache.maxBytes = 0, 64<<10
	var st accumStats
	for _, q := range queries {
		keyAnalyzer := en.AnalyzerName
		if len(queryTerms(idx.Mapping().AnalyzerNamed(en.AnalyzerName), q)) == 0 {
			keyAnalyzer = textAnalyzer
		}
		n := len(idx.Mapping().AnalyzerNamed(keyAnalyzer).Analyze([]byte(q)))
		for _, size := range sizes {
			got, pruned, err := accumulate(ctx, idx, rdr, q, keyAnalyzer, size, stats, cache)
			if err != nil {
				t.Fatal(err)
			}
			st.searches++
			if n > searcher.DisjunctionHeapTakeover {
				st.heap++
			}
			if got == nil {
				st.declined++
				continue
			}
			if pruned {
				st.pruned++
			} else {
				st.fullyRead++
			}
			mq := bleve.NewMatchQuery(q)
			mq.SetField(fText)
			mq.Analyzer = keyAnalyzer
			bq := bleve.NewBooleanQuery()
			bq.AddShould(mq)
			req := bleve.NewSearchRequestOptions(bq, size, 0, false)
			req.PreSearchData = map[string]any{search.BM25PreSearchDataKey: stats}
			want, err := searchCut(ctx, idx, req, size) // ties at the cut settled as Search's are
			if err != nil {
				t.Fatal(err)
			}
			// Pruned, the total counts the chunks seen: more than size
			// (what Search needs of it), not all.
			totalOK := got.Total == want.Total
			if pruned {
				totalOK = got.Total > uint64(size) && got.Total <= want.Total
			}
			if !totalOK || len(got.Hits) != len(want.Hits) {
				t.Errorf("%q, size %d: %d hits of %d; bleve: %d of %d", q, size, len(got.Hits), got.Total, len(want.Hits), want.Total)
				continue
			}
			if n > searcher.DisjunctionHeapTakeover {
				// bleve adds a chunk's terms in its heap's order: the same
				// chunks, scores within rounding.
				gotIDs, wantIDs := map[string]float64{}, map[string]float64{}
				for i := range got.Hits {
					gotIDs[got.Hits[i].ID] = got.Hits[i].Score
					wantIDs[want.Hits[i].ID] = want.Hits[i].Score
				}
				for id, s := range wantIDs {
					g, ok := gotIDs[id]
					if !ok || math.Abs(g-s) > 1e-12*s {
						t.Errorf("%q, size %d: bleve has %q (%v), accumulated %v (%v)", q, size, id, s, g, ok)
						break
					}
				}
				continue
			}
			for i, h := range got.Hits {
				w := want.Hits[i]
				if h.ID != w.ID || !h.IndexInternalID.Equals(w.IndexInternalID) || math.Float64bits(h.Score) != math.Float64bits(w.Score) {
					t.Errorf("%q, size %d, hit %d: %q %v; bleve: %q %v", q, size, i, h.ID, h.Score, w.ID, w.Score)
					break
				}
			}
		}
	}
	st.cached = len(cache.terms)
	return st
}

// TestCachesKeepAtFirstUse checks when the snapshot's caches (the
// candidates' accumCache, rescoring's snapshotCache) keep a frequent
// term's postings: not at the snapshot's first search (the CLI's only
// one), and after it at the term's first use (a server's second search of
// a query was as slow as its first when kept at the second use).
func TestCachesKeepAtFirstUse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, open := heldSnapshot(t, zipfIndex(t)) // every search is of one snapshot
	kept := func(term string) (rescore, accum bool) {
		open.cache.mu.Lock()
		rescore = open.cache.terms[term] != nil
		open.cache.mu.Unlock()
		open.accum.mu.Lock()
		accum = open.accum.terms[term] != nil
		open.accum.mu.Unlock()
		return rescore, accum
	}
	if _, err := r.Search(ctx, Query{Text: "node"}); err != nil {
		t.Fatal(err)
	}
	if a, b := kept("node"); a || b {
		t.Errorf("the snapshot's first search kept %q: rescoring's cache %v, the candidates' %v; want neither", "node", a, b)
	}
	if _, err := r.Search(ctx, Query{Text: "pod"}); err != nil {
		t.Fatal(err)
	}
	if a, b := kept("pod"); !a || !b {
		t.Errorf("the snapshot's second search, %q's first: kept by rescoring's cache %v, the candidates' %v; want both", "pod", a, b)
	}
	// Kept, the scores are the same (TestAccumulatedCandidates and
	// TestSnapshotCacheSameScores compare them with the uncached ones).
}

// TestSeparated compares accumHeap.separated, which tells b's chunks by
// comparing with b's worst, with the definition: a map of b's chunks, on
// random scores with many ties and near ties, counts of 1 to 4 terms.
func TestSeparated(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	coord := []float64{0, 0.25, 0.5, 0.75, 1}
	outcomes := map[bool]int{}
	for range 2000 {
		n := 1 + rng.IntN(60)
		sum, cnt := make([]float64, n), make([]uint16, n)
		for id := range n {
			if rng.IntN(5) == 0 {
				continue // a chunk without the terms
			}
			cnt[id] = uint16(1 + rng.IntN(4))
			sum[id] = float64(rng.IntN(6))
			if rng.IntN(3) == 0 {
				sum[id] *= 1 + float64(rng.IntN(3))*1e-12 // within the rounding's margin
			}
		}
		size := 1 + rng.IntN(10)
		b := make(accumHeap, 0, size)
		for id, c := range cnt {
			if c > 0 {
				b.add(accumHit{id: uint64(id), score: sum[id] * coord[c], cnt: c}, size)
			}
		}
		var touched []uint64 // the chunks with a count, in any order (accumBuffers.touched)
		for id, c := range cnt {
			if c > 0 {
				touched = append(touched, uint64(id))
			}
		}
		rng.Shuffle(len(touched), func(i, j int) { touched[i], touched[j] = touched[j], touched[i] })
		got := b.separated(sum, cnt, coord, touched, false)
		want := separatedByMap(b, sum, cnt, coord)
		if got != want {
			t.Fatalf("sum %v, cnt %v, size %d: separated %v, want %v", sum, cnt, size, got, want)
		}
		if sparse := b.separated(sum, cnt, coord, touched, true); sparse != want {
			t.Fatalf("sum %v, cnt %v, size %d, touched %v: separated over the touched chunks %v, want %v", sum, cnt, size, touched, sparse, want)
		}
		outcomes[got]++
	}
	if outcomes[true] == 0 || outcomes[false] == 0 {
		t.Errorf("outcomes %v: want both", outcomes)
	}
}

// separatedByMap is accumHeap.separated as defined: b's chunks in a map,
// the cut's chunk the worst of them.
func separatedByMap(b accumHeap, sum []float64, cnt []uint16, coord []float64) bool {
	in := map[uint64]bool{}
	loExact, loRound := math.Inf(1), math.Inf(1)
	for _, h := range b {
		in[h.id] = true
		if h.cnt <= 2 {
			loExact = min(loExact, h.score)
		} else {
			loRound = min(loRound, h.score*(1-accumSlack))
		}
	}
	hiExact, hiRound := math.Inf(-1), math.Inf(-1)
	for id, c := range cnt {
		if c == 0 || in[uint64(id)] {
			continue
		}
		s := sum[id] * coord[c]
		if c <= 2 {
			hiExact = max(hiExact, s)
		} else {
			hiRound = max(hiRound, s*(1+accumSlack))
		}
	}
	// The run tied at the cut: no rounded score (the cut's, or another
	// chunk's) out of b within 3·accumSlack of the cut's, and none in b
	// but the cut's own when any chunk out of b is that near.
	if len(b) == 0 {
		return true
	}
	worst := b[0]
	for _, h := range b {
		if h.compare(worst) > 0 {
			worst = h
		}
	}
	nearIn, nearOut, nearOutRounded := false, false, false
	for id, c := range cnt {
		s := sum[id] * coord[c]
		if c == 0 || uint64(id) == worst.id || math.Abs(s-worst.score) > 3*accumSlack*worst.score {
			continue
		}
		rounded := c > 2 || worst.cnt > 2
		switch {
		case in[uint64(id)]:
			nearIn = nearIn || rounded
		default:
			nearOut = true
			nearOutRounded = nearOutRounded || rounded
		}
	}
	if nearOutRounded || nearIn && nearOut {
		return false
	}
	return loRound > hiExact && loRound > hiRound && loExact > hiRound
}

// TestCachesShareTextPostings checks that a frequent term kept by both of
// the snapshot's caches at its first use is read from its text postings
// once: rescoring's cache takes the chunk numbers and the (frequency,
// length) pairs the candidates' cache read (the same slices, not a second
// walk and a second copy), and they are what a walk of the postings gives.
func TestCachesShareTextPostings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, open := heldSnapshot(t, zipfIndex(t))
	for _, q := range []string{"node", "pod zebra otter"} {
		if _, err := r.Search(ctx, Query{Text: q}); err != nil {
			t.Fatal(err)
		}
	}
	open.cache.mu.Lock()
	p := open.cache.terms["pod"]
	open.cache.mu.Unlock()
	open.accum.mu.Lock()
	a := open.accum.terms["pod"]
	open.accum.mu.Unlock()
	if p == nil || a == nil || len(p.text) == 0 {
		t.Fatalf("%q not kept by both caches: rescoring's %v, the candidates' %v", "pod", p != nil, a != nil)
	}
	if &p.text[0] != &a.ids[0] || len(a.docs) != len(p.docs) || &p.docs[0] != &a.docs[0] {
		t.Errorf("rescoring's cache read %q's text postings again instead of taking the candidates' cache's", "pod")
	}
	rdr := indexReader(t, open.idx)
	defer rdr.Close()
	tr, err := rdr.TermFieldReader(ctx, []byte("pod"), fText, true, true, false)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var ids []uint32
	var docs []termDoc
	if _, err := eachDoc(tr, func(d *index.TermFieldDoc) bool {
		ids = append(ids, uint32(d.ID.Value()))
		docs = append(docs, termDoc{text: uint32(d.Freq), dl: uint32(normLength(d.Norm))})
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, p.text) || !slices.Equal(docs, p.docs) || p.df != uint64(len(ids)) {
		t.Errorf("%q's kept text postings differ from its postings: %d kept, %d read", "pod", len(p.text), len(ids))
	}
}

// heldSnapshot opens a Reader of dir and holds its index open until the
// test ends, so that every search is of one snapshot (its caches).
func heldSnapshot(t *testing.T, dir string) (*Reader, *openIndex) {
	t.Helper()
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	open, release, err := r.acquire()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	return r, open
}

// zipfIndex indexes 60 pages of seven words drawn Zipf-like (package a)
// into a new project and returns its .context folder.
func zipfIndex(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".context")
	rng := rand.New(rand.NewPCG(5, 6))
	word := zipfWords(rng, []string{"pod", "node", "file", "lion", "zebra", "otter", "heron"})
	writeFiles(t, dir, "a", zipfDocs(rng, word, 60, 1, 3, 30))
	if _, err := Sync(context.Background(), dir, []Package{{Alias: "a"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	return dir
}
