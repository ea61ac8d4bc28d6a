package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ctx-dev/ctx/bench/internal/stat"
	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/workspace"
)

// fatal is a gittest.TB for a program: a failure ends it.
type fatal struct{}

func (fatal) Helper() {}
func (fatal) Fatalf(format string, args ...any) {
	log.Fatalf(format, args...)
}

// page is a small markdown document of the generated kind.
func page(v *vocab, seed uint64) string {
	var b strings.Builder
	v.document(newRand(seed), &b)
	return b.String()
}

// serveRepos makes one bare repository per entry of repos (name → files)
// under <dir>/srv and serves them over smart HTTP on 127.0.0.1.
func serveRepos(dir string, repos map[string]map[string]string) (*gittest.Server, error) {
	root := filepath.Join(dir, "srv")
	for name, files := range repos {
		src := filepath.Join(dir, "src", name)
		gittest.NewRepo(fatal{}, src, files)
		gittest.MustGit(fatal{}, dir, "clone", "-q", "--bare", src, filepath.Join(root, name+".git"))
	}
	return gittest.Serve(root, gittest.ServeOptions{})
}

// addAll makes a project at dir with specs added (installed, locked,
// indexed), in this process.
func addAll(dir, cache string, specs []project.PackageSpec) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	w, err := workspace.Init(dir, workspace.InitOptions{}, workspace.Options{EngineOptions: gitengine.Options{CacheDir: cache}})
	if err != nil {
		return err
	}
	defer w.Close()
	r, err := w.Add(context.Background(), specs, workspace.AddOptions{})
	if err != nil {
		return err
	}
	if r.Partial() {
		for _, p := range r.Packages {
			if p.Action == workspace.Failed || p.Action == workspace.Skipped {
				return fmt.Errorf("add %s: %s", p.Alias, p.Why())
			}
		}
	}
	return nil
}

