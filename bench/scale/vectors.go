package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"time"

	"github.com/ctx-dev/ctx/bench/internal/benchmcp"
	"github.com/ctx-dev/ctx/bench/internal/stat"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/project"
)

// The -vectors part (issue 28): stub vectors of a real model's dimension
// for every chunk, made in-process (stubEmbedder: a text's vector is
// seeded by its hash, so the endpoint's cost is left out and what is
// measured is ctx's: reading the chunks, quantizing, writing
// vectors.bin), then n searches lexical and n hybrid on one Reader.

type stubEmbedder struct{ dims int }

func (e stubEmbedder) Model() string { return fmt.Sprintf("stub-%d", e.dims) }

func (e stubEmbedder) vector(text string) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	r := rand.New(rand.NewPCG(h.Sum64(), 7))
	v := make([]float32, e.dims)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func (e stubEmbedder) Embed(_ context.Context, texts []string, done func(int)) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = e.vector(t)
	}
	if done != nil {
		done(len(texts))
	}
	return out, nil
}

type vectorsResult struct {
	dims               int
	embedMs            int64
	embedCPU           time.Duration
	vectors            int
	bytes              int64
	lexP50, lexP95     time.Duration
	hybP50, hybP95     time.Duration
	lexCPU, hybCPU     time.Duration // per search
	firstHybrid        time.Duration // the first hybrid search: reads vectors.bin
	firstHybridCPUTime time.Duration
}

func vectorsPart(dir string, dims, n int) (vectorsResult, error) {
	res := vectorsResult{dims: dims}
	ctxDir := filepath.Join(dir, project.DirName)
	ctx := context.Background()
	e := stubEmbedder{dims: dims}
	cpu0, start := stat.CPU(stat.Process), time.Now()
	rep, err := indexer.EmbedIndex(ctx, ctxDir, e, indexer.EmbedOptions{Group: 4096})
	if err != nil {
		return res, err
	}
	res.embedMs, res.embedCPU = time.Since(start).Milliseconds(), stat.CPU(stat.Process)-cpu0
	res.vectors, res.bytes = rep.Vectors, rep.Bytes
	return hybridSearches(res, dir, n)
}

// hybridSearches times n lexical and n hybrid searches on one Reader of
// the project in dir, whose vectors are stub vectors of res.dims.
func hybridSearches(res vectorsResult, dir string, n int) (vectorsResult, error) {
	ctxDir := filepath.Join(dir, project.DirName)
	ctx := context.Background()
	e := stubEmbedder{dims: res.dims}
	r, err := indexer.OpenReader(ctxDir)
	if err != nil {
		return res, err
	}
	defer r.Close()
	sem := &indexer.Semantic{Model: e.Model(), Embed: func(_ context.Context, text string) ([]float32, error) { return e.vector(text), nil }}
	if _, err := r.Search(ctx, indexer.Query{Text: "warm up"}); err != nil {
		return res, err
	}
	cpu0, start := stat.CPU(stat.Process), time.Now()
	if _, note, err := r.SearchHybrid(ctx, indexer.Query{Text: "warm up"}, sem); err != nil || note != "" {
		return res, fmt.Errorf("hybrid: %v %s", err, note)
	}
	res.firstHybrid, res.firstHybridCPUTime = time.Since(start), stat.CPU(stat.Process)-cpu0
	// Lexical and hybrid alternate query by query (which goes first
	// alternating too), so that load and caches weigh alike on both.
	var ds [2][]time.Duration
	var cpu [2]time.Duration
	for i := range n {
		q := indexer.Query{Text: benchmcp.Queries[i%len(benchmcp.Queries)], Limit: 10, BestPerDocument: i%2 == 1}
		for k := range 2 {
			side := (i + k) % 2 // 0 lexical, 1 hybrid
			s := sem
			if side == 0 {
				s = nil
			}
			cpu0, start := stat.CPU(stat.Process), time.Now()
			if _, _, err := r.SearchHybrid(ctx, q, s); err != nil {
				return res, err
			}
			ds[side] = append(ds[side], time.Since(start))
			cpu[side] += stat.CPU(stat.Process) - cpu0
		}
	}
	lex, hyb := ds[0], ds[1]
	lexCPU, hybCPU := cpu[0]/time.Duration(n), cpu[1]/time.Duration(n)
	res.lexP50, res.lexP95, res.lexCPU = stat.Quantile(lex, 0.5), stat.Quantile(lex, 0.95), lexCPU
	res.hybP50, res.hybP95, res.hybCPU = stat.Quantile(hyb, 0.5), stat.Quantile(hyb, 0.95), hybCPU
	return res, nil
}

func (v vectorsResult) String() string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	made := fmt.Sprintf("%d vectors, %.1f MB, made in %d ms (%s CPU, stub embedder)", v.vectors, float64(v.bytes)/1e6, v.embedMs, v.embedCPU.Round(time.Millisecond))
	if v.vectors == 0 {
		made = "the project's vectors.bin"
	}
	return fmt.Sprintf("vectors %d dims: %s; first hybrid search (reads vectors.bin) %s (%s CPU); search p50/p95 lexical %s / %s (%s CPU each), hybrid %s / %s (%s CPU each)",
		v.dims, made, ms(v.firstHybrid), ms(v.firstHybridCPUTime),
		ms(v.lexP50), ms(v.lexP95), ms(v.lexCPU), ms(v.hybP50), ms(v.hybP95), ms(v.hybCPU))
}
