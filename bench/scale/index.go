package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ctx-dev/ctx/bench/internal/benchmcp"
	"github.com/ctx-dev/ctx/bench/internal/stat"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"

	"github.com/ctx-dev/ctx/bench/internal/loadavg"
)

// docsPerGenerated is the size of a generated package.
const docsPerGenerated = 150

// scaleProject lays out a project at dir for scale s: every corpus package
// once, and generated packages until the headings (about the chunks) of
// the generated documents reach (s-1) × base; then a lock naming them all
// (what `ctx mcp` serves). It is reused when dir has it already (the
// .done marker).
func scaleProject(dir string, s int, base int, corpusPkgs []corpusPackage, v *vocab) (string, error) {
	ctxDir := filepath.Join(dir, project.DirName)
	done := filepath.Join(dir, ".done")
	if data, err := os.ReadFile(done); err == nil {
		return string(data), nil
	}
	os.RemoveAll(dir)
	lock := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{}}
	add := func(alias, source string) {
		sum := sha256.Sum256([]byte(alias))
		lock.Packages[alias] = lockfile.Entry{Source: source, Ref: "main",
			Rev: strings.Repeat("0", 40), Tree: strings.Repeat("0", 40), Hash: "h1:" + base64.StdEncoding.EncodeToString(sum[:]),
			Updated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	}
	var files int
	var bytes int64
	for _, p := range corpusPkgs {
		n, b, err := copyPackage(p, filepath.Join(ctxDir, project.PackagesDir, p.alias))
		if err != nil {
			return "", err
		}
		files += n
		bytes += b
		add(p.alias, "file://"+p.src)
	}
	want, heads, gen := (s-1)*base, 0, 0
	for heads < want {
		alias := fmt.Sprintf("gen-%04d", gen)
		n, b, h, err := v.generatePackage(uint64(gen), filepath.Join(ctxDir, project.PackagesDir, alias), docsPerGenerated)
		if err != nil {
			return "", err
		}
		files += n
		bytes += b
		heads += h
		gen++
		add(alias, "https://docs.example/"+alias+".git")
	}
	if err := lockfiletest.WriteInstalled(ctxDir, lock); err != nil {
		return "", err
	}
	desc := fmt.Sprintf("%d packages (%d cut from the corpus, %d generated), %d files, %.0f MB", len(lock.Packages), len(corpusPkgs), gen, files, float64(bytes)/1e6)
	return desc, os.WriteFile(done, []byte(desc), 0o644)
}

// installedPackages is what `ctx mcp` and `ctx index` give the indexer for
// the project at dir (project.Installed), so that every Sync here agrees
// with the server's.
func installedPackages(dir string) ([]indexer.Package, error) {
	p, err := project.At(dir)
	if err != nil {
		return nil, err
	}
	l, err := lockfiletest.Read(filepath.Join(dir, project.DirName, project.LockName))
	if err != nil {
		return nil, err
	}
	return p.Installed(nil, l), nil
}

// buildResult is what the child process of a full build reports.
type buildResult struct {
	Ms          int64  `json:"ms"`
	Docs        int    `json:"docs"`
	Chunks      int    `json:"chunks"`
	IndexTokens int    `json:"indexTokens"`
	Degraded    string `json:"degraded"`
	RSSMB       int64  `json:"-"`
}

// childBuild is the child process: a full build of the index of the
// project at dir, its report as JSON on stdout.
func childBuild(dir string) error {
	pkgs, err := installedPackages(dir)
	if err != nil {
		return err
	}
	start := time.Now()
	rep, err := indexer.Sync(context.Background(), filepath.Join(dir, project.DirName), pkgs, indexer.Options{Rebuild: true})
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(buildResult{Ms: time.Since(start).Milliseconds(), Docs: rep.Added + rep.Updated + rep.Unchanged,
		Chunks: rep.Chunks, IndexTokens: rep.IndexTokens, Degraded: rep.Degraded})
}

