// Command links-bench measures the link graph and front-matter queries on
// the shared corpus (issue 16): the full build, the first query after it
// (loading the catalogue and resolving every link), and the latency of
// backlinks (Reader.Links) and find_documents (Reader.Find) over many
// calls, as p50/p95/max.
//
//	go -C bench run ./links -corpus /work/shared/corpus
//
// It indexes each corpus folder in place as a dir source (not copied).
// How much link extraction adds to a full build is measured by timing
// `ctx index --rebuild` with this ctx and with the ctx before links on the
// same project (see bench/README.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ctx-dev/ctx/bench/internal/prof"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/project"
)

func main() {
	corpus := flag.String("corpus", "/work/shared/corpus", "folder with one sub-folder per package")
	calls := flag.Int("calls", 2000, "calls per measured operation")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the measured calls to `FILE`")
	flag.Parse()
	ctx := context.Background()

	work, err := os.MkdirTemp("", "ctx-links-bench-*")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	cdir := filepath.Join(work, ".context")
	ents, err := os.ReadDir(*corpus)
	if err != nil {
		log.Fatal(err)
	}
	var pkgs []indexer.Package
	for _, e := range ents {
		if e.IsDir() {
			dir := filepath.Join(*corpus, e.Name())
			pkgs = append(pkgs, indexer.Package{Alias: e.Name(), Kind: project.KindDir, Source: dir, Dir: dir})
		}
	}
	t0 := time.Now()
	rep, err := indexer.Sync(ctx, cdir, pkgs, indexer.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("full build: %d documents, %d chunks in %v\n", rep.Added, rep.Chunks, time.Since(t0).Round(time.Millisecond))

	r, err := indexer.OpenReader(cdir)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	docs, err := r.Documents("")
	if err != nil {
		log.Fatal(err)
	}
	t0 = time.Now()
	broken, err := r.BrokenLinks(nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("first query (load the catalogue, resolve every link): %v; %d broken links\n", time.Since(t0).Round(time.Millisecond), len(broken))

	defer prof.CPU(*cpuprofile)()
	links, back := 0, 0
	rng := rand.New(rand.NewPCG(1, 2))
	lat := measure(*calls, func() {
		d := docs[rng.IntN(len(docs))]
		o, b, err := r.Links(d.Package, d.Path)
		if err != nil {
			log.Fatal(err)
		}
		links += len(o)
		back += len(b)
	})
	fmt.Printf("backlinks (get_links) of %d random documents: %s; %.1f links and %.1f backlinks per document\n",
		*calls, lat, float64(links)/float64(*calls), float64(back)/float64(*calls))

	wheres := []map[string]any{
		{"status": "implementable"},
		{"kep-number": map[string]any{"$gt": 3000}},
		{"creation-date": map[string]any{"$between": []any{"2020-01-01", "2020-12-31"}}},
		{"stage": map[string]any{"$in": []any{"alpha", "beta"}}, "see-also": map[string]any{"$exists": true}},
		{"participating-sigs": map[string]any{"$contains": "sig-node"}},
	}
	found := 0
	i := 0
	lat = measure(*calls, func() {
		res, err := r.Find(context.Background(), indexer.FindQuery{Where: wheres[i%len(wheres)], Limit: 50})
		if err != nil {
			log.Fatal(err)
		}
		found += res.Total
		i++
	})
	fmt.Printf("find_documents over %d documents (5 filters in turn): %s; %.0f matches per filter\n", len(docs), lat, float64(found)/float64(*calls))
}

type latency struct{ p50, p95, max time.Duration }

func (l latency) String() string {
	return fmt.Sprintf("p50 %v, p95 %v, max %v", l.p50, l.p95, l.max)
}

func measure(n int, f func()) latency {
	ds := make([]time.Duration, n)
	for i := range ds {
		t := time.Now()
		f()
		ds[i] = time.Since(t)
	}
	slices.Sort(ds)
	return latency{ds[n/2], ds[n*95/100], ds[n-1]}
}
