package indexer

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
)

// Semantic is the semantic half of a search: the user's embedding model
// and how to embed a query with it (internal/embed.Client, with the short
// timeout of a search).
type Semantic struct {
	Model string
	Embed func(ctx context.Context, text string) ([]float32, error)
	// Fusion is how the halves are combined; zero = DefaultFusion.
	Fusion Fusion
}

// Fusion combines a lexical and a semantic ranking.
type Fusion struct {
	// Method is "rrf" (reciprocal rank fusion, k = 60) or "blend" (each
	// half's scores scaled to 0–1 over its list, then a weighted sum).
	Method string
	// Weight is the semantic half's share, 0–1.
	Weight float64
}

// DefaultFusion is the fusion of SearchHybrid when Semantic.Fusion is
// zero: chosen on bench/relevance (see bench/relevance/README.md,
// "Hybrid").
var DefaultFusion = Fusion{Method: "blend", Weight: 0.1}

// rrfK is reciprocal rank fusion's constant (Cormack et al.: 60).
const rrfK = 60

// semanticDepth is how many chunks the semantic half contributes for a
// search of limit hits.
func semanticDepth(limit int) int { return max(3*limit, 30) }

// SearchHybrid is Search with a semantic half: the chunks whose vectors
// are nearest the query's words (its phrases included; qualifiers,
// exclusions and phrases filter them as they filter the lexical half),
// fused with BM25F's ranking. With s nil it is Search. When the semantic
// half cannot run (no vectors yet, another model, the endpoint failing or
// slow), it answers from BM25F alone and note says why in one line; err is
// only Search's own. A partly embedded index is used for what it has.
func (r *Reader) SearchHybrid(ctx context.Context, q Query, s *Semantic) (hits []Hit, note string, err error) {
	if s == nil {
		hits, err = r.Search(ctx, q)
		return hits, "", err
	}
	if text := strings.TrimSpace(q.Text); text == "" || CheckQuery(text) != nil {
		hits, err = r.Search(ctx, q) // its error says what is wrong, with nothing sent to the endpoint
		return hits, "", err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	// The lexical half is the search asked for (a deeper one costs BM25F
	// its rescoring of 20× the limit: at 10× the corpus, twice a search's
	// CPU); the semantic half brings semanticDepth chunks. The lexical
	// half runs on its own goroutine while the semantic half loads the
	// vectors, embeds the query and scans: a hybrid search waits for the
	// slower of the two, not for both.
	depth := semanticDepth(limit)
	type lexical struct {
		hits []Hit
		err  error
	}
	lexc := make(chan lexical, 1)
	go func() {
		hits, err := r.Search(ctx, q)
		lexc <- lexical{hits, err}
	}()
	sem, why, err := r.semanticHalf(ctx, q, s, depth)
	lex := <-lexc
	if lex.err != nil {
		return nil, "", lex.err
	}
	if err != nil {
		return nil, "", err
	}
	if why != "" {
		return fuse(lex.hits, nil, Fusion{Method: "lexical"}, q.BestPerDocument, limit), "semantic search off: " + why + "; lexical results only", nil
	}
	if sem == nil {
		return fuse(lex.hits, nil, Fusion{Method: "lexical"}, q.BestPerDocument, limit), "", nil
	}
	f := s.Fusion
	if f.Method == "" {
		f = DefaultFusion
	}
	return fuse(lex.hits, sem, f, q.BestPerDocument, limit), "", nil
}

// semanticHalf is SearchHybrid's semantic half: the chunks nearest the
// query's words (at most depth), best first, their similarity as score;
// nil, nil when the query has no words to embed. why says, when not
// empty, why the half cannot run (the search answers from BM25F alone);
// err is only Search's own.
func (r *Reader) semanticHalf(ctx context.Context, q Query, s *Semantic, depth int) (sem []Hit, why string, err error) {
	pq := queryOf(q)
	text := pq.positive()
	if strings.TrimSpace(text) == "" {
		return nil, "", nil
	}
	vs, err := loadVectors(r.indexDir())
	switch {
	case err != nil:
		return nil, err.Error(), nil
	case vs == nil || vs.Count == 0:
		return nil, "nothing is embedded yet (run `ctx index`)", nil
	case vs.Model != s.Model:
		return nil, fmt.Sprintf("the index's vectors are of model %q, not %q (run `ctx index` to embed again)", vs.Model, s.Model), nil
	}
	qv, err := s.Embed(ctx, text)
	if err != nil {
		return nil, err.Error(), nil
	}
	if len(qv) != vs.Dims {
		return nil, fmt.Sprintf("the query's vector has %d dimensions, the index's %d (did the model change? run `ctx index`)", len(qv), vs.Dims), nil
	}
	keep, err := r.vectorFilter(q, pq, vs)
	if err != nil {
		return nil, "", err
	}
	near := vs.nearest(qv, depth, keep)
	if len(near) == 0 {
		return []Hit{}, "", nil
	}
	ids := make([]string, len(near))
	sim := make(map[string]float32, len(near))
	for i, h := range near {
		d := vs.docs[vs.doc[h.i]]
		ids[i] = chunkID(d.alias, d.path, int(vs.chunk[h.i]))
		sim[ids[i]] = h.sim
	}
	sq := q
	sq.ids, sq.Limit, sq.BestPerDocument = ids, len(ids), false
	if sem, err = r.Search(ctx, sq); err != nil {
		return nil, "", err
	}
	sem = slices.DeleteFunc(sem, func(h Hit) bool { _, ok := sim[h.id]; return !ok })
	for i := range sem {
		sem[i].Score = float64(sim[sem[i].id])
	}
	slices.SortFunc(sem, func(a, b Hit) int { return rankOrder(a.Score, a.id, b.Score, b.id) })
	return sem, "", nil
}

// vectorFilter is what the scan keeps: the vectors of the packages and
// paths the query and its qualifiers allow (the rest of the filters
// apply to the shortlist, through Search).
func (r *Reader) vectorFilter(q Query, pq parsedQuery, vs *vectorSet) (func(int) bool, error) {
	packages, aliases, none, err := r.packageFilters(q, pq)
	if err != nil {
		return nil, err
	}
	paths := [][]string{q.Paths, pq.paths}
	docOK := make([]bool, len(vs.docs))
	for i, d := range vs.docs {
		ok := !none
		for _, p := range packages {
			if p != nil && !slices.Contains(p, d.alias) {
				ok = false
			}
		}
		for _, ps := range paths {
			if len(ps) == 0 {
				continue
			}
			ok = ok && slices.ContainsFunc(ps, func(p string) bool { return pathMatches(p, d.alias, d.path, aliases) })
		}
		docOK[i] = ok
	}
	return func(i int) bool { return docOK[vs.doc[i]] }, nil
}

// fuse merges the lexical and semantic hits (each best first) by f,
// keeps the best chunk of each document when bestPerDoc (Hit.More counting
// its others) and one copy of a versioned page (the lexical half's, which
// the ordering rule chose, versions.go, taking the semantic half's
// evidence for the page's other copies; else the first, as collectHits),
// and returns the first limit. A hit in both keeps the lexical one's snippet (its words
// marked).
func fuse(lex, sem []Hit, f Fusion, bestPerDoc bool, limit int) []Hit {
	type fused struct {
		h     Hit
		score float64
		first int // the better of its two ranks, for ties
	}
	byID := map[string]*fused{}
	var order []*fused
	add := func(hits []Hit, skip map[int]bool, part func(i int, h Hit) float64) {
		for i, h := range hits {
			if skip[i] {
				continue
			}
			fh := byID[h.id]
			if fh == nil {
				fh = &fused{h: h, first: i}
				byID[h.id] = fh
				order = append(order, fh)
			}
			fh.score += part(i, h)
			fh.first = min(fh.first, i)
		}
	}
	sem, skip := toLexicalCopies(lex, sem)
	w := f.Weight
	switch f.Method {
	case "blend":
		scale := func(hits []Hit) func(float64) float64 {
			if len(hits) == 0 {
				return nil
			}
			lo, hi := hits[0].Score, hits[0].Score
			for _, h := range hits {
				lo, hi = min(lo, h.Score), max(hi, h.Score)
			}
			return func(x float64) float64 {
				if hi == lo {
					return 1
				}
				return (x - lo) / (hi - lo)
			}
		}
		ls, ss := scale(lex), scale(sem)
		add(lex, nil, func(_ int, h Hit) float64 { return (1 - w) * ls(h.Score) })
		add(sem, skip, func(_ int, h Hit) float64 { return w * ss(h.Score) })
	case "lexical": // the lexical half alone, its scores kept
		add(lex, nil, func(_ int, h Hit) float64 { return h.Score })
	default: // rrf
		add(lex, nil, func(i int, _ Hit) float64 { return (1 - w) / float64(rrfK+i+1) })
		add(sem, skip, func(i int, _ Hit) float64 { return w / float64(rrfK+i+1) })
	}
	slices.SortStableFunc(order, func(a, b *fused) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.first, b.first))
	})
	out := make([]Hit, 0, limit)
	seen := map[string]int{}     // chunks of each document in order, with bestPerDoc
	given := map[string]string{} // a versioned page's family → the copy given, as collectHits
	for _, fh := range order {
		k := fh.h.Package + "\x00" + fh.h.Path
		if f := fh.h.family; f != "" {
			if g, ok := given[f]; ok && g != k {
				continue // another copy of a page already given (versions.go)
			}
			given[f] = k
		}
		if bestPerDoc {
			seen[k]++
			if seen[k] > 1 || len(out) == limit {
				continue
			}
		}
		h := fh.h
		h.Score = fh.score
		out = append(out, h)
		if !bestPerDoc && len(out) == limit {
			break
		}
	}
	if bestPerDoc {
		// More is the lexical half's count (Search), or the fused chunks
		// of the document other than its best when they are more.
		for i, h := range out {
			out[i].More = max(h.More, seen[h.Package+"\x00"+h.Path]-1)
		}
	}
	return out
}

