// Command indexer-bench measures the indexer on the shared corpus: a full
// build (time and peak RSS), an incremental Sync after one file changes, a
// no-change Sync, and in-process search latency over 200 queries.
//
//	go -C bench run ./indexer -corpus /work/shared/corpus
//
// It copies each corpus folder into <tmp>/.context/packages/<alias>/ first
// (not timed). Peak RSS is the process's ru_maxrss, so run each build in a
// fresh process (the default: the full build happens first).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ctx-dev/ctx/bench/internal/loadavg"
	"github.com/ctx-dev/ctx/bench/internal/prof"
	"github.com/ctx-dev/ctx/bench/internal/stat"
	"github.com/ctx-dev/ctx/indexer"
)

func main() {
	corpus := flag.String("corpus", "/work/shared/corpus", "folder with one sub-folder per package")
	queries := flag.Int("queries", 200, "number of search queries")
	keep := flag.String("keep", "", "use (and keep) this work directory instead of a temp one")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the full build to `FILE`")
	buildOnly := flag.Bool("buildonly", false, "stop after the full build (its time, CPU and peak RSS)")
	memprofile := flag.String("memprofile", "", "write a heap profile of the full build, taken when its live heap was largest, to `FILE`")
	allocprofile := flag.String("allocprofile", "", "write an allocation profile of the full build to `FILE`")
	flag.Parse()
	ctx := context.Background()

	work := *keep
	if work == "" {
		var err error
		work, err = os.MkdirTemp("", "ctx-bench-*")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(work)
	}
	cdir := filepath.Join(work, ".context")
	ents, err := os.ReadDir(*corpus)
	if err != nil {
		log.Fatal(err)
	}
	var pkgs []indexer.Package
	var files, bytes int64
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dst := filepath.Join(cdir, "packages", e.Name())
		n, b, err := copyTree(filepath.Join(*corpus, e.Name()), dst)
		if err != nil {
			log.Fatal(err)
		}
		files += n
		bytes += b
		pkgs = append(pkgs, indexer.Package{Alias: e.Name(), Source: "file://" + filepath.Join(*corpus, e.Name()), Ref: "main", Rev: strings.Repeat("ab", 20)})
	}
	fmt.Printf("corpus: %d packages, %d files, %.1f MB\n", len(pkgs), files, float64(bytes)/1e6)
	fmt.Printf("machine: %d CPUs (GOMAXPROCS %d), %s\n", runtime.NumCPU(), runtime.GOMAXPROCS(0), "load "+loadavg.String())

	warnings := 0
	opts := indexer.Options{Warn: func(string) { warnings++ }}
	stopProfile := prof.CPU(*cpuprofile)
	var peak *peakHeap
	if *memprofile != "" {
		peak = watchPeakHeap()
	}
	cpu0 := stat.CPU(stat.Process)
	start := time.Now()
	rep, err := indexer.Sync(ctx, cdir, pkgs, opts)
	if err != nil {
		log.Fatal(err)
	}
	full := time.Since(start)
	cpu := stat.CPU(stat.Process) - cpu0
	stopProfile()
	if peak != nil {
		live := peak.stop()
		if err := os.WriteFile(*memprofile, peak.profile, 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("largest live heap after a GC: %d MB (profile in %s)\n", live>>20, *memprofile)
	}
	if *allocprofile != "" {
		f, err := os.Create(*allocprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			log.Fatal(err)
		}
		f.Close()
	}
	fmt.Printf("full build: %v, CPU %v (%d documents, %d chunks, INDEX.md %d tokens, %d warnings) peak RSS %d MB (%s)\n",
		full.Round(time.Millisecond), cpu.Round(time.Millisecond), rep.Added, rep.Chunks, rep.IndexTokens, warnings, maxRSS()>>20, "load "+loadavg.String())
	if *buildOnly {
		return
	}
	if rep.Degraded != "" {
		fmt.Printf("INDEX.md degraded: %s\n", rep.Degraded)
	}

	start = time.Now()
	if _, err := indexer.Sync(ctx, cdir, pkgs, opts); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("no-change sync: %v\n", time.Since(start).Round(time.Millisecond))

	// Change one file.
	target := filepath.Join(cdir, "packages", "rust-book", "ch01-00-getting-started.md")
	if _, err := os.Stat(target); err != nil {
		target = firstMarkdown(filepath.Join(cdir, "packages"))
	}
	var incr []time.Duration
	for i := 0; i < 5; i++ {
		f, err := os.OpenFile(target, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Fprintf(f, "\n\nBenchmark edit %d: the zebra-crossing paragraph.\n", i)
		f.Close()
		start = time.Now()
		r, err := indexer.Sync(ctx, cdir, pkgs, opts)
		if err != nil {
			log.Fatal(err)
		}
		incr = append(incr, time.Since(start))
		if r.Updated != 1 {
			log.Fatalf("incremental: updated %d documents, want 1", r.Updated)
		}
	}
	slices.Sort(incr)
	fmt.Printf("incremental sync after one file change: median %v (min %v, max %v over %d runs)\n",
		incr[len(incr)/2].Round(time.Millisecond), incr[0].Round(time.Millisecond), incr[len(incr)-1].Round(time.Millisecond), len(incr))

	r, err := indexer.OpenReader(cdir)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	qs := benchQueries(*queries)
	start = time.Now()
	if _, err := r.Search(ctx, indexer.Query{Text: "warm up"}); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("first search (opens the index): %v\n", time.Since(start).Round(time.Microsecond))
	var lat []time.Duration
	empty := 0
	for i, q := range qs {
		start := time.Now()
		hits, err := r.Search(ctx, indexer.Query{Text: q, Limit: 10, BestPerDocument: i%2 == 1})
		if err != nil {
			log.Fatal(err)
		}
		lat = append(lat, time.Since(start))
		if len(hits) == 0 {
			empty++
		}
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[int(p*float64(len(lat)-1))] }
	fmt.Printf("search (%d queries, limit 10, half best-per-document, index kept open): p50 %v p95 %v max %v (%d without hits)\n",
		len(lat), pct(0.5).Round(time.Microsecond), pct(0.95).Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond), empty)

	// Each query in a fresh Reader: what a one-shot `ctx search` pays.
	var cold []time.Duration
	for _, q := range qs[:min(20, len(qs))] {
		start := time.Now()
		rr, _ := indexer.OpenReader(cdir)
		if _, err := rr.Search(ctx, indexer.Query{Text: q}); err != nil {
			log.Fatal(err)
		}
		rr.Close()
		cold = append(cold, time.Since(start))
	}
	slices.Sort(cold)
	fmt.Printf("search with a fresh reader each (20 queries): p50 %v max %v\n", cold[len(cold)/2].Round(time.Microsecond), cold[len(cold)-1].Round(time.Microsecond))
	var fresh []time.Duration
	for i := 0; i < 11; i++ {
		start = time.Now()
		fr, err := r.Freshness(pkgs)
		if err != nil || !fr.Fresh {
			log.Fatalf("freshness: %+v %v", fr, err)
		}
		fresh = append(fresh, time.Since(start))
	}
	first := fresh[0]
	slices.Sort(fresh[1:])
	fmt.Printf("freshness check (stat of %d files): first %v (loads the catalogue), then median %v\n", files, first.Round(time.Microsecond), fresh[6].Round(time.Microsecond))
	fmt.Printf("peak RSS (whole run): %d MB\n", maxRSS()>>20)
}

