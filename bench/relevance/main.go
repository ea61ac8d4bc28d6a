// Command relevance-bench measures search ranking on the shared corpus with
// queries written the way a person asks, each with the files that person
// would open (queries.json). It is a held-out check next to the fixture of
// indexer/relevance_test.go: the corpus is not in the repository, and the
// queries were written before any ranking change was tried against them.
//
//	go run ./bench/relevance [-corpus /work/shared/corpus] [-v]
//
// It links each corpus folder as a package of a temporary project, builds
// the index, and prints Recall@1, Recall@5 and MRR (best chunk per
// document, limit 10).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"sort"

	"github.com/ctx-dev/ctx/indexer"
)

type query struct {
	Q    string   `json:"q"`
	Want []string `json:"want"` // package/path
}

func main() {
	corpus := flag.String("corpus", "/work/shared/corpus", "folder with one sub-folder per package")
	verbose := flag.Bool("v", false, "print every query's rank and top hit")
	flag.Parse()
	_, self, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(self), "queries.json"))
	if err != nil {
		log.Fatal(err)
	}
	var qs []query
	if err := json.Unmarshal(b, &qs); err != nil {
		log.Fatalf("queries.json: %v", err)
	}

	tmp, err := os.MkdirTemp("", "ctx-relevance-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, ".context")
	if err := os.MkdirAll(filepath.Join(dir, "packages"), 0o755); err != nil {
		log.Fatal(err)
	}
	ents, err := os.ReadDir(*corpus)
	if err != nil {
		log.Fatal(err)
	}
	var pkgs []indexer.Package
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		abs, _ := filepath.Abs(filepath.Join(*corpus, e.Name()))
		if err := os.Symlink(abs, filepath.Join(dir, "packages", e.Name())); err != nil {
			log.Fatal(err)
		}
		pkgs = append(pkgs, indexer.Package{Alias: e.Name()})
	}
	ctx := context.Background()
	if _, err := indexer.Sync(ctx, dir, pkgs, indexer.Options{}); err != nil {
		log.Fatal(err)
	}
	r, err := indexer.OpenReader(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()

	var r1, r5, mrr float64
	var misses []string
	for _, q := range qs {
		hits, err := r.Search(ctx, indexer.Query{Text: q.Q, Limit: 10, BestPerDocument: true})
		if err != nil {
			log.Fatalf("%q: %v", q.Q, err)
		}
		rank := 0
		for i, h := range hits {
			for _, w := range q.Want {
				if h.Package+"/"+h.Path == w && rank == 0 {
					rank = i + 1
				}
			}
		}
		switch {
		case rank == 1:
			r1++
			fallthrough
		case rank >= 1 && rank <= 5:
			r5++
		}
		if rank > 0 {
			mrr += 1 / float64(rank)
		}
		top := "(no hits)"
		if len(hits) > 0 {
			top = hits[0].Package + "/" + hits[0].Path
		}
		if *verbose || rank != 1 {
			misses = append(misses, fmt.Sprintf("rank %2d  %-48q top: %s", rank, q.Q, top))
		}
	}
	sort.Strings(misses)
	for _, m := range misses {
		fmt.Println(m)
	}
	n := float64(len(qs))
	fmt.Printf("%d queries on %s: Recall@1 %.3f  Recall@5 %.3f  MRR %.3f\n", len(qs), *corpus, r1/n, r5/n, mrr/n)
}
