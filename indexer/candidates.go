package indexer

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// Candidates from the chunks that hold every word (issue 18). bleve finds
// a search's candidates by scoring every chunk that holds any of its
// words: for frequent words (at ten times the corpus, "feature gate"
// matches 60,000 chunks) that is most of a search's time, while the best
// size are nearly always chunks that hold them all. allTermCandidates
// asks bleve first for the best size of those (a conjunction, which skips
// through the postings), and keeps them when no chunk that misses a word
// can score as high; otherwise Search asks for the disjunction as before.
//
// The result is bleve's own, the same chunks in the same order:
//
//   - a chunk that holds all n terms scores the same in both queries: the
//     same term scorers, sorted alike (by document count), with the same
//     query norm, summed in the same order; the disjunction multiplies
//     the sum by its coordination factor, n/n;
//   - a chunk that holds m < n of them scores at most
//     m/n · Σ (the m largest ub_t) in the disjunction, where ub_t bounds
//     a term's score: BM25's idf·tf·k1/(tf + k1·(1−b+b·dl/avgdl)) is below
//     idf·k1, times the term's query weight idf·norm; below the size-th
//     score of the conjunction, no such chunk is among the best size;
//   - ties are broken by the order bleve collects chunks in (the index's),
//     which both keep.
//
// TestCandidateShortcuts compares both ways on an index where the
// shortcut is taken, and bench/relevance's -dump compares every hit byte
// for byte.

// maxAllTerms is the most terms allTermCandidates tries: with four, a
// chunk that misses one keeps 3/4 of its score, and the bound held for
// none of bench/scale's queries at 10× (the conjunction was a cost).
// bleve's disjunction of 10 or more terms is another searcher, which
// the proof does not cover.
const maxAllTerms = 3

// allTermCandidates returns what bleve's search for positive (plain words,
// no phrase, exclusion or filter), analysed with keyAnalyzer, with its
// best size chunks, returns, and true, when the chunks that hold every
// term are provably those (see above); false when not, or when the query
// does not have the shape the proof is for (2 to maxAllTerms terms,
// scored by BM25: stats), or a term is in at most size chunks.
func allTermCandidates(ctx context.Context, idx bleve.Index, rdr index.IndexReader, positive, keyAnalyzer string, size int, stats *search.BM25Stats) (*bleve.SearchResult, bool, error) {
	terms, err := shortcutTerms(ctx, idx, rdr, positive, keyAnalyzer, stats, maxAllTerms)
	if err != nil || terms == nil {
		return nil, false, err
	}
	ub := make([]float64, len(terms))
	for i, t := range terms {
		if t.df <= float64(size) {
			return nil, false, nil // at most size chunks hold every term
		}
		ub[i] = t.ub
	}
	slices.Sort(ub)
	slices.Reverse(ub)
	bound, sum := 0.0, 0.0
	for m := 1; m < len(ub); m++ {
		sum += ub[m-1]
		bound = max(bound, float64(m)/float64(len(ub))*sum)
	}
	bound *= 1 + 1e-6 // rounding, in bleve's arithmetic and this

	mq := bleve.NewMatchQuery(positive)
	mq.SetField(fText)
	mq.Analyzer = keyAnalyzer
	mq.SetOperator(query.MatchQueryOperatorAnd)
	req := bleve.NewSearchRequestOptions(mq, size, 0, false)
	req.PreSearchData = map[string]any{search.BM25PreSearchDataKey: stats}
	res, err := idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, false, err
	}
	// More chunks than size hold every term (so the disjunction, too,
	// has more than size: Search's "bleve has more" holds alike), and the
	// size-th of them scores above any chunk that misses one.
	if res.Total <= uint64(size) || len(res.Hits) < size || !(res.Hits[size-1].Score > bound) {
		return nil, false, nil
	}
	return res, true, nil
}