// fullBuild runs childBuild in a child process (this program again) and
// reads its peak RSS from its rusage (ru_maxrss: VmHWM).
func fullBuild(dir string) (buildResult, error) {
	self, err := os.Executable()
	if err != nil {
		return buildResult{}, err
	}
	cmd := exec.Command(self, "-child-build", dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return buildResult{}, fmt.Errorf("full build: %w", err)
	}
	var r buildResult
	if err := json.Unmarshal(out, &r); err != nil {
		return r, fmt.Errorf("full build: %w: %q", err, out)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.RSSMB = ru.Maxrss >> 10 // KB on Linux
	}
	return r, nil
}

// incremental appends a line to one document and times the Sync that
// follows, runs times; it returns the median.
func incremental(dir string, runs int) (time.Duration, error) {
	pkgs, err := installedPackages(dir)
	if err != nil {
		return 0, err
	}
	cdir := filepath.Join(dir, project.DirName)
	target := filepath.Join(cdir, project.PackagesDir, "rust-book", "src", "ch01-00-getting-started.md")
	if _, err := os.Stat(target); err != nil {
		target = firstDoc(filepath.Join(cdir, project.PackagesDir))
	}
	var ds []time.Duration
	for i := range runs {
		f, err := os.OpenFile(target, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(f, "\n\nScale benchmark edit %d: the zebra-crossing paragraph.\n", i)
		f.Close()
		start := time.Now()
		rep, err := indexer.Sync(context.Background(), cdir, pkgs, indexer.Options{})
		if err != nil {
			return 0, err
		}
		ds = append(ds, time.Since(start))
		if rep.Updated != 1 {
			return 0, fmt.Errorf("incremental: %d documents updated, want 1", rep.Updated)
		}
	}
	slices.Sort(ds)
	return ds[len(ds)/2], nil
}

func firstDoc(root string) string {
	var found string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if found == "" && err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			found = p
		}
		return nil
	})
	return found
}

// indexMDResult is INDEX.md's render time and size.
type indexMDResult struct {
	render, noop time.Duration
	tokens       int    // the largest INDEX.md, in tokens
	over         int    // runs whose INDEX.md was over its budget
	degraded     string // what INDEX.md shortened to fit
}

// indexMD times Syncs whose only change is the budget (so INDEX.md is
// rendered again, and nothing else is done beyond a no-change Sync),
// alternating budget and budget-1, runs times, and a no-change Sync after
// each; it returns the medians and the sizes.
func indexMD(dir string, budget, runs int) (indexMDResult, error) {
	var res indexMDResult
	pkgs, err := installedPackages(dir)
	if err != nil {
		return res, err
	}
	cdir := filepath.Join(dir, project.DirName)
	var rs, ns []time.Duration
	for i := range runs {
		b := budget - 1 + i%2
		start := time.Now()
		rep, err := indexer.Sync(context.Background(), cdir, pkgs, indexer.Options{BudgetTokens: b})
		if err != nil {
			return res, err
		}
		rs = append(rs, time.Since(start))
		res.tokens, res.degraded = max(res.tokens, rep.IndexTokens), rep.Degraded
		if rep.IndexTokens > b {
			res.over++
		}
		start = time.Now()
		if _, err := indexer.Sync(context.Background(), cdir, pkgs, indexer.Options{BudgetTokens: b}); err != nil {
			return res, err
		}
		ns = append(ns, time.Since(start))
	}
	res.render, res.noop = stat.Quantile(rs, 0.5), stat.Quantile(ns, 0.5)
	return res, nil
}

// searchInProcess runs n queries on one Reader (after one that opens the
// index) and returns the latencies.
func searchInProcess(dir string, n int) ([]time.Duration, error) {
	r, err := indexer.OpenReader(filepath.Join(dir, project.DirName))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	ctx := context.Background()
	if _, err := r.Search(ctx, indexer.Query{Text: "warm up"}); err != nil {
		return nil, err
	}
	var ds []time.Duration
	for i := range n {
		start := time.Now()
		if _, err := r.Search(ctx, indexer.Query{Text: benchmcp.Queries[i%len(benchmcp.Queries)], Limit: 10, BestPerDocument: i%2 == 1}); err != nil {
			return nil, err
		}
		ds = append(ds, time.Since(start))
	}
	return ds, nil
}

// searchMCP starts `ctx mcp` on stdio in dir (the real binary), and times
// n search calls after a first one (which opens the index).
func searchMCP(bin, dir string, n int) ([]time.Duration, error) {
	ds, err := benchmcp.StdioSearches(bin, dir, n+1, nil)
	if err != nil {
		return nil, err
	}
	return ds[1:], nil
}

