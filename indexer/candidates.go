package indexer

import (
	"context"
	"math"
	"slices"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
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
// TestAllTermCandidates compares both ways on an index where the shortcut
// is taken, and bench/relevance's -dump compares every hit byte for byte.

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
	if stats == nil || stats.DocCount <= 0 {
		return nil, false, nil
	}
	a := idx.Mapping().AnalyzerNamed(keyAnalyzer)
	if a == nil {
		return nil, false, nil
	}
	toks := a.Analyze([]byte(positive))
	if len(toks) < 2 || len(toks) > maxAllTerms {
		return nil, false, nil
	}
	// Each term's bound, as bleve's TermQueryScorer computes its idf
	// (docTotal from stats, docTerm from the postings) and its weight.
	n := stats.DocCount
	idf := make([]float64, len(toks))
	sumSq := 0.0
	for i, t := range toks {
		r, err := rdr.TermFieldReader(ctx, t.Term, fText, false, false, false)
		if err != nil {
			return nil, false, err
		}
		df := float64(r.Count())
		r.Close()
		if df <= float64(size) {
			return nil, false, nil // at most size chunks hold every term
		}
		idf[i] = math.Log(1 + (float64(uint64(n))-df+0.5)/(df+0.5))
		sumSq += idf[i] * idf[i]
	}
	norm := 1 / math.Sqrt(sumSq)
	ub := make([]float64, len(toks))
	for i, x := range idf {
		ub[i] = x * search.BM25_k1 * x * norm
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
