// Command relevance-bench measures search ranking on the shared corpus with
// queries written the way a person asks, each with the files that person
// would open (queries.json). It is a held-out check next to the fixture of
// indexer/relevance_test.go: the corpus is not in the repository, and the
// queries were written before any ranking change was tried against them.
//
//	go -C bench run ./relevance [-corpus /work/shared/corpus] [-v] [-save ranks.json] [-against ranks.json] [-onecall [-maxtokens 3000]]
//	    [-latency N [-cpuprofile FILE | -memprofile FILE]] [-cold N] [-dump hits.json] [-work DIR]
//
// It makes each corpus folder a dir source of a temporary project (indexed
// and served in place), builds the index, and prints Recall@1, Recall@5
// and MRR (best chunk per document, limit 10). -onecall then asks the MCP
// server read_relevant once per query (see oneCall). -save writes each query's rank (0: not in the top
// 10) to a file; -against reads such a file (a run of other code) and
// prints the per-query changes and a paired test: the sign test over the
// queries whose reciprocal rank changed, and the Wilcoxon signed-rank test
// (normal approximation, tie-corrected) over the same differences.
// -latency times the queries and gives the CPU time per search (-cold
// the same with a new Reader for each search); -dump
// writes every hit of every query (and of queries in the query syntax) in
// several forms, so that two versions of the code can be compared byte for
// byte; -work keeps the project, so that runs after the first reuse the
// index.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
	"time"

	"github.com/ctx-dev/ctx/bench/internal/benchmcp"
	"github.com/ctx-dev/ctx/bench/internal/prof"
	"github.com/ctx-dev/ctx/bench/internal/stat"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/project"
)

type query struct {
	Q    string   `json:"q"`
	Want []string `json:"want"` // package/path
}