// searchByLength times, on one Reader of the project in dir (after a first
// search that opens the index), rounds passes over bench/mcp's queries (one
// to four words) and over benchmcp.LongQueries of 5 to 12 words (25 of each length),
// and prints each group's p50, p95 and CPU time per search (getrusage:
// the machine is shared, CPU time moves less than wall time).
func searchByLength(dir string, rounds int) error {
	r, err := indexer.OpenReader(filepath.Join(dir, project.DirName))
	if err != nil {
		return err
	}
	defer r.Close()
	ctx := context.Background()
	if _, err := r.Search(ctx, indexer.Query{Text: "warm up"}); err != nil {
		return err
	}
	groups := []struct {
		name string
		qs   []string
	}{{"1-4 words (bench/mcp)", benchmcp.Queries}}
	for w := 5; w <= 12; w++ {
		groups = append(groups, struct {
			name string
			qs   []string
		}{fmt.Sprintf("%d words", w), benchmcp.LongQueries(w, 25)})
	}
	fmt.Printf("search by query length, %s, load %s\n", dir, loadavg.String())
	for _, g := range groups {
		var ds []time.Duration
		cpu0 := stat.CPU(stat.Process)
		for range rounds {
			for i, q := range g.qs {
				start := time.Now()
				if _, err := r.Search(ctx, indexer.Query{Text: q, Limit: 10, BestPerDocument: i%2 == 1}); err != nil {
					return err
				}
				ds = append(ds, time.Since(start))
			}
		}
		cpu := (stat.CPU(stat.Process) - cpu0) / time.Duration(len(ds))
		fmt.Printf("%-22s %4d searches  p50 %6.2f ms  p95 %6.2f ms  CPU %6.2f ms a search\n", g.name, len(ds),
			float64(stat.Quantile(ds, 0.5).Microseconds())/1000, float64(stat.Quantile(ds, 0.95).Microseconds())/1000, float64(cpu.Microseconds())/1000)
	}
	return nil
}

// searchCold prints, on the project in dir, the p50, p95 and CPU time a
// search of n short queries on one Reader (searchInProcess, as the full
// run times them), then of cold searches each on a new Reader (the
// index opened, searched once and closed: a server's search after the
// Reader closed its idle index), with the minor page faults a search.
func searchCold(dir string, n, cold int) error {
	cpu0 := stat.CPU(stat.Process)
	ds, err := searchInProcess(dir, n)
	if err != nil {
		return err
	}
	cpu := (stat.CPU(stat.Process) - cpu0) / time.Duration(len(ds)+1)
	fmt.Printf("%-22s %4d searches  p50 %6.2f ms  p95 %6.2f ms  CPU %6.2f ms a search (load %s)\n", "short, one Reader", len(ds),
		msf(stat.Quantile(ds, 0.5)), msf(stat.Quantile(ds, 0.95)), msf(cpu), loadavg.String())
	ctx := context.Background()
	ds = ds[:0]
	cpu0, faults0 := stat.CPU(stat.Process), stat.MinorFaults()
	for i := range cold {
		start := time.Now()
		r, err := indexer.OpenReader(filepath.Join(dir, project.DirName))
		if err != nil {
			return err
		}
		_, err = r.Search(ctx, indexer.Query{Text: benchmcp.Queries[i%len(benchmcp.Queries)], Limit: 10, BestPerDocument: i%2 == 1})
		r.Close()
		if err != nil {
			return err
		}
		ds = append(ds, time.Since(start))
	}
	cpu = (stat.CPU(stat.Process) - cpu0) / time.Duration(cold)
	fmt.Printf("%-22s %4d searches  p50 %6.2f ms  p95 %6.2f ms  CPU %6.2f ms a search, %d page faults a search (load %s)\n", "short, new Reader each", cold,
		msf(stat.Quantile(ds, 0.5)), msf(stat.Quantile(ds, 0.95)), msf(cpu), (stat.MinorFaults()-faults0)/int64(cold), loadavg.String())
	return nil
}

// msf is d in milliseconds.
func msf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
