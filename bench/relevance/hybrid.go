package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/bench/internal/stat"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/embed"
)

// The -embed mode (issue 28): lexical against hybrid search with a real
// embedding model (bench/embedserver: the Universal Sentence Encoder lite
// behind an OpenAI-compatible endpoint). It embeds the project's chunks
// (EmbedIndex: only what is not embedded yet, so -work makes runs after
// the first cheap), then ranks every query lexically and with each fusion
// of -fusions, and prints Recall@1, Recall@5, MRR and, against lexical,
// the paired tests of compare.

// parseFusions reads "rrf:0.5,blend:0.3".
func parseFusions(s string) ([]indexer.Fusion, error) {
	var out []indexer.Fusion
	for _, f := range strings.Split(s, ",") {
		m, w, ok := strings.Cut(strings.TrimSpace(f), ":")
		x, err := strconv.ParseFloat(w, 64)
		if !ok || err != nil || (m != "rrf" && m != "blend") || x < 0 || x > 1 {
			return nil, fmt.Errorf("-fusions: %q is not METHOD:WEIGHT (rrf or blend, 0–1)", f)
		}
		out = append(out, indexer.Fusion{Method: m, Weight: x})
	}
	return out, nil
}

func hybridBench(ctx context.Context, dir string, r *indexer.Reader, qs []query, url, model, fusions string, chunks bool) {
	fs, err := parseFusions(fusions)
	if err != nil {
		log.Fatal(err)
	}
	c, err := embed.New(embed.Config{URL: url, Model: model}, embed.Options{Batch: 32, Parallel: 1, Idle: 10 * time.Minute})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	start, cpu0 := time.Now(), stat.CPU(stat.Process)
	last := time.Now()
	rep, err := indexer.EmbedIndex(ctx, dir, c, indexer.EmbedOptions{Progress: func(done, total int, el time.Duration) {
		if time.Since(last) > 30*time.Second || done == total {
			last = time.Now()
			rate := float64(done) / el.Seconds()
			fmt.Fprintf(os.Stderr, "embedding: %d of %d chunks, %.1f/s, about %s left\n", done, total, rate, (time.Duration(float64(total-done)/rate) * time.Second).Round(time.Second))
		}
	}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("embedded %d chunks (%d kept) of %d with %s, %d dims: %d vectors, %d bytes; %v wall, %v CPU of this process (the server's not counted)\n",
		rep.Embedded, rep.Reused, rep.Chunks, model, rep.Dims, rep.Vectors, rep.Bytes, time.Since(start).Round(time.Second), (stat.CPU(stat.Process) - cpu0).Round(time.Millisecond))

	// The queries' vectors, once each.
	var mu sync.Mutex
	qvec := map[string][]float32{}
	sem := &indexer.Semantic{Model: model, Embed: func(ctx context.Context, text string) ([]float32, error) {
		mu.Lock()
		v, ok := qvec[text]
		mu.Unlock()
		if ok {
			return v, nil
		}
		vs, err := c.Embed(ctx, []string{text}, nil)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		qvec[text] = vs[0]
		mu.Unlock()
		return vs[0], nil
	}}
	run := func(s *indexer.Semantic) (map[string]int, [3]float64) {
		ranks := map[string]int{}
		var m [3]float64
		for _, q := range qs {
			hits, note, err := r.SearchHybrid(ctx, indexer.Query{Text: q.Q, Limit: 10, BestPerDocument: !chunks}, s)
			if err != nil {
				log.Fatalf("%q: %v", q.Q, err)
			}
			if note != "" {
				log.Fatalf("%q: %s", q.Q, note)
			}
			rank := 0
			for i, h := range hits {
				if rank == 0 && slices.Contains(q.Want, h.Package+"/"+h.Path) {
					rank = i + 1
				}
			}
			ranks[q.Q] = rank
			if rank == 1 {
				m[0]++
			}
			if rank >= 1 && rank <= 5 {
				m[1]++
			}
			m[2] += rr(rank)
		}
		n := float64(len(qs))
		return ranks, [3]float64{m[0] / n, m[1] / n, m[2] / n}
	}
	lex, lm := run(nil)
	fmt.Printf("%-12s R@1 %.3f  R@5 %.3f  MRR %.3f  (%d queries)\n", "lexical", lm[0], lm[1], lm[2], len(qs))
	for _, f := range fs {
		s := *sem
		s.Fusion = f
		ranks, m := run(&s)
		fmt.Printf("%-12s R@1 %.3f  R@5 %.3f  MRR %.3f  ", fmt.Sprintf("%s:%.2f", f.Method, f.Weight), m[0], m[1], m[2])
		pairedLine(qs, lex, ranks)
	}
}

// pairedLine prints compare's counts and tests on one line.
func pairedLine(qs []query, before, after map[string]int) {
	var diffs []float64
	better, worse := 0, 0
	for _, q := range qs {
		d := rr(after[q.Q]) - rr(before[q.Q])
		switch {
		case d > 0:
			better++
		case d < 0:
			worse++
		default:
			continue
		}
		diffs = append(diffs, d)
	}
	fmt.Printf("vs lexical: %d better, %d worse; sign p = %.3f; Wilcoxon p = %.3f\n", better, worse, signTest(better, worse), wilcoxon(diffs))
}

// keepPackages narrows the packages to the aliases of list ("" = all)
// and the queries to those with a wanted document in them, less the
// wanted documents outside (both arms then see the same corpus).
func keepPackages(pkgs []indexer.Package, qs []query, list string) ([]indexer.Package, []query) {
	if list == "" {
		return pkgs, qs
	}
	keep := strings.Split(list, ",")
	pkgs = slices.DeleteFunc(pkgs, func(p indexer.Package) bool { return !slices.Contains(keep, p.Alias) })
	var out []query
	for _, q := range qs {
		var want []string
		for _, w := range q.Want {
			if slices.Contains(keep, strings.SplitN(w, "/", 2)[0]) {
				want = append(want, w)
			}
		}
		if len(want) > 0 {
			out = append(out, query{Q: q.Q, Want: want})
		}
	}
	return pkgs, out
}
