// Command clisearch times `ctx search` as a process (issue 31's "a CLI
// search that feels instant"): each binary given runs the same search in
// the same project, the binaries alternating run by run so that the load
// of a shared machine falls on all of them alike, with `ctx version` (the
// process's own start) alternated beside them as the anchor. It prints,
// per binary and command, the wall time's p50 and p95, the CPU time
// (user + system, from the process's rusage) p50, the minor page faults
// p50 and the load average before and after. -evict drops the page cache
// of each project's bleve segments first (walk23: their faults differ by
// how the pages came into the cache, ~70 a search).
//
//	go -C bench run ./clisearch -project DIR[,DIR2…] -runs 50 [-query 'pod lifecycle'] [-version=false] [-evict] OLD NEW ...
package main

import (
	"flag"
	"fmt"
	"log"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ctx-dev/ctx/bench/internal/loadavg"
)

type sample struct {
	wall, cpu time.Duration
	minflt    int64
}

func main() {
	proj := flag.String("project", "", "the ctx project `DIR` to search in (its index built); DIR1,DIR2,… gives each binary its own, in order (binaries whose index schemas differ cannot share one)")
	runs := flag.Int("runs", 50, "runs of each binary and command")
	query := flag.String("query", "pod lifecycle", "the search's query")
	version := flag.Bool("version", true, "also time `ctx version` of each binary, alternated with the searches")
	evict := flag.Bool("evict", false, "drop the page cache of each project's bleve segments before the warm-up run (Linux; see evictSegments): every side's segment then faults alike")
	flag.Parse()
	bins := flag.Args()
	if *proj == "" || len(bins) == 0 {
		log.Fatal("usage: clisearch -project DIR [-runs N] [-query Q] BINARY...")
	}
	type job struct {
		name string
		args []string
	}
	projs := strings.Split(*proj, ",")
	if len(projs) != 1 && len(projs) != len(bins) {
		log.Fatalf("-project names %d folders for %d binaries: give one for all, or one for each", len(projs), len(bins))
	}
	var jobs []job
	for i, b := range bins {
		dir := projs[min(i, len(projs)-1)]
		jobs = append(jobs, job{b + " search", []string{b, "-C", dir, "search", *query}})
		if *version {
			jobs = append(jobs, job{b + " version", []string{b, "version"}})
		}
	}
	if *evict {
		for _, dir := range projs {
			n, err := evictSegments(dir)
			if err != nil {
				log.Fatal(err)
			}
			if n == 0 {
				log.Fatalf("-evict: no segment file under %s/.context/index/*/store/", dir)
			}
		}
	}
	// One untimed run each: the page cache warm for all alike.
	for _, j := range jobs {
		if _, err := run(j.args); err != nil {
			log.Fatalf("%s: %v", j.name, err)
		}
	}
	load0 := loadavg.String()
	res := make([][]sample, len(jobs))
	for i := range *runs {
		for k := range jobs {
			j := jobs[(k+i)%len(jobs)] // rotate the order run by run
			s, err := run(j.args)
			if err != nil {
				log.Fatalf("%s: %v", j.name, err)
			}
			res[(k+i)%len(jobs)] = append(res[(k+i)%len(jobs)], s)
		}
	}
	fmt.Printf("load average %s before, %s after; %d runs each, alternated\n", load0, loadavg.String(), *runs)
	fmt.Printf("| binary, command | wall p50 | wall p95 | CPU p50 | CPU p95 | minor faults p50 |\n|---|---|---|---|---|---|\n")
	for k, j := range jobs {
		s := res[k]
		fmt.Printf("| %s | %s | %s | %s | %s | %d |\n", j.name,
			ms(pct(s, 0.5, func(x sample) time.Duration { return x.wall })),
			ms(pct(s, 0.95, func(x sample) time.Duration { return x.wall })),
			ms(pct(s, 0.5, func(x sample) time.Duration { return x.cpu })),
			ms(pct(s, 0.95, func(x sample) time.Duration { return x.cpu })),
			int64(pct(s, 0.5, func(x sample) time.Duration { return time.Duration(x.minflt) })))
	}
}

func run(args []string) (sample, error) {
	cmd := exec.Command(args[0], args[1:]...)
	var errb strings.Builder
	cmd.Stderr = &errb
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("%v: %s", err, errb.String())
	}
	wall := time.Since(start)
	if errb.Len() > 0 { // a re-index or a warning: not the path measured
		return sample{}, fmt.Errorf("unexpected stderr: %s", errb.String())
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return sample{wall: wall, cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), minflt: ru.Minflt}, nil
}

func pct(s []sample, p float64, f func(sample) time.Duration) time.Duration {
	v := make([]time.Duration, len(s))
	for i, x := range s {
		v[i] = f(x)
	}
	slices.Sort(v)
	return v[min(len(v)-1, int(p*float64(len(v))))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }
