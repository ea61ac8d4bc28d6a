package indexer

import (
	"context"
	"slices"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
)

// The order of results (issue 27, round 15). Every ranked list a search
// gives, and every cut of one (the candidates' best size, the hits'
// limit, the best chunk of each document and its More), is in one order:
// rankOrder's, by score, best first, then by chunk key (compareIDs:
// package, path, chunk number). bleve breaks ties by its internal
// document numbers, which depend on how the index's segments were written
// and merged (a fresh build, batch sizes, an update): the same documents
// could give other candidates, and so other More counts, from one build
// to the next. Where a cut is bleve's (searchCut) or accumulate's, the
// chunks tied at it are all found and the cut is settled by rankOrder.
// TestTiesAnyInternalOrder builds the same documents in two orders.

// rankOrder is the one order of ranked chunks: by score, best first, then
// by chunk id (compareIDs). It is total over distinct chunks.
func rankOrder(aScore float64, aID string, bScore float64, bID string) int {
	if aScore != bScore {
		if aScore > bScore {
			return -1
		}
		return 1
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

// settleCut returns the best size of hits (best first by score, holding
// every chunk that scores as the size-th does) in rankOrder's choice: the
// chunks tied at the cut are kept by chunk id, not by bleve's order.
func settleCut(hits []*search.DocumentMatch, size int) []*search.DocumentMatch {
	if len(hits) <= size {
		return hits
	}
	cut := hits[size-1].Score
	if hits[size].Score != cut {
		return hits[:size]
	}
	lo, hi := size-1, size+1
	for lo > 0 && hits[lo-1].Score == cut {
		lo--
	}
	for hi < len(hits) && hits[hi].Score == cut {
		hi++
	}
	slices.SortFunc(hits[lo:hi], func(a, b *search.DocumentMatch) int { return rankOrder(a.Score, a.ID, b.Score, b.ID) })
	return hits[:size]
}

// searchCut is bleve's search of req for its best size chunks, by score,
// with ties at the cut settled by rankOrder (settleCut): it asks for one
// more than size, and while the last it got ties with the size-th and
// bleve has more, for twice as many (at most all bleve has).
func searchCut(ctx context.Context, idx bleve.Index, req *bleve.SearchRequest, size int) (*bleve.SearchResult, error) {
	for n := size + 1; ; n *= 2 {
		req.Size = n
		res, err := idx.SearchInContext(ctx, req)
		if err != nil {
			return nil, err
		}
		if len(res.Hits) <= size {
			return res, nil
		}
		if res.Hits[len(res.Hits)-1].Score != res.Hits[size-1].Score || len(res.Hits) < n || uint64(len(res.Hits)) >= res.Total {
			res.Hits = settleCut(res.Hits, size)
			return res, nil
		}
	}
}
