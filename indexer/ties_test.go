package indexer

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
	// Two documents of tiedChunks identical sections each: every chunk
	// scores the same for any of their words, 2·tiedChunks of them, more
	// than the candidates a search of limit 10 keeps (rescoreCandidates).
	const tiedChunks = 3 * rescoreCandidates / 4
	doc := func() string {
		var b strings.Builder
		for i := range tiedChunks {
			fmt.Fprintf(&b, "## Part %d\n\nzeta kappa filler words of the part, zeta again.\n\n", i)
		}
		return b.String()
	}()
	files := map[string]string{"a.md": doc, "b.md": doc}
	ctx := context.Background()
	pkgs := []Package{{Alias: "d"}}

	once := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, once, "d", files)
	if _, err := Sync(ctx, once, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	// b first, then a by an update: a's chunks are numbered after b's.
	later := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, later, "d", map[string]string{"b.md": doc})
	if _, err := Sync(ctx, later, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, later, "d", map[string]string{"a.md": doc})
	if rep, err := Sync(ctx, later, pkgs, Options{}); err != nil || rep.Rebuilt || rep.Added != 1 {
		t.Fatalf("update: %+v, %v; want a.md added in place", rep, err)
	}

	queries := []string{"zeta", "zeta kappa", "part zeta filler", "path:a zeta", "path:b zeta", "\"zeta kappa\"", "zeta -nothing"}
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
			for _, limit := range []int{1, 10, 12} {
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