func maxRSS() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Maxrss << 10 // KB on Linux
}

func firstMarkdown(root string) string {
	var found string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if found == "" && err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			found = p
		}
		return nil
	})
	return found
}

func copyTree(src, dst string) (files, bytes int64, err error) {
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		n, err := io.Copy(out, in)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		files++
		bytes += n
		return err
	})
	return files, bytes, err
}

// benchQueries returns n queries of one to four words, the kind a developer
// or an agent types, cycled from a fixed list (deterministic).
func benchQueries(n int) []string {
	base := []string{
		"ownership borrowing", "lifetime annotations", "error handling with Result", "trait objects dynamic dispatch",
		"cargo workspaces", "smart pointers Box Rc", "closures capture environment", "iterator adaptors",
		"pattern matching enums", "unsafe rust raw pointers", "threads message passing channels", "Mutex Arc shared state",
		"async await futures", "generic types", "testing unit tests", "hash map entry api",
		"strings utf-8", "modules and paths", "macro_rules declarative macros", "packages and crates",
		"compress files tar", "git commit amend", "list open ports", "find files by name",
		"download file curl", "docker run container", "ssh port forwarding", "convert image format",
		"search text in files grep", "disk usage", "kill process by name", "change file permissions chmod",
		"ffmpeg convert video", "python virtual environment", "npm install package", "sync directories rsync",
		"pod scheduling readiness gates", "sidecar containers", "dynamic resource allocation", "kubelet graceful node shutdown",
		"topology aware routing", "pod security admission", "ephemeral containers debugging", "CSI volume health",
		"server side apply", "API priority and fairness", "graduation criteria beta", "feature gate rollback",
		"in-place pod resize", "service account token", "cgroup v2", "memory manager NUMA",
		"job backoff limit per index", "node swap support", "structured logging", "windows host process containers",
	}
	out := make([]string, n)
	for i := range out {
		out[i] = base[i%len(base)]
	}
	return out
}
