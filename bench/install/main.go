// Command install-bench measures `ctx install --frozen` of a few packages
// as a process (issue 31: "install of 10 packages"), from a lock into a
// fresh clone with a cold cache, against native git installing the same
// folders with the same parallelism (a blobless, depth-1, no-cone sparse
// clone and checkout of each package's docs/, -p at a time, as `xargs -P`
// would run them), over smart HTTP (git http-backend) on 127.0.0.1. Two
// ctx binaries may be compared; the sides rotate which runs first each
// round.
//
//	go build -o /tmp/ctx-before ./cmd/ctx   # at the commit to compare with
//	go build -o /tmp/ctx-after ./cmd/ctx
//	go -C bench run ./install -before /tmp/ctx-before -after /tmp/ctx-after
//
// Per side it reports the wall time (p50, min, max) and the CPU time
// (user + system) of the install together with the server's git
// processes for it (the children of this program that ended during the
// run: rusage), and the load average (1 minute) over the run, since the
// machine is shared. Each package is a repository of 20 documents under
// docs/ and 30 other files beside it. Linux only; needs git.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ctx-dev/ctx/bench/internal/loadavg"
	"github.com/ctx-dev/ctx/internal/gittest"
)

func main() {
	before := flag.String("before", "", "the ctx binary to compare with (`PATH`; optional)")
	after := flag.String("after", "", "the ctx binary under test (`PATH`)")
	n := flag.Int("packages", 10, "packages to install")
	par := flag.Int("p", 16, "native git: packages installed at once (xargs -P)")
	rounds := flag.Int("rounds", 10, "installs per side")
	flag.Parse()
	if *after == "" {
		log.Fatal("give -after, and -before to compare with (see the doc comment)")
	}
	work, err := os.MkdirTemp("", "ctx-install-bench-*")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)

	srvRoot := filepath.Join(work, "srv")
	for i := range *n {
		files := map[string]string{}
		for j := range 20 {
			files[fmt.Sprintf("docs/part%d/page%d.md", j%4, j)] = fmt.Sprintf("# Page %d of %d\n\n%s\n\n## Usage\n\n%s\n", j, i, strings.Repeat(fmt.Sprintf("Words of page %d in package %d. ", j, i), 40), strings.Repeat("More text. ", 60))
		}
		for j := range 30 {
			files[fmt.Sprintf("src/pkg%d/file%d.go", j%5, j)] = fmt.Sprintf("package pkg\n\n// %d %d\n%s\n", i, j, strings.Repeat("// code\n", 100))
		}
		src := filepath.Join(work, "src", fmt.Sprintf("r%03d", i))
		gittest.NewRepo(fatal{}, src, files)
		gittest.MustGit(fatal{}, work, "clone", "-q", "--bare", src, filepath.Join(srvRoot, fmt.Sprintf("r%03d.git", i)))
	}
	srv, err := gittest.Serve(srvRoot, gittest.ServeOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	env := gittest.Env(filepath.Join(work, "home"))

	// The project: its manifest and lock, made once by the after binary.
	proj := filepath.Join(work, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		log.Fatal(err)
	}
	ctx(env, *after, filepath.Join(work, "cache"), "-C", proj, "init")
	for i := range *n {
		ctx(env, *after, filepath.Join(work, "cache"), "-C", proj, "add", fmt.Sprintf("%s/r%03d.git", srv.URL, i), "--path", "docs", "--alias", fmt.Sprintf("p%03d", i))
	}

	type side struct {
		name, bin string
		wall, cpu []time.Duration
	}
	var sides []*side
	if *before != "" {
		sides = append(sides, &side{name: "before", bin: *before})
	}
	sides = append(sides, &side{name: "after", bin: *after}, &side{name: "native"})
	loadMin, loadMax := 1e9, 0.0
	for r := range *rounds {
		l := loadavg.Minute()
		loadMin, loadMax = min(loadMin, l), max(loadMax, l)
		order := append(sides[r%len(sides):len(sides):len(sides)], sides[:r%len(sides)]...)
		for k, s := range order {
			dst := filepath.Join(work, fmt.Sprintf("run-%d-%d", r, k))
			cpu0 := childrenCPU()
			var wall time.Duration
			if s.bin == "" {
				wall = native(env, srv.URL, dst, *n, *par)
			} else {
				for _, name := range []string{"context.config.json", "context.lock"} {
					b, err := os.ReadFile(filepath.Join(proj, ".context", name))
					if err != nil {
						log.Fatal(err)
					}
					if err := os.MkdirAll(filepath.Join(dst, ".context"), 0o755); err != nil {
						log.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dst, ".context", name), b, 0o644); err != nil {
						log.Fatal(err)
					}
				}
				wall = ctx(env, s.bin, dst+"-cache", "-C", dst, "install", "--frozen")
			}
			s.wall = append(s.wall, wall)
			s.cpu = append(s.cpu, childrenCPU()-cpu0)
			os.RemoveAll(dst)
			os.RemoveAll(dst + "-cache")
		}
	}
	fmt.Printf("%d rounds: install of %d packages (20 documents each, from a lock, cold cache) over git http-backend on 127.0.0.1; native: %d at once; load average %.1f–%.1f\n", *rounds, *n, *par, loadMin, loadMax)
	fmt.Printf("%-7s %10s %10s %10s %12s\n", "side", "wall p50", "wall min", "wall max", "CPU p50")
	var nat *side
	for _, s := range sides {
		if s.bin == "" {
			nat = s
		}
	}
	for _, s := range sides {
		slices.Sort(s.wall)
		slices.Sort(s.cpu)
		fmt.Printf("%-7s %10v %10v %10v %12v", s.name, s.wall[len(s.wall)/2].Round(time.Millisecond), s.wall[0].Round(time.Millisecond),
			s.wall[len(s.wall)-1].Round(time.Millisecond), s.cpu[len(s.cpu)/2].Round(time.Millisecond))
		if s != nat {
			fmt.Printf("   native ÷ %s: wall %.2f×, CPU %.2f×", s.name, float64(p50(nat.wall))/float64(p50(s.wall)), float64(p50(nat.cpu))/float64(p50(s.cpu)))
		}
		fmt.Println()
	}
}

