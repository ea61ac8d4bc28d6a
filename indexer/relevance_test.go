package indexer

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRelevance runs the queries of testdata/relevance/queries.json against
// the fixture's two packages and logs Recall@1, Recall@5 and MRR (per query
// with -v). It fails only below a floor that any sane BM25 setup clears:
// the point is to see the numbers move, not to tune to this fixture.
func TestRelevance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fixture := filepath.Join("testdata", "relevance")
	dir := filepath.Join(t.TempDir(), ".context")
	var pkgs []Package
	for _, alias := range []string{"handbook", "platform"} {
		ents, err := os.ReadDir(filepath.Join(fixture, alias))
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(fixture, alias, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[e.Name()] = string(b)
		}
		writeFiles(t, dir, alias, files)
		pkgs = append(pkgs, Package{Alias: alias})
	}
	if _, err := Sync(ctx, dir, pkgs, Options{Warn: func(s string) { t.Errorf("warning: %s", s) }}); err != nil {
		t.Fatal(err)
	}
	var queries []struct {
		Q       string   `json:"q"`
		Want    []string `json:"want"`    // package/path a person would open
		Section []string `json:"section"` // acceptable last headings of the best chunk
	}
	b, err := os.ReadFile(filepath.Join(fixture, "queries.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &queries); err != nil {
		t.Fatal(err)
	}
	if len(queries) < 20 {
		t.Fatalf("%d queries; the harness needs at least 20", len(queries))
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	var r1, r5, mrr, sec1 float64
	for _, q := range queries {
		hits, err := r.Search(ctx, Query{Text: q.Q, Limit: 10, BestPerDocument: true})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for _, w := range q.Want {
			want[w] = true
		}
		rank := 0
		for i, h := range hits {
			if want[h.Package+"/"+h.Path] {
				rank = i + 1
				break
			}
		}
		if rank == 1 {
			r1++
		}
		if rank >= 1 && rank <= 5 {
			r5++
		}
		if rank > 0 {
			mrr += 1 / float64(rank)
		}
		top := ""
		if len(hits) > 0 {
			top = hits[0].Package + "/" + hits[0].Path + " > " + hits[0].Heading
			if rank == 1 {
				for _, s := range q.Section {
					if strings.HasSuffix(hits[0].Heading, s) {
						sec1++
						break
					}
				}
			}
		}
		t.Logf("rank %2d  %-48q top: %s", rank, q.Q, top)
	}
	n := float64(len(queries))
	r1, r5, mrr, sec1 = r1/n, r5/n, mrr/n, sec1/n
	t.Logf("relevance over %d queries (file level): Recall@1 %.3f  Recall@5 %.3f  MRR %.3f; right section first: %.3f", len(queries), r1, r5, mrr, sec1)
	if r5 < 0.8 || mrr < 0.6 {
		t.Errorf("relevance below the floor (Recall@5 ≥ 0.8, MRR ≥ 0.6): Recall@5 %.3f MRR %.3f", r5, mrr)
	}
}