// Candidates from the chunks that hold a rare word. When a query's
// frequent terms are worth little (a term's bound ub_t, above, grows with
// its idf²), essentialCandidates scores, with bleve's own searcher for the
// search's query (so with bleve's scores, bit for bit), only the chunks
// that hold one of its other terms: it walks their union and advances the
// query's searcher to each, skipping the chunks that hold frequent terms
// alone ("find files by name" at 10×: the 5,836 chunks with "find", not
// the 150,000 with "file" or "name"). The best size of them are bleve's
// best size when more than size were scored and the size-th scores above
// the bound on a chunk that holds frequent terms only: m of the n terms
// give at most m/n · Σ (the m largest ub_t among them). Ties are broken
// by the chunks' order in the index, as bleve's collector does.

// essentialCandidates returns what bleve's search for bq, a plain-words
// query whose words (positive, analysed with keyAnalyzer) are its only
// scored terms, with its best size chunks, returns, and true, when the
// shortcut above applies and holds; false when not.
func essentialCandidates(ctx context.Context, idx bleve.Index, rdr index.IndexReader, bq query.Query, positive, keyAnalyzer string, size int, stats *search.BM25Stats) (*bleve.SearchResult, bool, error) {
	terms, err := shortcutTerms(ctx, idx, rdr, positive, keyAnalyzer, stats, searcher.DisjunctionHeapTakeover-1)
	if err != nil || terms == nil {
		return nil, false, err
	}
	n := len(terms)
	// The frequent terms: the longest run of the least worth whose bound
	// is under a quarter of the rest's worth (a guess at the size-th
	// score; the bound is checked against the real one after).
	slices.SortFunc(terms, func(x, y shortcutTerm) int { return cmp.Compare(x.ub, y.ub) })
	frequent, bound := 0, 0.0
	for k := 1; k < n; k++ {
		b, sum := 0.0, 0.0
		for m := 1; m <= k; m++ {
			sum += terms[k-m].ub
			b = max(b, float64(m)/float64(n)*sum)
		}
		rest := 0.0
		for _, t := range terms[k:] {
			rest += t.ub
		}
		if b >= rest/4 {
			break
		}
		frequent, bound = k, b
	}
	if frequent == 0 {
		return nil, false, nil
	}
	skipped, walked := 0.0, 0.0
	for i, t := range terms {
		if i < frequent {
			skipped += t.df
		} else {
			walked += t.df
		}
	}
	if walked <= float64(size) || skipped < 2*walked {
		return nil, false, nil // too few to walk, or too little to skip
	}
	bound *= 1 + 1e-6 // rounding, in bleve's arithmetic and this

	// What bleve's SearchInContext puts in the context for its searcher:
	// the model (BM25 when the mapping says so) and the statistics.
	im, ok := idx.Mapping().(*mapping.IndexMappingImpl)
	if !ok || im.ScoringModel != index.BM25Scoring {
		return nil, false, nil
	}
	ctx = context.WithValue(ctx, search.GetScoringModelCallbackKey,
		search.GetScoringModelCallbackFn(func() string { return index.BM25Scoring }))
	ctx = context.WithValue(ctx, search.BM25StatsKey, stats)
	all, err := bq.Searcher(ctx, rdr, idx.Mapping(), search.SearcherOptions{})
	if err != nil {
		return nil, false, err
	}
	defer all.Close()
	var rare []query.Query
	for _, t := range terms[frequent:] {
		tq := bleve.NewTermQuery(t.text)
		tq.SetField(fText)
		rare = append(rare, tq)
	}
	walk, err := bleve.NewDisjunctionQuery(rare...).Searcher(ctx, rdr, idx.Mapping(), search.SearcherOptions{Score: "none"})
	if err != nil {
		return nil, false, err
	}
	defer walk.Close()
	sctx := &search.SearchContext{
		DocumentMatchPool: search.NewDocumentMatchPool(all.DocumentMatchPoolSize()+walk.DocumentMatchPoolSize()+2, 0),
		IndexReader:       rdr,
	}
	best := make(bestHits, 0, size)
	count := 0
	for {
		if count%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, false, err
			}
		}
		d, err := walk.Next(sctx)
		if err != nil {
			return nil, false, err
		}
		if d == nil {
			break
		}
		m, err := all.Advance(sctx, d.IndexInternalID)
		if err != nil {
			return nil, false, err
		}
		if m == nil || !m.IndexInternalID.Equals(d.IndexInternalID) {
			return nil, false, nil // never: the query holds every rare term
		}
		best.add(bestHit{seq: count, score: m.Score, id: m.IndexInternalID}, size)
		count++
		sctx.DocumentMatchPool.Put(d)
		sctx.DocumentMatchPool.Put(m)
	}
	if count <= size || !(best.worst().score > bound) {
		return nil, false, nil
	}
	slices.SortFunc(best, func(x, y bestHit) int { return x.compare(y) })
	res := &bleve.SearchResult{Total: uint64(count)}
	for _, h := range best {
		ext, err := rdr.ExternalID(h.id)
		if err != nil {
			return nil, false, err
		}
		res.Hits = append(res.Hits, &search.DocumentMatch{IndexInternalID: h.id, ID: ext, Score: h.score})
	}
	return res, true, nil
}