func p50(ds []time.Duration) time.Duration { return ds[len(ds)/2] }

// native installs the n packages' docs/ folders under dst with git, par
// at a time, and returns the wall time.
func native(env []string, url, dst string, n, par int) time.Duration {
	start := time.Now()
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			d := filepath.Join(dst, fmt.Sprintf("p%03d", i))
			for _, args := range [][]string{
				{"clone", "-q", "--filter=blob:none", "--depth", "1", "--sparse", "--no-checkout", fmt.Sprintf("%s/r%03d.git", url, i), d},
				{"-C", d, "sparse-checkout", "set", "--no-cone", "/docs/"},
				{"-C", d, "checkout", "-q"},
			} {
				cmd := exec.Command("git", args...)
				cmd.Env = env
				if out, err := cmd.CombinedOutput(); err != nil {
					log.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start)
}

// ctx runs bin with args and CTX_CACHE=cache, and returns its wall time.
func ctx(env []string, bin, cache string, args ...string) time.Duration {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(slices.Clone(env), "CTX_CACHE="+cache)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		log.Fatalf("%s %v: %v\n%s", bin, args, err, out)
	}
	return d
}

// childrenCPU is the CPU time (user + system) of this process's children
// that have ended: the ctx and git commands, and the server's git
// http-backend processes.
func childrenCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		log.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// fatal is a gittest.TB for a program: a failure ends it.
type fatal struct{}

func (fatal) Helper() {}
func (fatal) Fatalf(format string, args ...any) {
	log.Fatalf(format, args...)
}
