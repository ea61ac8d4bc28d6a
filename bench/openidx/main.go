// Command openidx times a search on a newly opened index in process (issue
// 31, "the index's open"): for each project given, a new indexer.Reader,
// one search, Close, the projects alternating round by round so that the
// load of a shared machine falls on all alike. It prints per project the
// CPU (the process's rusage, user + system, which includes bleve's own
// goroutines) and minor page faults of one open+search, p50 and p95, the
// number of segment files the index holds, and whether every project gave
// the same hits as the first (their JSON, byte for byte).
//
// Its purpose is to compare one index laid out two ways (say, as built and
// after a merge into one segment, on copies of one project).
//
//	go -C bench run ./openidx -rounds 40 [-query 'pod lifecycle'] DIR...
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/ctx-dev/ctx/bench/internal/loadavg"
	"github.com/ctx-dev/ctx/indexer"
)

type sample struct {
	cpu    time.Duration
	minflt int64
}

func usage() (time.Duration, int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		log.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Minflt
}

func search(dir, q string) ([]byte, sample) {
	c0, f0 := usage()
	r, err := indexer.OpenReader(filepath.Join(dir, ".context"))
	if err != nil {
		log.Fatal(err)
	}
	hits, err := r.Search(context.Background(), indexer.Query{Text: q})
	if err != nil {
		log.Fatalf("%s: %v", dir, err)
	}
	if err := r.Close(); err != nil {
		log.Fatal(err)
	}
	c1, f1 := usage()
	b, err := json.Marshal(hits)
	if err != nil {
		log.Fatal(err)
	}
	return b, sample{c1 - c0, f1 - f0}
}

func segments(dir string) int {
	m, _ := filepath.Glob(filepath.Join(dir, ".context", "index", "bleve-*", "store", "*.zap"))
	return len(m)
}

func main() {
	rounds := flag.Int("rounds", 40, "searches on each project")
	query := flag.String("query", "pod lifecycle", "the search's query")
	flag.Parse()
	dirs := flag.Args()
	if len(dirs) == 0 {
		log.Fatal("usage: openidx [-rounds N] [-query Q] PROJECT...")
	}
	first := make([][]byte, len(dirs))
	for i, d := range dirs {
		first[i], _ = search(d, *query) // untimed: the page cache warm for all alike
	}
	load0 := loadavg.String()
	res := make([][]sample, len(dirs))
	for range *rounds {
		for i, d := range dirs {
			_, s := search(d, *query)
			res[i] = append(res[i], s)
		}
	}
	fmt.Printf("query %q, %d rounds, load %s → %s\n", *query, *rounds, load0, loadavg.String())
	for i, d := range dirs {
		s := res[i]
		slices.SortFunc(s, func(a, b sample) int { return int(a.cpu - b.cpu) })
		p50, p95 := s[len(s)/2].cpu, s[len(s)*95/100].cpu
		slices.SortFunc(s, func(a, b sample) int { return int(a.minflt - b.minflt) })
		same := "same hits as the first"
		if !bytes.Equal(first[i], first[0]) {
			same = "OTHER HITS than the first"
		}
		fmt.Printf("%-40s zap files %3d  CPU p50 %6.2f ms p95 %6.2f ms  minor faults p50 %5d  %s\n",
			d, segments(d), ms(p50), ms(p95), s[len(s)/2].minflt, same)
	}
	os.Exit(0)
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
