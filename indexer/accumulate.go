package indexer

import (
	"container/heap"
	"context"
	"errors"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// Candidates term at a time (issues 27 and 31). bleve's search for a
// plain query (a disjunction of one term searcher per analysed word)
// walks every term's postings in step, document by document, through a
// merge of the searchers (a heap past ten terms), a scorer and a
// collector: per posting, a DocumentMatch from a pool, several interface
// calls and byte-slice id comparisons. For a long query at ten times the
// corpus that is most of a search. accumulatedCandidates computes the same
// thing term at a time: each term's postings are read once, in the order
// bleve sums them, into a score and a count per chunk (dense arrays by
// internal document number), then the best size are picked.
//
// The scores are bleve's, bit for bit, where bleve adds the terms in a
// fixed order:
//
//   - a term's score for a posting is TermQueryScorer's BM25 (the same
//     expression, the same idf from docTotal and the term's count, the
//     same average length, rounded up), times its query weight
//     idf·queryNorm, queryNorm being 1/√Σ idf² summed in the searchers'
//     order;
//   - up to searcher.DisjunctionHeapTakeover terms, bleve's disjunction
//     sorts its searchers by count (sort.Sort, deterministic: sorted here
//     the same way) and sums the matching ones in that order, from 0: the
//     order the terms are read in here; the sum is then multiplied by the
//     coordination factor m/n;
//   - ties at the cut are settled by chunk key, as Search settles
//     bleve's own (searchCut, settleCut): best finds every chunk tied with
//     the size-th within rounding (tiedAtCut) and keeps the first of them
//     by key (settleRun).
//
// Past DisjunctionHeapTakeover terms, bleve sums a chunk's terms in the
// order its heap pops them, which depends on the merge's history. Two
// orders of a sum of m positive numbers differ by at most 2(m−1)u of it
// (u the unit round-off); for m ≤ 2 they do not differ at all (addition
// commutes). So the best size here are bleve's when every chunk in them
// outscores every chunk out of them by more than that margin, or both
// chunks' scores are exact, and no rounded score is near the edge of the
// run tied at the cut (separated); when not (a near tie with three terms
// or more at the cut), accumulatedCandidates says so and bleve's search
// runs.
//
// Pruning (exact, MaxScore-like): after the rarer terms, a chunk that has
// none of them can score at most |R|/n · Σ ub over the remaining terms R
// (ub: idf·k1·queryWeight, above any posting's score). When that is below
// the size-th best lower bound so far (a chunk's sum times its count/n
// only grows), no such chunk can be among the best, and the remaining
// terms are read only for the chunks that still can be (their upper
// bound reaches that score): advanced to, when they are few against the
// term's postings.
//
// TestAccumulatedCandidates compares the result with bleve's, hit for hit
// and score for score, on generated corpora and queries of 1 to 16 words.

// accumTerm is one term searcher of the query, as bleve would build it.
type accumTerm struct {
	text   string
	r      index.TermFieldReader
	df     uint64
	idf    float64
	weight float64 // the query weight: idf · queryNorm
	ub     float64 // above any posting's score
}

// accumByCount sorts terms as bleve's OrderedSearcherList does.
type accumByCount []*accumTerm

func (a accumByCount) Len() int           { return len(a) }
func (a accumByCount) Less(i, j int) bool { return a[i].df < a[j].df }
func (a accumByCount) Swap(i, j int)      { a[i], a[j] = a[j], a[i] }

// accumCache keeps the postings of a snapshot's frequent terms as
// accumulatedCandidates reads them (each chunk's number and its BM25 score
// before the query weight, which depends only on the snapshot and its
// statistics): reading a frequent term's postings again is most of a
// long query's time. A term is kept at its first search in the snapshot
// after the snapshot's first (an opening that serves one search, the
// CLI's, pays nothing for it; kept at its second search, a server's
// second round of a query was as slow as its first) when it is in at
// least 1/accumShare of the chunks, while the cache holds less than
// maxBytes. The scores are those the postings give, so a
// search scores the same with the cache as without.
type accumCache struct {
	mu       sync.Mutex
	rdr      index.IndexReader // the snapshot
	avg      float64           // the statistics of the scores
	docTotal uint64
	terms    map[string]*accumPostings
	searches int // of the snapshot, by begin
	bytes    int
	maxBytes int
	share    uint64 // a term in at least 1/share of the chunks is kept; 0: every term (tests)
	// rescoring is the same opening's rescoring cache, for which a
	// term's postings keep their docs (withDocs); nil: never.
	rescoring *snapshotCache
}

// accumPostings are a term's postings: chunk numbers, in order, and each
// one's BM25 score before the query weight; for a term frequent enough for
// rescoring's cache (snapshotCache.keep), each one's frequency and text
// length too, read in the same walk: that cache takes ids and docs as they
// are, and does not walk the text postings a second time nor copy the
// chunk numbers (a frequent term's first use in a snapshot paid both).
type accumPostings struct {
	ids    []uint32
	scores []float64
	docs   []termDoc // nil, or one a posting
	noDocs bool      // a frequency or length did not fit termDoc: docs not kept
}

// withDocs says whether the postings of term, in df of docTotal chunks,
// are to keep the docs that rescoring's cache takes (snapshotCache.keep):
// when the term is frequent enough for that cache and it has room for
// them (snapshotCache.room). Docs no cache would take are not read.
func (c *accumCache) withDocs(rdr index.IndexReader, term string, df, docTotal uint64) bool {
	return c.rescoring != nil && df*frequentShare >= docTotal && c.rescoring.room(rdr, term, df)
}

const (
	// accumShare: a term in at least 1/accumShare of the chunks is
	// frequent enough for accumCache.
	accumShare = 64
	// accumCacheBytes bounds what an accumCache holds: 12 bytes a
	// posting.
	accumCacheBytes = 32 << 20
)

func newAccumCache() *accumCache {
	return &accumCache{maxBytes: accumCacheBytes, share: accumShare}
}

// lookup returns t's cached postings, or nil and whether the caller is to
// read them into the cache (store).
func (c *accumCache) lookup(rdr index.IndexReader, t *accumTerm, avg float64, docTotal uint64) (*accumPostings, bool) {
	if c == nil || t.df == 0 || (c.share > 0 && t.df*c.share < docTotal) {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.of(rdr, avg, docTotal)
	if p := c.terms[t.text]; p != nil {
		return p, false
	}
	if c.bytes+int(t.df)*12 > c.maxBytes {
		return nil, false
	}
	return nil, c.searches > 1
}

// textPostings returns term's postings with their docs when c holds them
// for rdr's snapshot, else nil.
func (c *accumCache) textPostings(rdr index.IndexReader, term string) *accumPostings {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rdr != rdr {
		return nil
	}
	if p := c.terms[term]; p != nil && p.docs != nil && len(p.docs) == len(p.ids) {
		return p
	}
	return nil
}

// begin counts a search of rdr's snapshot (with the statistics avg and
// docTotal).
func (c *accumCache) begin(rdr index.IndexReader, avg float64, docTotal uint64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.of(rdr, avg, docTotal)
	c.searches++
}

// of makes c the cache of rdr's snapshot with the statistics avg and
// docTotal: emptied when it held another's. Call with c.mu held.
func (c *accumCache) of(rdr index.IndexReader, avg float64, docTotal uint64) {
	if c.rdr != rdr || c.avg != avg || c.docTotal != docTotal {
		c.rdr, c.avg, c.docTotal, c.terms, c.searches, c.bytes = rdr, avg, docTotal, map[string]*accumPostings{}, 0, 0
	}
}

// store keeps p, term's postings, read for rdr with the statistics avg and
// docTotal.
func (c *accumCache) store(rdr index.IndexReader, term string, avg float64, docTotal uint64, p *accumPostings) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rdr != rdr || c.avg != avg || c.docTotal != docTotal || c.terms[term] != nil {
		return
	}
	if p.noDocs {
		p.docs = nil
	}
	n := len(p.ids)*12 + len(p.docs)*8
	if c.bytes+n > c.maxBytes && p.docs != nil {
		p.docs, n = nil, len(p.ids)*12 // the postings fit without them (lookup)
	}
	if c.bytes+n > c.maxBytes {
		return
	}
	c.terms[term] = p
	c.bytes += n
}

// accumBuffers are one search's dense arrays, by internal document
// number: each chunk's sum and count of terms so far (zero from hi on),
// and the chunks with a count, in the order first seen.
type accumBuffers struct {
	sum     []float64
	cnt     []uint16
	hi      uint64
	touched []uint64
}

// accumFree keeps accumBuffers between searches, and between openings of
// the index (a Reader closes its index when idle, and a server's searches
// are often of a new opening): in a sync.Pool, a collection dropped them,
// and sizing them again for every chunk (fresh memory, its page faults)
// cost a tenth of a search.
var accumFree struct {
	sync.Mutex
	bufs []*accumBuffers
}

// maxFreeBuffers is the most accumBuffers accumFree keeps: searches at the
// same time (a server's) beyond it allocate theirs.
const maxFreeBuffers = 4

// getAccumBuffers returns dense arrays for a search, reset.
func getAccumBuffers() *accumBuffers {
	accumFree.Lock()
	defer accumFree.Unlock()
	if n := len(accumFree.bufs); n > 0 {
		b := accumFree.bufs[n-1]
		accumFree.bufs = accumFree.bufs[:n-1]
		return b
	}
	return new(accumBuffers)
}

// putAccumBuffers gives b, reset, back for the next search.
func putAccumBuffers(b *accumBuffers) {
	accumFree.Lock()
	defer accumFree.Unlock()
	if len(accumFree.bufs) < maxFreeBuffers {
		accumFree.bufs = append(accumFree.bufs, b)
	}
}

// maxAccumTerms is the most terms accumulatedCandidates takes (the counts
// are uint16; a query has at most MaxQueryTerms words).
const maxAccumTerms = math.MaxUint16

// accumSlack is the relative margin of the heap order's rounding (above
// 2(m−1)u for any m ≤ maxAccumTerms) and of the pruning's bounds.
const accumSlack = 1e-9

// accumulatedCandidates returns what bleve's search for positive (a plain
// query: words only, no phrase, exclusion or filter) analysed with
// keyAnalyzer returns with its best size chunks, and true (when it pruned,
// the total is the chunks it saw, more than size, not all: all Search
// asks of it); false when the
// query is not of that shape (no BM25 statistics, no terms), or past
// DisjunctionHeapTakeover terms when a near tie at the cut leaves bleve's
// choice open (see above).
func accumulatedCandidates(ctx context.Context, idx bleve.Index, rdr index.IndexReader, positive, keyAnalyzer string, size int, stats *search.BM25Stats, cache *accumCache) (*bleve.SearchResult, bool, error) {
	res, _, err := accumulate(ctx, idx, rdr, positive, keyAnalyzer, size, stats, cache)
	return res, res != nil, err
}

// accumulate is accumulatedCandidates, with nil for false, and whether it
// pruned.
func accumulate(ctx context.Context, idx bleve.Index, rdr index.IndexReader, positive, keyAnalyzer string, size int, stats *search.BM25Stats, cache *accumCache) (*bleve.SearchResult, bool, error) {
	if stats == nil || size <= 0 {
		return nil, false, nil
	}
	im, ok := idx.Mapping().(*mapping.IndexMappingImpl)
	if !ok || im.ScoringModel != index.BM25Scoring {
		return nil, false, nil
	}
	a := im.AnalyzerNamed(keyAnalyzer)
	if a == nil {
		return nil, false, nil
	}
	toks := a.Analyze([]byte(positive))
	if len(toks) == 0 || len(toks) > maxAccumTerms {
		return nil, false, nil
	}
	// bm25ScoreMetrics, with the statistics Search passes bleve.
	card, ok := stats.FieldCardinality[fText]
	docTotal := uint64(stats.DocCount)
	if !ok || docTotal == 0 {
		return nil, false, nil
	}
	avg := math.Ceil(float64(card) / float64(docTotal))
	if !(avg > 0) {
		return nil, false, nil // bleve scores by tf-idf then
	}

	terms := make([]*accumTerm, 0, len(toks))
	defer func() {
		for _, t := range terms {
			t.r.Close()
		}
	}()
	for _, tok := range toks {
		r, err := rdr.TermFieldReader(ctx, tok.Term, fText, true, true, false)
		if err != nil {
			return nil, false, err
		}
		df := r.Count()
		// TermQueryScorer.computeIDF for BM25.
		idf := math.Log(1 + (float64(docTotal)-float64(df)+0.5)/
			(float64(df)+0.5))
		terms = append(terms, &accumTerm{r: r, df: df, idf: idf, text: string(tok.Term)})
	}
	n := len(terms)
	exactOrder := n <= searcher.DisjunctionHeapTakeover
	// The slice disjunction sorts its searchers; the heap one does not,
	// but any order serves it (see above), and the rarest first prunes.
	order := slices.Clone(terms)
	sort.Sort(accumByCount(order))
	// computeQueryNorm: Σ Weight() in the searchers' order, Weight() being
	// (boost·idf)², boost 1.
	sumOfSquaredWeights := 0.0
	for _, t := range searcherOrder(terms, order, exactOrder) {
		sumOfSquaredWeights += termWeight(t.idf)
	}
	queryNorm := 1.0 / math.Sqrt(sumOfSquaredWeights)
	for _, t := range terms {
		t.weight = 1.0 * t.idf * queryNorm
		t.ub = t.idf * search.BM25_k1 * t.weight * (1 + accumSlack)
	}
	coord := make([]float64, n+1)
	for m := range coord {
		coord[m] = float64(m) / float64(n)
	}

	buf := getAccumBuffers()
	defer putAccumBuffers(buf)
	defer buf.reset()
	buf.reserve(chunkNumbers(rdr))
	cache.begin(rdr, avg, docTotal)
	var alive []uint64 // when pruned: the chunks that can still be among the best, in order
	pruned := false
	read := uint64(0) // postings read
	var d index.TermFieldDoc
	for k, t := range order {
		if !pruned && k > 0 {
			alive, pruned = buf.prune(order[k:], n, read, coord, size)
		}
		var err error
		p, keep := cache.lookup(rdr, t, avg, docTotal)
		switch {
		case p != nil && !pruned:
			buf.addCached(p, t.weight)
			read += t.df
		case p != nil:
			buf.addCachedAlive(p, t.weight, alive)
		case !pruned:
			if keep {
				p = &accumPostings{ids: make([]uint32, 0, t.df), scores: make([]float64, 0, t.df)}
				if cache.withDocs(rdr, t.text, t.df, docTotal) {
					p.docs = make([]termDoc, 0, t.df)
				}
			}
			err = buf.addAll(ctx, t, avg, &d, p)
			if err == nil && p != nil {
				cache.store(rdr, t.text, avg, docTotal, p)
			}
			read += t.df
		case uint64(len(alive))*8 < t.df:
			err = buf.addAdvancing(ctx, t, avg, alive, &d)
		default:
			err = buf.addAlive(ctx, t, avg, alive, &d)
		}
		if err != nil {
			return nil, false, err
		}
	}
	res, err := buf.best(rdr, coord, size, pruned, exactOrder)
	return res, pruned, err
}

// prune says, before the terms rest of n are read, whether no chunk
// unseen so far can reach the best size (read postings read so far), and
// then which seen chunks still can (in order): the only ones the rest
// need be read for.
func (buf *accumBuffers) prune(rest []*accumTerm, n int, read uint64, coord []float64, size int) (alive []uint64, pruned bool) {
	ub, restDF := 0.0, uint64(0)
	for _, u := range rest {
		ub += u.ub
		restDF += u.df
	}
	// Worth a look only when the rest is much to read.
	if restDF <= 2*(read+uint64(len(buf.touched))) {
		return nil, false
	}
	th, ok := buf.lowerBound(coord, size)
	if !ok || ub*coord[len(rest)] >= th*(1-accumSlack) {
		return nil, false
	}
	for _, id := range buf.touched {
		if c := buf.cnt[id]; (buf.sum[id]+ub)*coord[int(c)+len(rest)] >= th*(1-accumSlack) {
			alive = append(alive, id)
		}
	}
	slices.Sort(alive)
	return alive, true
}

// best is the best size of the accumulated chunks as bleve's search
// result, or nil when it cannot be told apart from bleve's own (see
// accumulate).
func (buf *accumBuffers) best(rdr index.IndexReader, coord []float64, size int, pruned, exactOrder bool) (*bleve.SearchResult, error) {
	sum, cnt := buf.sum[:buf.hi], buf.cnt[:buf.hi]

	// The best size, by score then internal number (bleve's collector):
	// the order is total, so the chunks may be offered in any order.
	best := make(accumHeap, 0, size)
	total := len(buf.touched) // each chunk with a count once
	// dropped is the best score of the chunks left out: those that are not
	// offered score below the heap's worst, which only rises, by more
	// than 2·accumSlack (twice tiedAtCut's margin).
	dropped := math.Inf(-1)
	if buf.sparse() {
		for _, id := range buf.touched {
			c := cnt[id]
			if s := sum[id] * coord[c]; len(best) < size || s >= best[0].score*(1-2*accumSlack) {
				dropped = max(dropped, best.add(accumHit{id: id, score: s, cnt: c}, size))
			}
		}
	} else {
		for id := range uint64(len(cnt)) {
			c := cnt[id]
			if c == 0 {
				continue
			}
			if s := sum[id] * coord[c]; len(best) < size || s >= best[0].score*(1-2*accumSlack) {
				dropped = max(dropped, best.add(accumHit{id: id, score: s, cnt: c}, size))
			}
		}
	}
	if total <= size && pruned {
		return nil, nil // never: the best size are all scored, and more were seen
	}
	if !exactOrder && !best.separated(sum, cnt, coord, buf.touched, buf.sparse()) {
		return nil, nil
	}
	slices.SortFunc(best, func(x, y accumHit) int { return x.compare(y) })
	var run []*search.DocumentMatch // the chunks chosen from the run tied at the cut, by chunk key
	if len(best) == size && tiedAtCut(dropped, best[size-1].score) {
		// Chunks left out tie with the worst kept (tiedAtCut): of the
		// run of them all, the best size−above by chunk key (settleCut's
		// choice), above being the kept chunks that score above the run.
		cut := best[size-1].score
		above := 0
		for above < size && !tiedAtCut(best[above].score, cut) {
			above++
		}
		best = best[:above]
		var err error
		if run, err = buf.settleRun(rdr, coord, cut, size-above); err != nil {
			return nil, err
		}
	}
	res := &bleve.SearchResult{Total: uint64(total)}
	for _, h := range best {
		id := index.NewIndexInternalID(nil, h.id)
		ext, err := rdr.ExternalID(id)
		if err != nil {
			return nil, err
		}
		res.Hits = append(res.Hits, &search.DocumentMatch{IndexInternalID: id, ID: ext, Score: h.score})
	}
	res.Hits = append(res.Hits, run...)
	return res, nil
}

// settleRun returns the first k by chunk key (compareIDs) of the scored
// chunks tied with cut (tiedAtCut), in that order: a heap of k by key,
// the last on top, not a match for every chunk of the run (20,000 tied
// chunks were 8 MB a search).
func (buf *accumBuffers) settleRun(rdr index.IndexReader, coord []float64, cut float64, k int) ([]*search.DocumentMatch, error) {
	var h keyHeap
	var err error
	buf.eachScored(func(id uint64, c uint16) {
		s := buf.sum[id] * coord[c]
		if err != nil || !tiedAtCut(s, cut) {
			return
		}
		var ext string
		if ext, err = rdr.ExternalID(index.NewIndexInternalID(nil, id)); err == nil {
			h.add(keyedHit{id: id, ext: ext, score: s}, k)
		}
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(h, func(a, b keyedHit) int { return compareIDs(a.ext, b.ext) })
	run := make([]*search.DocumentMatch, len(h))
	for i, x := range h {
		run[i] = &search.DocumentMatch{IndexInternalID: index.NewIndexInternalID(nil, x.id), ID: x.ext, Score: x.score}
	}
	return run, nil
}

// keyedHit is a chunk of a run tied at a cut, with its id.
type keyedHit struct {
	id    uint64
	ext   string
	score float64
}

// keyHeap is a heap of hits by chunk key (compareIDs), the last on top
// (container/heap).
type keyHeap []keyedHit

func (h keyHeap) Len() int           { return len(h) }
func (h keyHeap) Less(i, j int) bool { return compareIDs(h[i].ext, h[j].ext) > 0 }
func (h keyHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *keyHeap) Push(x any)        { *h = append(*h, x.(keyedHit)) }
func (h *keyHeap) Pop() any {
	s := *h
	x := s[len(s)-1]
	*h = s[:len(s)-1]
	return x
}

// add offers m to h, which keeps the first k by key.
func (h *keyHeap) add(m keyedHit, k int) {
	switch {
	case len(*h) < k:
		heap.Push(h, m)
	case k > 0 && compareIDs(m.ext, (*h)[0].ext) < 0:
		(*h)[0] = m
		heap.Fix(h, 0)
	}
}

// eachScored calls fn with each chunk that has a count, in no set order.
func (buf *accumBuffers) eachScored(fn func(id uint64, c uint16)) {
	if buf.sparse() { // the chunks with a count, each once
		for _, id := range buf.touched {
			fn(id, buf.cnt[id])
		}
		return
	}
	for id, c := range buf.cnt[:buf.hi] {
		if c != 0 {
			fn(uint64(id), c)
		}
	}
}

// searcherOrder is the order bleve's disjunction keeps its searchers in:
// sorted (order) up to DisjunctionHeapTakeover terms, else the query's.
func searcherOrder(terms, order []*accumTerm, sorted bool) []*accumTerm {
	if sorted {
		return order
	}
	return terms
}

// termWeight is TermQueryScorer.Weight, boost 1.
func termWeight(idf float64) float64 {
	sum := 1.0 * idf
	return sum * sum
}

// bm25Posting is TermQueryScorer.Score's BM25 for a posting of a term
// (idf, query weight) with freq and norm, the field's average length avg.
func bm25Posting(idf, weight, avg float64, freq uint64, norm float64) float64 {
	tf := math.Sqrt(float64(freq))
	fieldLength := 1 / (norm * norm)
	score := idf * (tf * search.BM25_k1) /
		(tf + search.BM25_k1*(1-search.BM25_b+(search.BM25_b*fieldLength/avg)))
	if weight != 1.0 {
		score = score * weight
	}
	return score
}

// reset zeroes what a search wrote, for the next: the chunks it touched
// one by one when they are few (sparse), else the arrays up to hi.
func (b *accumBuffers) reset() {
	if b.sparse() {
		for _, id := range b.touched {
			b.sum[id], b.cnt[id] = 0, 0
		}
	} else {
		clear(b.sum[:b.hi])
		clear(b.cnt[:b.hi])
	}
	b.hi, b.touched = 0, b.touched[:0]
}

// sparse reports whether the chunks touched are few enough against the
// arrays' span (hi) that visiting them one by one (random reads) costs
// less than a pass over the arrays (sequential): a short query at ten
// times the corpus touches a few thousand chunks of 216k.
func (b *accumBuffers) sparse() bool {
	return uint64(len(b.touched))*sparseRatio < b.hi
}

// sparseRatio: the touched chunks are visited one by one when fewer than
// 1/sparseRatio of the arrays' span.
const sparseRatio = 8

// reserve makes the arrays hold n chunks, at once: grown as chunks come,
// the copies were a tenth of a search's time.
func (b *accumBuffers) reserve(n uint64) {
	if n > uint64(len(b.sum)) {
		b.sum = append(b.sum, make([]float64, n-uint64(len(b.sum)))...)
		b.cnt = append(b.cnt, make([]uint16, n-uint64(len(b.cnt)))...)
	}
}

// chunkNumbers is above every internal chunk number of rdr: the documents
// of its segments, deleted ones included; 0 when rdr is not scorch's.
func chunkNumbers(rdr index.IndexReader) uint64 {
	is, ok := rdr.(*scorch.IndexSnapshot)
	if !ok {
		return 0
	}
	n := uint64(0)
	for _, s := range is.Segments() {
		n += s.Segment().Count()
	}
	return n
}

// ensure makes the arrays hold chunk id.
func (b *accumBuffers) ensure(id uint64) {
	if id >= b.hi {
		if id >= uint64(len(b.sum)) {
			n := max(id+1, 2*uint64(len(b.sum)), 1024)
			b.sum = append(b.sum, make([]float64, n-uint64(len(b.sum)))...)
			b.cnt = append(b.cnt, make([]uint16, n-uint64(len(b.cnt)))...)
		}
		b.hi = id + 1
	}
}

// add adds score to chunk id.
func (b *accumBuffers) add(id uint64, score float64) {
	b.ensure(id)
	if b.cnt[id] == 0 {
		b.touched = append(b.touched, id)
	}
	b.sum[id] += score
	b.cnt[id]++
}

// addAll adds t's score to every chunk in its postings, and keeps them in
// keep when not nil.
func (b *accumBuffers) addAll(ctx context.Context, t *accumTerm, avg float64, d *index.TermFieldDoc, keep *accumPostings) error {
	for seen := 0; ; seen++ {
		if seen%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		doc, err := t.r.Next(d)
		if err != nil || doc == nil {
			return err
		}
		id := doc.ID.Value()
		if keep != nil {
			s := bm25Posting(t.idf, 1, avg, doc.Freq, doc.Norm)
			if id > math.MaxUint32 {
				return errors.New("indexer: a chunk number past 32 bits") // never: chunks are far fewer
			}
			keep.ids = append(keep.ids, uint32(id))
			keep.scores = append(keep.scores, s)
			if keep.docs != nil && !keep.noDocs {
				// As snapshotCache.keep reads them.
				dl := normLength(doc.Norm)
				if doc.Freq > math.MaxUint32 || dl > math.MaxUint32 {
					keep.noDocs = true
				} else {
					keep.docs = append(keep.docs, termDoc{text: uint32(doc.Freq), dl: uint32(dl)})
				}
			}
			if t.weight != 1.0 {
				s = s * t.weight
			}
			b.add(id, s)
			continue
		}
		b.add(id, bm25Posting(t.idf, t.weight, avg, doc.Freq, doc.Norm))
	}
}

// addCached adds the score of a term with query weight w to every chunk
// in its cached postings p.
func (b *accumBuffers) addCached(p *accumPostings, w float64) {
	if len(p.ids) > 0 {
		b.ensure(uint64(p.ids[len(p.ids)-1]))
	}
	sum, cnt := b.sum, b.cnt
	for i, id := range p.ids {
		s := p.scores[i]
		if w != 1.0 {
			s = s * w
		}
		if cnt[id] == 0 {
			b.touched = append(b.touched, uint64(id))
		}
		sum[id] += s
		cnt[id]++
	}
}

// addCachedAlive is addCached for the chunks of alive (sorted) only.
func (b *accumBuffers) addCachedAlive(p *accumPostings, w float64, alive []uint64) {
	i := 0
	for j, id := range p.ids {
		for i < len(alive) && alive[i] < uint64(id) {
			i++
		}
		if i == len(alive) {
			return
		}
		if alive[i] == uint64(id) {
			s := p.scores[j]
			if w != 1.0 {
				s = s * w
			}
			b.add(uint64(id), s)
			i++
		}
	}
}

// addAdvancing adds t's score to the chunks of alive (sorted) in its
// postings, advancing its reader to each.
func (b *accumBuffers) addAdvancing(ctx context.Context, t *accumTerm, avg float64, alive []uint64, d *index.TermFieldDoc) error {
	var idb [8]byte
	for i, steps := 0, 0; i < len(alive); steps++ {
		if steps%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		doc, err := t.r.Advance(index.NewIndexInternalID(idb[:0], alive[i]), d)
		if err != nil || doc == nil {
			return err
		}
		id := doc.ID.Value()
		j, found := slices.BinarySearch(alive[i:], id)
		i += j
		if found {
			b.add(id, bm25Posting(t.idf, t.weight, avg, doc.Freq, doc.Norm))
			i++
		}
	}
	return nil
}

// addAlive adds t's score to the chunks of alive (sorted) in its postings,
// reading them all.
func (b *accumBuffers) addAlive(ctx context.Context, t *accumTerm, avg float64, alive []uint64, d *index.TermFieldDoc) error {
	i := 0
	for seen := 0; i < len(alive); seen++ {
		if seen%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		doc, err := t.r.Next(d)
		if err != nil || doc == nil {
			return err
		}
		id := doc.ID.Value()
		for i < len(alive) && alive[i] < id {
			i++
		}
		if i < len(alive) && alive[i] == id {
			b.add(id, bm25Posting(t.idf, t.weight, avg, doc.Freq, doc.Norm))
			i++
		}
	}
	return nil
}

// lowerBound returns the size-th largest of sum·coord[cnt] over the
// chunks seen (each only grows as terms are added), and whether more than
// size chunks were seen.
func (b *accumBuffers) lowerBound(coord []float64, size int) (float64, bool) {
	if len(b.touched) <= size {
		return 0, false
	}
	h := make(accumHeap, 0, size)
	for _, id := range b.touched {
		// Most chunks score below the heap's worst: told apart before
		// add (prune calls this for every term of a long query until it
		// prunes: 4 in 5 calls do not).
		if s := b.sum[id] * coord[b.cnt[id]]; len(h) < size || s >= h[0].score {
			h.add(accumHit{id: id, score: s}, size)
		}
	}
	return h[0].score, true
}

// accumHit is a chunk scored by accumulatedCandidates.
type accumHit struct {
	id    uint64
	score float64
	cnt   uint16
}

// compare orders hits best first: by score, then by internal number.
func (h accumHit) compare(o accumHit) int {
	if h.score != o.score {
		if h.score > o.score {
			return -1
		}
		return 1
	}
	if h.id < o.id {
		return -1
	}
	if h.id > o.id {
		return 1
	}
	return 0
}

// accumHeap is a heap of at most size hits, the worst on top.
type accumHeap []accumHit

// add offers h to b, and returns the score of the hit it drops when full
// (h, or the worst it held), else −Inf.
func (b *accumHeap) add(h accumHit, size int) float64 {
	s := *b
	if len(s) == size {
		if h.compare(s[0]) >= 0 {
			return h.score
		}
		dropped := s[0].score
		s[0] = h
		s.down(0)
		return dropped
	}
	s = append(s, h)
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p].compare(s[i]) >= 0 {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
	*b = s
	return math.Inf(-1)
}

func (b accumHeap) down(i int) {
	for {
		l, w := 2*i+1, i
		if l < len(b) && b[l].compare(b[w]) > 0 {
			w = l
		}
		if r := l + 1; r < len(b) && b[r].compare(b[w]) > 0 {
			w = r
		}
		if w == i {
			return
		}
		b[i], b[w] = b[w], b[i]
		i = w
	}
}

// separated reports whether b, the best of the chunks scored in sum and
// cnt, are the best whatever order each chunk's terms were added in: every
// chunk in b beats every chunk out of it by more than the rounding of
// another order, unless both chunks' scores are exact (at most two terms
// added); and the run tied at the cut (tiedAtCut) is the same with
// bleve's sums: when a chunk out of b is within 3·accumSlack of the cut's
// score, no chunk but the cut's is, unless both scores are exact (another
// order's rounding could move it across the run's edge; with none out of
// b that near, the run is b's own chunks, kept whatever their order).
func (b accumHeap) separated(sum []float64, cnt []uint16, coord []float64, touched []uint64, sparse bool) bool {
	if len(b) == 0 {
		return true
	}
	// b is a heap, its worst on top: a chunk is in b when it is at least
	// as good (hits are ordered totally, by score then number). A map of
	// b's chunks, looked up for every chunk, was a quarter of a 12-word
	// search.
	worst := b[0]
	// The lowest in b, exact and not; the highest out of it, likewise.
	loExact, loRound := math.Inf(1), math.Inf(1)
	cut := worst.score
	// near: a chunk (not the cut's) whose score, or the cut's, is
	// rounded, within 3·accumSlack of the cut.
	near := func(s float64, c uint16) bool {
		return (c > 2 || worst.cnt > 2) && math.Abs(s-cut) <= 3*accumSlack*cut
	}
	nearIn := false // a chunk of b but the cut's is near
	for _, h := range b {
		if h.id != worst.id && near(h.score, h.cnt) {
			nearIn = true
		}
		if h.cnt <= 2 {
			loExact = min(loExact, h.score)
		} else {
			loRound = min(loRound, h.score*(1-accumSlack))
		}
	}
	hiExact, hiRound := math.Inf(-1), math.Inf(-1)
	out := func(id uint64, c uint16) {
		s := sum[id] * coord[c]
		if (accumHit{id: id, score: s}).compare(worst) <= 0 {
			return // in b
		}
		if near(s, c) || nearIn && math.Abs(s-cut) <= 3*accumSlack*cut {
			hiRound = math.Inf(1) // not separated
		}
		if c <= 2 {
			hiExact = max(hiExact, s)
		} else {
			hiRound = max(hiRound, s*(1+accumSlack))
		}
	}
	if sparse { // the chunks with a count, each once (accumBuffers.sparse)
		for _, id := range touched {
			out(id, cnt[id])
		}
	} else {
		for id, c := range cnt {
			if c != 0 {
				out(uint64(id), c)
			}
		}
	}
	return loRound > hiExact && loRound > hiRound && loExact > hiRound
}