// bestHit is a chunk scored by essentialCandidates: seq is its place in
// the walk (the index's order).
type bestHit struct {
	seq   int
	score float64
	id    index.IndexInternalID
}

// compare orders hits best first: by score, then by seq (bleve's
// collector's order).
func (h bestHit) compare(o bestHit) int {
	if h.score != o.score {
		if h.score > o.score {
			return -1
		}
		return 1
	}
	return cmp.Compare(h.seq, o.seq)
}

// bestHits is a heap of at most size hits, the worst on top.
type bestHits []bestHit

func (b bestHits) worst() bestHit { return b[0] }

// add puts h in b when b has fewer than size hits or h is better than
// its worst (h's id is copied then: a searcher reuses its bytes).
func (b *bestHits) add(h bestHit, size int) {
	s := *b
	if len(s) == size {
		if h.compare(s[0]) >= 0 {
			return
		}
		h.id = append(s[0].id[:0], h.id...)
		s[0] = h
		s.down(0)
		return
	}
	h.id = append(index.IndexInternalID(nil), h.id...)
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
}

// down restores the heap below i (the worst, by compare, on top).
func (b bestHits) down(i int) {
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

// shortcutTerm is one term of a query, for the shortcuts: its text, the
// number of chunks that hold it, and ub_t, the most it adds to a chunk's
// score in bleve's BM25 (see above).
type shortcutTerm struct {
	text   string
	df, ub float64
}

// shortcutTerms analyses positive with keyAnalyzer and gives each of its
// terms, with idf as bleve's TermQueryScorer computes it (docTotal from
// stats, docTerm from the postings) and the query norm of them all. It
// returns nil when the shortcuts do not apply: no BM25 statistics, no
// such analyzer, fewer than two terms or more than max.
func shortcutTerms(ctx context.Context, idx bleve.Index, rdr index.IndexReader, positive, keyAnalyzer string, stats *search.BM25Stats, max int) ([]shortcutTerm, error) {
	if stats == nil || stats.DocCount <= 0 {
		return nil, nil
	}
	a := idx.Mapping().AnalyzerNamed(keyAnalyzer)
	if a == nil {
		return nil, nil
	}
	toks := a.Analyze([]byte(positive))
	if len(toks) < 2 || len(toks) > max {
		return nil, nil
	}
	terms := make([]shortcutTerm, len(toks))
	sumSq := 0.0
	for i, t := range toks {
		r, err := rdr.TermFieldReader(ctx, t.Term, fText, false, false, false)
		if err != nil {
			return nil, err
		}
		df := float64(r.Count())
		r.Close()
		idf := bm25IDF(float64(uint64(stats.DocCount)), df)
		terms[i] = shortcutTerm{text: string(t.Term), df: df, ub: idf * idf}
		sumSq += idf * idf
	}
	norm := 1 / math.Sqrt(sumSq)
	for i := range terms {
		terms[i].ub *= search.BM25_k1 * norm
	}
	return terms, nil
}