// runCtx runs the ctx binary with args and CTX_CACHE=cache (and a HOME of
// its own beside the cache: gittest.Env), and times it.
func runCtx(bin, cache string, args ...string) (time.Duration, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(gittest.Env(cache+"-home"), "CTX_CACHE="+cache)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		return d, fmt.Errorf("ctx %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return d, nil
}

// manyResult is list, status and verify with many packages.
type manyResult struct {
	packages             int
	list, status, verify time.Duration
}

// manyPackages installs n small packages (folders of one repository,
// 3 documents each) into a project and times `ctx list`, `ctx status` and
// `ctx verify` there, runs times each (the median).
func manyPackages(work, bin string, v *vocab, n, runs int) (manyResult, error) {
	res := manyResult{packages: n}
	dir := filepath.Join(work, "many")
	os.RemoveAll(dir)
	files := map[string]string{}
	for i := range n {
		for j := range 3 {
			files[fmt.Sprintf("p%04d/doc%d.md", i, j)] = page(v, uint64(i*3+j))
		}
	}
	srv, err := serveRepos(dir, map[string]map[string]string{"many": files})
	if err != nil {
		return res, err
	}
	defer srv.Close()
	var specs []project.PackageSpec
	for i := range n {
		specs = append(specs, project.PackageSpec{Alias: fmt.Sprintf("p%04d", i), Source: srv.URL + "/many.git", Path: fmt.Sprintf("p%04d", i)})
	}
	proj, cache := filepath.Join(dir, "proj"), filepath.Join(dir, "cache")
	start := time.Now()
	if err := addAll(proj, cache, specs); err != nil {
		return res, err
	}
	fmt.Fprintf(os.Stderr, "scale: %d packages installed in %v\n", n, time.Since(start).Round(time.Millisecond))
	for _, c := range []struct {
		cmd string
		d   *time.Duration
	}{{"list", &res.list}, {"status", &res.status}, {"verify", &res.verify}} {
		var ds []time.Duration
		for range runs {
			d, err := runCtx(bin, cache, "-C", proj, c.cmd)
			if err != nil {
				return res, err
			}
			ds = append(ds, d)
		}
		*c.d = stat.Quantile(ds, 0.5)
	}
	return res, nil
}

// installResult is ctx install of many packages against native git, and
// a no-op update.
type installResult struct {
	packages    int
	ctx, native []time.Duration
	noop        time.Duration
	// ctxRequests and nativeRequests are the HTTP requests the server
	// answered for one install (the last round's).
	ctxRequests, nativeRequests int
	// ctxCPU and nativeCPU are each round's CPU time (user + system) of
	// the install and of the server's git processes for it together
	// (childrenCPU): less noisy than wall time on a busy machine.
	ctxCPU, nativeCPU []time.Duration
}

// childrenCPU is the CPU time (user + system) of this process's children
// that have ended: the ctx and git commands it ran, and the git
// http-backend processes of its servers.
func childrenCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// installVsNative serves n repositories (a docs/ folder of 20 documents,
// 30 other files around it) and times `ctx install --frozen` of their
// docs/ folders from a lock into a fresh clone with a cold cache (the ctx
// binary, as a user runs it), against native git installing the same
// folders one after another (blobless, depth 1, no-cone sparse clone, as
// workspace's BenchmarkInstallVsNative), alternating, rounds times; then a
// no-op `ctx update` (median of 5).
func installVsNative(work, bin string, v *vocab, n, rounds int) (installResult, error) {
	res := installResult{packages: n}
	dir := filepath.Join(work, "install")
	os.RemoveAll(dir)
	repos := map[string]map[string]string{}
	for i := range n {
		files := map[string]string{}
		for j := range 20 {
			files[fmt.Sprintf("docs/part%d/page%d.md", j%4, j)] = page(v, uint64(100000+i*20+j))
		}
		for j := range 30 {
			files[fmt.Sprintf("src/pkg%d/file%d.go", j%5, j)] = fmt.Sprintf("package pkg\n\n// %d %d\n%s\n", i, j, strings.Repeat("// code\n", 100))
		}
		repos[fmt.Sprintf("r%03d", i)] = files
	}
	srv, err := serveRepos(dir, repos)
	if err != nil {
		return res, err
	}
	defer srv.Close()
	var specs []project.PackageSpec
	for i := range n {
		specs = append(specs, project.PackageSpec{Alias: fmt.Sprintf("p%03d", i), Source: fmt.Sprintf("%s/r%03d.git", srv.URL, i), Path: "docs"})
	}
	proj, cache := filepath.Join(dir, "proj"), filepath.Join(dir, "cache")
	if err := addAll(proj, cache, specs); err != nil {
		return res, err
	}
	env := gittest.Env(filepath.Join(dir, "home"))
	for r := range rounds {
		clone := filepath.Join(dir, fmt.Sprintf("clone%d", r))
		for _, name := range []string{project.ManifestName, project.LockName} {
			if _, err := copyFile(filepath.Join(proj, project.DirName, name), filepath.Join(clone, project.DirName, name)); err != nil {
				return res, err
			}
		}
		srv.ResetCounters()
		cpu := childrenCPU()
		d, err := runCtx(bin, filepath.Join(dir, fmt.Sprintf("cache%d", r)), "-C", clone, "install", "--frozen")
		if err != nil {
			return res, err
		}
		res.ctx = append(res.ctx, d)
		res.ctxCPU = append(res.ctxCPU, childrenCPU()-cpu)
		res.ctxRequests = srv.Requests()
		srv.ResetCounters()
		cpu = childrenCPU()
		start := time.Now()
		for i := range n {
			dst := filepath.Join(dir, fmt.Sprintf("native%d", r), fmt.Sprintf("p%03d", i))
			for _, args := range [][]string{
				{"clone", "-q", "--filter=blob:none", "--depth", "1", "--sparse", "--no-checkout", fmt.Sprintf("%s/r%03d.git", srv.URL, i), dst},
				{"-C", dst, "sparse-checkout", "set", "--no-cone", "/docs/"},
				{"-C", dst, "checkout", "-q"},
			} {
				cmd := exec.Command("git", args...)
				cmd.Env = env
				if out, err := cmd.CombinedOutput(); err != nil {
					return res, fmt.Errorf("git %v: %v\n%s", args, err, out)
				}
			}
		}
		res.native = append(res.native, time.Since(start))
		res.nativeCPU = append(res.nativeCPU, childrenCPU()-cpu)
		res.nativeRequests = srv.Requests()
		os.RemoveAll(clone)
		os.RemoveAll(filepath.Join(dir, fmt.Sprintf("native%d", r)))
	}
	var ds []time.Duration
	for range 5 {
		d, err := runCtx(bin, cache, "-C", proj, "update")
		if err != nil {
			return res, err
		}
		ds = append(ds, d)
	}
	res.noop = stat.Quantile(ds, 0.5)
	return res, nil
}