func main() {
	corpus := flag.String("corpus", "/work/shared/corpus", "folder with one sub-folder per package")
	verbose := flag.Bool("v", false, "print every query's rank and top hit")
	save := flag.String("save", "", "write each query's rank to `FILE` (JSON)")
	against := flag.String("against", "", "compare with the ranks in `FILE` (written by -save): per-query changes and paired tests")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the -latency runs to `FILE`")
	memprofile := flag.String("memprofile", "", "write an allocation profile of the -latency runs to `FILE`")
	onecall := flag.Bool("onecall", false, "also measure the one-call answer rate: one read_relevant call per query through an MCP session")
	maxTokens := flag.Int("maxtokens", 3000, "with -onecall: read_relevant's maxTokens")
	repeat := flag.Int("latency", 0, "also time each query `N` times (index kept open) and print p50/p95 over all runs and over each query's fastest run, and the CPU time per search")
	cold := flag.Int("cold", 0, "also time each query `N` times with a new Reader each time (the index opened and its caches empty, as after an idle pause), and print p50/p95 and the CPU time per search")
	dump := flag.String("dump", "", "write every hit (all fields, snippets and scores) of each query in several forms to `FILE` (JSON), to check that a change keeps the results byte for byte")
	work := flag.String("work", "", "keep the project in `DIR` (made when missing, brought up to date when there) instead of a temporary one: runs after the first skip the build")
	chunks := flag.Bool("chunks", false, "rank the 10 best chunks as they come (several of one document may fill them) instead of the best chunk of each document: the rank is that of the first chunk of a wanted document")
	queries := flag.String("queries", "", "the queries and their wanted documents (`FILE`, JSON; default queries.json next to this program; queries-heldout.json is the second set)")
	embedURL := flag.String("embed", "", "also rank with hybrid search: embed the chunks at this OpenAI-compatible `URL` (bench/embedserver) and compare each of -fusions with lexical")
	embedModel := flag.String("model", "use-lite", "with -embed: the model name")
	fusions := flag.String("fusions", "rrf:0.3,rrf:0.5,rrf:0.7,blend:0.3,blend:0.5,blend:0.7", "with -embed: the fusions to try, METHOD:WEIGHT (rrf, blend; the semantic weight 0–1)")
	only := flag.String("packages", "", "index only these corpus packages (comma-separated aliases), and keep only the queries with a wanted document in them")
	flag.Parse()
	qfile := *queries
	if qfile == "" {
		_, self, _, _ := runtime.Caller(0)
		qfile = filepath.Join(filepath.Dir(self), "queries.json")
	}
	b, err := os.ReadFile(qfile)
	if err != nil {
		log.Fatal(err)
	}
	var qs []query
	if err := json.Unmarshal(b, &qs); err != nil {
		log.Fatalf("%s: %v", qfile, err)
	}

	tmp := *work
	if tmp == "" {
		tmp, err = os.MkdirTemp("", "ctx-relevance-")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(tmp)
	}
	pkgs, err := benchmcp.CorpusProject(tmp, *corpus)
	if err != nil {
		log.Fatal(err)
	}
	pkgs, qs = keepPackages(pkgs, qs, *only)
	dir := filepath.Join(tmp, project.DirName)
	ctx := context.Background()
	cpu0, start := stat.CPU(stat.Process), time.Now()
	if _, err := indexer.Sync(ctx, dir, pkgs, indexer.Options{}); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("build (full unless -work holds it): %v wall, %v CPU (user+sys)\n", time.Since(start).Round(time.Millisecond), (stat.CPU(stat.Process) - cpu0).Round(time.Millisecond))
	r, err := indexer.OpenReader(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	if *embedURL != "" {
		hybridBench(ctx, dir, r, qs, *embedURL, *embedModel, *fusions, *chunks)
		return
	}

	var r1, r5, mrr float64
	var misses []string
	ranks := map[string]int{}
	for _, q := range qs {
		hits, err := r.Search(ctx, indexer.Query{Text: q.Q, Limit: 10, BestPerDocument: !*chunks})
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
		ranks[q.Q] = rank
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
	if *onecall {
		if err := oneCall(ctx, tmp, qs, *maxTokens, *verbose); err != nil {
			log.Fatal(err)
		}
	}
	if *repeat > 0 {
		if *cpuprofile != "" {
			stop := prof.CPU(*cpuprofile)
			latency(ctx, r, qs, *repeat)
			stop()
		} else {
			if *memprofile != "" {
				runtime.MemProfileRate = 4096
			}
			latency(ctx, r, qs, *repeat)
			if *memprofile != "" {
				f, err := os.Create(*memprofile)
				if err != nil {
					log.Fatal(err)
				}
				if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
					log.Fatal(err)
				}
				f.Close()
			}
		}
	}
	if *cold > 0 {
		coldLatency(ctx, dir, qs, *cold)
	}
	if *dump != "" {
		writeDump(ctx, r, qs, *dump)
	}
	if *save != "" {
		b, _ := json.MarshalIndent(ranks, "", "  ")
		if err := os.WriteFile(*save, append(b, '\n'), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	if *against != "" {
		b, err := os.ReadFile(*against)
		if err != nil {
			log.Fatal(err)
		}
		var before map[string]int
		if err := json.Unmarshal(b, &before); err != nil {
			log.Fatalf("%s: %v", *against, err)
		}
		compare(qs, before, ranks)
	}
}

// latency times every query n times, round-robin, and prints p50 and p95
// over all runs and over each query's fastest run (on a shared machine,
// the fastest of n is the query's own cost, without the other loads).
func latency(ctx context.Context, r *indexer.Reader, qs []query, n int) {
	var all []time.Duration
	best := make([]time.Duration, len(qs))
	cpu0 := stat.CPU(stat.Process)
	for i := 0; i < n; i++ {
		for j, q := range qs {
			start := time.Now()
			if _, err := r.Search(ctx, indexer.Query{Text: q.Q, Limit: 10, BestPerDocument: j%2 == 0}); err != nil {
				log.Fatal(err)
			}
			d := time.Since(start)
			all = append(all, d)
			if i == 0 || d < best[j] {
				best[j] = d
			}
		}
	}
	cpu := stat.CPU(stat.Process) - cpu0
	pct := func(ds []time.Duration, p float64) time.Duration {
		ds = append([]time.Duration(nil), ds...)
		sort.Slice(ds, func(a, b int) bool { return ds[a] < ds[b] })
		return ds[int(p*float64(len(ds)-1))].Round(10 * time.Microsecond)
	}
	fmt.Printf("latency, %d queries × %d (half best-per-document): all runs p50 %v p95 %v; fastest of each p50 %v p95 %v; CPU (user+sys, GC included) %v per search\n",
		len(qs), n, pct(all, 0.5), pct(all, 0.95), pct(best, 0.5), pct(best, 0.95), (cpu / time.Duration(len(all))).Round(time.Microsecond))
}

// coldLatency times every query n times, round-robin, each with a new
// Reader: what a search costs when the index is opened for it.
func coldLatency(ctx context.Context, dir string, qs []query, n int) {
	var all []time.Duration
	cpu0 := stat.CPU(stat.Process)
	for i := 0; i < n; i++ {
		for j, q := range qs {
			start := time.Now()
			r, err := indexer.OpenReader(dir)
			if err != nil {
				log.Fatal(err)
			}
			if _, err := r.Search(ctx, indexer.Query{Text: q.Q, Limit: 10, BestPerDocument: j%2 == 0}); err != nil {
				log.Fatal(err)
			}
			r.Close()
			all = append(all, time.Since(start))
		}
	}
	cpu := stat.CPU(stat.Process) - cpu0
	sort.Slice(all, func(a, b int) bool { return all[a] < all[b] })
	pct := func(p float64) time.Duration { return all[int(p*float64(len(all)-1))].Round(10 * time.Microsecond) }
	fmt.Printf("cold (a new Reader each), %d queries × %d: p50 %v p95 %v; CPU (user+sys, GC included) %v per search\n",
		len(qs), n, pct(0.5), pct(0.95), (cpu / time.Duration(len(all))).Round(time.Microsecond))
}

// dumpForms are the searches -dump makes of each query: the benchmark's
// own (best chunk per document, limit 10), every chunk, a longer and a
// shorter list.
var dumpForms = []indexer.Query{
	{Limit: 10, BestPerDocument: true},
	{Limit: 10},
	{Limit: 50},
	{Limit: 3, BestPerDocument: true},
}

// dumpSyntax are queries in the query syntax (phrases, exclusions,
// qualifiers, stop words only, no scored word), searched in every form of
// dumpForms next to the benchmark's queries.
var dumpSyntax = []string{
	`"tar archive" extract`,
	`"the rust programming language"`,
	`ownership -borrowing`,
	`error handling -"result type"`,
	`package:tldr-common compress`,
	`path:ch08 vector`,
	`path:sig-node path:sig-apps pod -daemonset`,
	`kind:git pod scheduling`,
	`kind:dir anything`,
	`tag:nothing-tagged like this`,
	`the of a`,
	`-zzzz package:rust-book`,
	`tar.gz fmt.Errorf snake_case`,
	`E[x]tract archive`,
}

// writeDump writes every hit of every query in every form of dumpForms to
// file, in a fixed order: two runs of the same ranking, snippets and
// scores give the same bytes.
func writeDump(ctx context.Context, r *indexer.Reader, qs []query, file string) {
	type entry struct {
		Query           string        `json:"query"`
		Limit           int           `json:"limit"`
		BestPerDocument bool          `json:"bestPerDocument"`
		Hits            []indexer.Hit `json:"hits"`
	}
	var texts []string
	for _, q := range qs {
		texts = append(texts, q.Q)
	}
	texts = append(texts, dumpSyntax...)
	var out []entry
	for _, t := range texts {
		for _, f := range dumpForms {
			f.Text = t
			hits, err := r.Search(ctx, f)
			if (errors.Is(err, indexer.ErrUnknownPackage) || errors.Is(err, indexer.ErrUnknownTag)) && slices.Contains(dumpSyntax, t) {
				// A qualifier naming a package of the shared corpus, on
				// another corpus (the Debian set's), or a tag no document
				// has (tag:nothing-tagged, ErrUnknownTag since fixA16):
				// the error is the result.
				out = append(out, entry{t + " → " + err.Error(), f.Limit, f.BestPerDocument, nil})
				continue
			}
			if err != nil {
				log.Fatalf("%q: %v", t, err)
			}
			out = append(out, entry{t, f.Limit, f.BestPerDocument, hits})
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
}

// rr is the reciprocal rank (0 when not found).
func rr(rank int) float64 {
	if rank <= 0 {
		return 0
	}
	return 1 / float64(rank)
}

// compare prints the queries whose rank changed and two paired tests of
// the reciprocal ranks (after - before).
func compare(qs []query, before, after map[string]int) {
	var diffs []float64
	better, worse := 0, 0
	for _, q := range qs {
		b, ok := before[q.Q]
		if !ok {
			continue
		}
		a := after[q.Q]
		d := rr(a) - rr(b)
		if d == 0 {
			continue
		}
		word := "better"
		if d < 0 {
			word = "worse "
			worse++
		} else {
			better++
		}
		fmt.Printf("%s rank %2d -> %2d  %q\n", word, b, a, q.Q)
		diffs = append(diffs, d)
	}
	n := better + worse
	fmt.Printf("changed %d queries: %d better, %d worse; sign test p = %.4f; Wilcoxon signed-rank p = %.4f\n",
		n, better, worse, signTest(better, worse), wilcoxon(diffs))
}

// signTest is the two-sided exact binomial p-value of k successes out of
// k+m with p = 1/2.
func signTest(k, m int) float64 {
	n := k + m
	if n == 0 {
		return 1
	}
	lo := min(k, m)
	p := 0.0
	for i := 0; i <= lo; i++ {
		p += math.Exp(lgammaChoose(n, i) - float64(n)*math.Ln2)
	}
	return min(1, 2*p)
}

func lgammaChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// wilcoxon is the two-sided p-value of the Wilcoxon signed-rank test of
// non-zero differences d, normal approximation with tie correction.
func wilcoxon(d []float64) float64 {
	n := len(d)
	if n == 0 {
		return 1
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return math.Abs(d[idx[a]]) < math.Abs(d[idx[b]]) })
	ranks := make([]float64, n)
	tie := 0.0
	for i := 0; i < n; {
		j := i
		for j+1 < n && math.Abs(d[idx[j+1]]) == math.Abs(d[idx[i]]) {
			j++
		}
		r := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			ranks[idx[k]] = r
		}
		t := float64(j - i + 1)
		tie += t*t*t - t
		i = j + 1
	}
	wPlus := 0.0
	for i, v := range d {
		if v > 0 {
			wPlus += ranks[i]
		}
	}
	nf := float64(n)
	mean := nf * (nf + 1) / 4
	sd := math.Sqrt(nf*(nf+1)*(2*nf+1)/24 - tie/48)
	if sd == 0 {
		return 1
	}
	// The continuity correction can take |W+ - mean| below zero when the
	// two sides are about even: that is p = 1, not above it.
	z := math.Max(0, math.Abs(wPlus-mean)-0.5) / sd
	return math.Erfc(z / math.Sqrt2)
}