// toLexicalCopies returns sem with its hits on a copy of a versioned page
// other than the lexical half's (lex) given to the lexical half's copy:
// the lexical half chose the copy by the ordering rule (versions.go), the
// semantic half only ranks the page. The first such hit of a page takes
// its place (its rank and score kept); skip holds the others' places (a
// page's evidence counted once, the other hits' ranks unchanged).
func toLexicalCopies(lex, sem []Hit) ([]Hit, map[int]bool) {
	lexCopy := map[string]Hit{} // family → the lexical half's first hit of it
	for _, h := range lex {
		if _, ok := lexCopy[h.family]; h.family != "" && !ok {
			lexCopy[h.family] = h
		}
	}
	if len(lexCopy) == 0 {
		return sem, nil
	}
	var out []Hit
	var skip map[int]bool
	for i, h := range sem {
		l, ok := lexCopy[h.family]
		if !ok || h.family == "" || l.Package == h.Package && l.Path == h.Path {
			continue
		}
		if out == nil {
			out, skip = slices.Clone(sem), map[int]bool{}
		}
		if l.id == "" { // this page's place is taken
			skip[i] = true
			continue
		}
		l.Score = h.Score
		out[i] = l
		lexCopy[h.family] = Hit{Package: l.Package, Path: l.Path}
	}
	if out == nil {
		return sem, nil
	}
	return out, skip
}
