// Command mcp-bench measures `ctx mcp` over stdio: the time from process start
// to the initialize reply (empty project, and a project with the shared corpus
// installed), and search round trips on the corpus.
//
//	go -C bench run ./mcp -corpus /work/shared/corpus -work /tmp/ctx-mcp-bench
//
// With -load, it measures instead one `ctx mcp --http` under -sessions
// concurrent session-based clients, each searching in a loop for
// -duration, then as many stdio `ctx mcp` processes doing the same: search
// latency, errors, and resident memory (the server's; the processes' sum).
//
//	go -C bench run ./mcp -load -sessions 50 -duration 30s [-think 1s] -work /tmp/ctx-mcp-bench
//
// The corpus folders become packages under <work>/corpus/.context/packages
// (copied; the corpus itself is only read), with a lock written by lockfile
// and the index built by indexer.Sync. A -work dir that already holds them is
// reused. Results are printed as markdown for bench/mcp/README.md.
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/bench/internal/benchmcp"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"

	"github.com/ctx-dev/ctx/bench/internal/loadavg"
)

func main() {
	corpus := flag.String("corpus", "/work/shared/corpus", "folder whose sub-folders become packages")
	work := flag.String("work", "", "working dir (default: a new temp dir)")
	ctxBin := flag.String("ctx", "", "ctx binary (default: go build ./cmd/ctx into the work dir)")
	starts := flag.Int("starts", 30, "process starts per project")
	searches := flag.Int("searches", 300, "search round trips")
	load := flag.Bool("load", false, "run the load test (ctx mcp --http against stdio processes) instead")
	sessions := flag.Int("sessions", 50, "with -load: concurrent clients")
	duration := flag.Duration("duration", 30*time.Second, "with -load: how long each client searches")
	think := flag.Duration("think", 0, "with -load: each client's pause after a search (0: back to back)")
	lockstep := flag.Bool("lockstep", false, "with -load and -think: every client pauses exactly -think, from the same start (calls then come in bursts); default: random starts and pauses of think/2 to 3·think/2")
	stdio := flag.Bool("stdio", true, "with -load: then as many stdio processes (false: the HTTP server only)")
	flag.Parse()
	loadN := 0
	if *load {
		loadN = *sessions
	}
	if err := run(*corpus, *work, *ctxBin, *starts, *searches, loadN, *duration, *think, *lockstep, *stdio); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-bench:", err)
		os.Exit(1)
	}
}

func run(corpus, work, ctxBin string, starts, searches, loadN int, loadFor, think time.Duration, lockstep, stdio bool) error {
	if work == "" {
		d, err := os.MkdirTemp("", "ctx-mcp-bench-")
		if err != nil {
			return err
		}
		work = d
	}
	if ctxBin == "" {
		ctxBin = filepath.Join(work, "ctx")
		cmd := exec.Command("go", "build", "-o", ctxBin, "github.com/ctx-dev/ctx/cmd/ctx")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building ctx (run from the module root): %w", err)
		}
	}
	empty := filepath.Join(work, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		return err
	}
	proj := filepath.Join(work, "corpus")
	setup, err := installCorpus(corpus, proj)
	if err != nil {
		return err
	}

	fmt.Printf("machine: %s\n\n", machine())
	fmt.Printf("corpus: %s\n\n", setup)
	if loadN > 0 {
		return runLoad(ctxBin, proj, loadN, loadFor, think, lockstep, stdio)
	}
	fmt.Println("| measurement | n | min | p50 | p95 | max |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, c := range []struct{ name, dir string }{{"start → initialize reply, empty project", empty}, {"start → initialize reply, corpus installed", proj}} {
		var ds []time.Duration
		for range starts {
			d, err := timeInitialize(ctxBin, c.dir)
			if err != nil {
				return err
			}
			ds = append(ds, d)
		}
		row(c.name, ds)
	}
	first, rest, touched, err := timeSearches(ctxBin, proj, searches)
	if err != nil {
		return err
	}
	row("first search (opens the index, full freshness check)", []time.Duration{first})
	row("search round trip over stdio, corpus", rest)
	row("search right after the lock changed (full freshness check)", touched)
	fmt.Printf("\nload after: %s\n", loadavg.String())
	return nil
}

