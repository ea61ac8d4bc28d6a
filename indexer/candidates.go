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
//   - ties at the cut are settled by chunk key (searchCut, rankOrder),
//     alike in both: every chunk tied with the size-th of the
//     conjunction holds every term, since it scores above the bound.
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
	res, err := searchCut(ctx, idx, req, size)
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
