// Command latcheck times and checks the searches of bench/scale on a
// project already built (say, bench/scale -work's x10): bench/mcp's short
// queries and bench/scale's long ones (5 to 12 words), on one Reader.
//
//	go -C bench run ./latcheck -dir /tmp/scalework/x10 -dump before.txt
//	go -C bench run ./latcheck -dir /tmp/scalework/x10 -dump after.txt
//	cmp before.txt after.txt
//
// -dump writes every query's ten hits (with and without best per
// document: package, path, lines, heading, score to the last bit,
// snippet), for checking that a change of the search code keeps its
// results byte for byte. Without it, it prints the CPU time a search per
// group of queries (getrusage: the machine is shared, CPU time moves less
// than wall time), the slowest queries by the CPU time of the searching
// thread, and the allocations a search; -cpuprofile writes a profile.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/bench/internal/benchmcp"
	"github.com/ctx-dev/ctx/bench/internal/loadavg"
	"github.com/ctx-dev/ctx/bench/internal/prof"
	"github.com/ctx-dev/ctx/bench/internal/stat"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/project"
)

func main() {
	dir := flag.String("dir", "/tmp/scalework/x10", "the project (its index built)")
	rounds := flag.Int("rounds", 3, "passes over the queries")
	dump := flag.String("dump", "", "write every query's hits to `FILE` and stop")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the timed searches to `FILE`")
	slowest := flag.Int("slowest", 15, "print this many slowest queries")
	only := flag.String("only", "", "time only the group of queries whose name starts with this (\"1-4\", \"12 words\")")
	warm := flag.Bool("warm", false, "search every query once, untimed, first (the Reader's caches filled: a server's steady state)")
	flag.Parse()
	log.SetFlags(0)
	r, err := indexer.OpenReader(filepath.Join(*dir, project.DirName))
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	if _, err := r.Search(ctx, indexer.Query{Text: "warm up"}); err != nil {
		log.Fatal(err)
	}
	type group struct {
		name string
		qs   []string
	}
	groups := []group{{"1-4 words (bench/mcp)", benchmcp.Queries}}
	for w := 5; w <= 12; w++ {
		groups = append(groups, group{fmt.Sprintf("%d words", w), benchmcp.LongQueries(w, 25)})
	}
	if *only != "" {
		groups = slices.DeleteFunc(groups, func(g group) bool { return !strings.HasPrefix(g.name, *only) })
	}
	if *dump != "" {
		f, err := os.Create(*dump)
		if err != nil {
			log.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for _, g := range groups {
			for _, q := range g.qs {
				for _, bpd := range []bool{false, true} {
					hits, err := r.Search(ctx, indexer.Query{Text: q, Limit: 10, BestPerDocument: bpd})
					if err != nil {
						log.Fatal(err)
					}
					fmt.Fprintf(w, "%q best-per-doc=%v: %d hits\n", q, bpd, len(hits))
					for i, h := range hits {
						fmt.Fprintf(w, "  %d %s/%s %v %q %b more=%d %q\n", i+1, h.Package, h.Path, h.Lines, h.Heading, h.Score, h.More, h.Snippet)
					}
				}
			}
		}
		if err := w.Flush(); err != nil {
			log.Fatal(err)
		}
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
		return
	}
	defer prof.CPU(*cpuprofile)()
	if *warm {
		for _, g := range groups {
			for i, q := range g.qs {
				if _, err := r.Search(ctx, indexer.Query{Text: q, Limit: 10, BestPerDocument: i%2 == 1}); err != nil {
					log.Fatal(err)
				}
			}
		}
	}
	runtime.LockOSThread() // the thread's CPU time is the search's (but GC's)
	type timed struct {
		q   string
		cpu time.Duration
	}
	var all []timed
	fmt.Printf("%s, load %s\n", *dir, loadavg.String())
	var total time.Duration
	var totalN int
	for _, g := range groups {
		var cpus []time.Duration
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		cpu0, flt0 := stat.CPU(stat.Process), stat.MinorFaults()
		for range *rounds {
			for i, q := range g.qs {
				t0 := stat.CPU(stat.Thread)
				if _, err := r.Search(ctx, indexer.Query{Text: q, Limit: 10, BestPerDocument: i%2 == 1}); err != nil {
					log.Fatal(err)
				}
				d := stat.CPU(stat.Thread) - t0
				cpus = append(cpus, d)
				all = append(all, timed{q, d})
			}
		}
		cpu, flt := stat.CPU(stat.Process)-cpu0, stat.MinorFaults()-flt0
		runtime.ReadMemStats(&ms1)
		n := len(cpus)
		total += cpu
		totalN += n
		fmt.Printf("%-22s %4d searches  CPU a search %6.2f ms (thread p50 %6.2f, p95 %6.2f)  %7d allocs %6d KB %5d page faults a search\n", g.name, n,
			msf(cpu/time.Duration(n)), msf(stat.Quantile(cpus, 0.5)), msf(stat.Quantile(cpus, 0.95)),
			(ms1.Mallocs-ms0.Mallocs)/uint64(n), (ms1.TotalAlloc-ms0.TotalAlloc)/uint64(n)/1024, flt/int64(n))
	}
	fmt.Printf("%-22s %4d searches  CPU a search %6.2f ms (load %s)\n", "all", totalN, msf(total/time.Duration(totalN)), loadavg.String())
	slices.SortFunc(all, func(a, b timed) int { return int(b.cpu - a.cpu) })
	for _, t := range all[:min(*slowest, len(all))] {
		fmt.Printf("  %6.2f ms  %q\n", msf(t.cpu), t.q)
	}
}

func msf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