func row(name string, ds []time.Duration) {
	slices.Sort(ds)
	q := func(p float64) time.Duration { return ds[min(len(ds)-1, int(p*float64(len(ds))))] }
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	fmt.Printf("| %s | %d | %s | %s | %s | %s |\n", name, len(ds), ms(ds[0]), ms(q(0.5)), ms(q(0.95)), ms(ds[len(ds)-1]))
}

// installCorpus lays out each corpus folder as a package, writes the lock and
// builds the index, unless proj already has them.
func installCorpus(corpus, proj string) (string, error) {
	ctxDir := filepath.Join(proj, ".context")
	lockPath := filepath.Join(ctxDir, project.LockName)
	entries, err := os.ReadDir(corpus)
	if err != nil {
		return "", err
	}
	lock := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{}}
	files := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		alias := e.Name()
		dst := filepath.Join(ctxDir, "packages", alias)
		n, err := copyTree(filepath.Join(corpus, alias), dst)
		if err != nil {
			return "", err
		}
		files += n
		lock.Packages[alias] = lockfile.Entry{Source: "file://" + filepath.Join(corpus, alias), Ref: "main",
			Rev: strings.Repeat("0", 40), Tree: strings.Repeat("0", 40), Hash: benchHash(alias),
			Updated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	}
	if err := lockfiletest.Write(lockPath, lock); err != nil {
		return "", err
	}
	var pkgs []indexer.Package
	for a, e := range lock.Packages {
		pkgs = append(pkgs, indexer.Package{Alias: a, Source: e.Source, Ref: e.Ref, Rev: e.Rev})
	}
	start := time.Now()
	rep, err := indexer.Sync(context.Background(), ctxDir, pkgs, indexer.Options{})
	if err != nil {
		return "", fmt.Errorf("indexing the corpus: %w", err)
	}
	return fmt.Sprintf("%d packages, %d files, %d documents, %d chunks (index sync %s: %d added, %d unchanged)",
		len(pkgs), files, rep.Added+rep.Updated+rep.Unchanged, rep.Chunks, time.Since(start).Round(time.Millisecond), rep.Added, rep.Unchanged), nil
}

// copyTree copies regular files from src to dst, skipping those already
// there with the same size.
func copyTree(src, dst string) (int, error) {
	n := 0
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		n++
		to := filepath.Join(dst, rel)
		fi, _ := d.Info()
		if st, err := os.Stat(to); err == nil && fi != nil && st.Size() == fi.Size() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
	return n, err
}

// benchHash is a well-formed h1: hash (the bench does not verify content).
func benchHash(alias string) string {
	sum := sha256.Sum256([]byte(alias))
	return "h1:" + base64.StdEncoding.EncodeToString(sum[:])
}

// timeInitialize starts ctx mcp and times until the initialize reply.
func timeInitialize(bin, dir string) (time.Duration, error) {
	cmd := exec.Command(bin, "mcp", "-C", dir)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	if _, err := io.WriteString(in, benchmcp.InitRequest); err != nil {
		return 0, err
	}
	line, err := bufio.NewReader(out).ReadBytes('\n')
	d := time.Since(start)
	in.Close()
	cmd.Wait()
	if err != nil || !strings.Contains(string(line), `"serverInfo"`) {
		return 0, fmt.Errorf("no initialize reply: %v %q", err, line)
	}
	return d, nil
}

// timeSearches runs n search calls on one server; it returns the first
// (which opens the index) and the others, then 10 searches each right after
// the lock's mtime changed (as after an install in another terminal).
func timeSearches(bin, dir string, n int) (first time.Duration, rest, touched []time.Duration, err error) {
	lock := filepath.Join(dir, ".context", project.LockName)
	ds, err := benchmcp.StdioSearches(bin, dir, n+11, func(i int) {
		if i > n {
			now := time.Now().Add(time.Duration(i) * time.Second)
			os.Chtimes(lock, now, now)
		}
	})
	if err != nil {
		return 0, nil, nil, err
	}
	return ds[0], ds[1 : n+1], ds[n+1:], nil
}

func machine() string {
	cpu := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "model name") {
				cpu = strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
				break
			}
		}
	}
	return fmt.Sprintf("%s/%s, %d CPUs (%s), %s, load before: %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpu, runtime.Version(), loadavg.String())
}
