package indexer

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
)

// The order of results (issue 27, round 15). The scored lists a search
// gives, and every cut of them (the candidates' best size, the hits'
// limit, the best chunk of each document and its More), are in one order:
// rankOrder's, by score, best first, then by chunk key (compareIDs:
// package, path, chunk number). bleve breaks ties by its internal
// document numbers, which depend on how the index's segments were written
// and merged (a fresh build, batch sizes, an update): the same documents
// could give other candidates, and so other More counts, from one build
// to the next. Where a cut is bleve's (searchCut) or accumulate's, the
// chunks tied at it are all found and the cut is settled by chunk key
// (settleCut). Tied means within rounding (tiedAtCut): past
// DisjunctionHeapTakeover terms bleve sums a chunk's terms in its heap's
// order, so identical chunks score a few ulps apart.
// TestTiesAnyInternalOrder builds the same documents in two orders.
//
// Not in rankOrder, each stable by its own total order: a search with no
// scored words lists chunks by bleve's sort on _id, as text (chunk 10
// before chunk 2: the candidates.go byID path); the hybrid fuse orders
// equal fused scores by first position in its inputs, which are in
// rankOrder (vectors_search.go); the vector shortlist cuts by row number,
// the catalogue's order, which a rebuild from the same documents keeps.

// rankOrder is the one order of ranked chunks: by score, best first, then
// by chunk id (compareIDs). It is total over distinct chunks (a NaN score
// sorts after every number, as cmp.Compare orders it).
func rankOrder(aScore float64, aID string, bScore float64, bID string) int {
	if c := cmp.Compare(bScore, aScore); c != 0 {
		return c
	}
	return compareIDs(aID, bID)
}

// compareIDs orders chunk ids by package, path, then chunk number.
func compareIDs(a, b string) int {
	pa, na := splitChunkID(a)
	pb, nb := splitChunkID(b)
	if pa != pb {
		if pa < pb {
			return -1
		}
		return 1
	}
	return na - nb
}

// tiedAtCut reports whether score s counts as tied with cut, the score of
// the size-th of a cut: within accumSlack of it, relatively, the margin
// of another order of a sum's rounding (accumulate.go). Identical chunks
// score bit-equal up to DisjunctionHeapTakeover terms, and a few ulps
// apart past it.
//
// The run of chunks tied at a cut is stable from one build to the next:
// cut is one of the run's scores, which differ by rounding (about 1e-14
// of them, far below accumSlack), so a chunk's membership can change only
// when its score lies within that rounding of the window's edge, 1e-9
// from the run: two scores that close to exactly that distance apart. In
// that case the cut is bleve's order, as before.
func tiedAtCut(s, cut float64) bool {
	return math.Abs(s-cut) <= accumSlack*math.Abs(cut)
}

// settleCut returns the best size of hits (best first by score, holding
// every chunk tied with the size-th, tiedAtCut) by chunk key (compareIDs): the
// run of chunks tied at the cut is sorted by chunk id alone (their scores
// differ, if at all, by rounding, which depends on bleve's order), and
// its first ones kept. Hits above the run stay in bleve's order (score,
// then internal number): rescore orders them again.
func settleCut(hits []*search.DocumentMatch, size int) []*search.DocumentMatch {
	if size <= 0 {
		return hits[:0]
	}
	if len(hits) <= size {
		return hits
	}
	cut := hits[size-1].Score
	if !tiedAtCut(hits[size].Score, cut) {
		return hits[:size]
	}
	lo, hi := size-1, size+1
	for lo > 0 && tiedAtCut(hits[lo-1].Score, cut) {
		lo--
	}
	for hi < len(hits) && tiedAtCut(hits[hi].Score, cut) {
		hi++
	}
	slices.SortFunc(hits[lo:hi], func(a, b *search.DocumentMatch) int { return compareIDs(a.ID, b.ID) })
	return hits[:size]
}

// searchCut is bleve's search of req for its best size chunks, by score,
// with the run tied at the cut settled by chunk key (settleCut): it asks
// for one more than size; when the last it got ties with the size-th
// (tiedAtCut) and bleve has more, for tieProbe times as many; when the
// last of those ties too, for all bleve has. Doubling took eight searches
// for 20,000 tied chunks (bleve keeps and names every hit it is asked
// for: 25 MB a search); asking for all at once after the first would,
// for a short run tied at the cut among 60,000 matches, keep and name
// every match.
func searchCut(ctx context.Context, idx bleve.Index, req *bleve.SearchRequest, size int) (*bleve.SearchResult, error) {
	if size <= 0 {
		req.Size = 0
		return idx.SearchInContext(ctx, req)
	}
	req.Size = size + 1
	for probe := 0; ; probe++ {
		res, err := idx.SearchInContext(ctx, req)
		if err != nil {
			return nil, err
		}
		if len(res.Hits) <= size || len(res.Hits) < req.Size || uint64(len(res.Hits)) >= res.Total ||
			!tiedAtCut(res.Hits[len(res.Hits)-1].Score, res.Hits[size-1].Score) {
			res.Hits = settleCut(res.Hits, size)
			return res, nil
		}
		if probe == 0 && uint64(req.Size)*tieProbe < res.Total {
			req.Size *= tieProbe
		} else {
			req.Size = int(min(res.Total, math.MaxInt))
		}
	}
}

// tieProbe is how many times more hits searchCut asks for, before all,
// when the first it got ends in a tie at the cut.
const tieProbe = 8
