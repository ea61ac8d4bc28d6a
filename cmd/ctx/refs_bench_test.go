package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/ctxref"
	"github.com/ctx-dev/ctx/internal/gittest"
)

// BenchmarkRefsFetch: `ctx refs --fetch --yes` in a project of 10,000
// markdown files, 1,000 of which cite one document each of 50 registry
// contexts (50 repositories served over smart HTTP on 127.0.0.1, 20
// documents each), from a fresh .context/ and an empty object cache: the
// scan, the registry, 50 installs (16 at once) and the index. The issue's
// goal is ≤ 10 s.
func BenchmarkRefsFetch(b *testing.B) {
	if !gittest.Available() {
		b.Skip("git not installed")
	}
	const repos, docsPerRepo, files, citing = 50, 20, 10_000, 1_000
	tmp := b.TempDir()
	srvRoot := filepath.Join(tmp, "srv")
	type ctxEntry struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Repo        string `json:"repo"`
		Path        string `json:"path"`
	}
	for i := range repos {
		fs := map[string]string{"README.md": "# repo\n"}
		for j := range docsPerRepo {
			fs[fmt.Sprintf("docs/page%d.md", j)] = fmt.Sprintf("# Page %d of repo %d\n\n%s\n", j, i, strings.Repeat("Some documentation text. ", 60))
		}
		src := filepath.Join(tmp, fmt.Sprintf("src%d", i))
		gittest.NewRepo(b, src, fs)
		gittest.MustGit(b, tmp, "clone", "-q", "--bare", src, filepath.Join(srvRoot, fmt.Sprintf("r%d.git", i)))
	}
	srv, err := gittest.Serve(srvRoot, gittest.ServeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	var ctxs []ctxEntry
	for i := range repos {
		ctxs = append(ctxs, ctxEntry{Name: fmt.Sprintf("c%d", i), Description: "bench", Repo: fmt.Sprintf("%s/r%d.git", srv.URL, i), Path: "docs"})
	}
	regJSON, _ := json.Marshal(map[string]any{"name": "bench", "contexts": ctxs})
	reg := filepath.Join(tmp, "ctx-registry.json")
	if err := os.WriteFile(reg, regJSON, 0o644); err != nil {
		b.Fatal(err)
	}
	proj := filepath.Join(tmp, "proj")
	for i := range files {
		body := fmt.Sprintf("# Note %d\n\nSome text of the project.\n", i)
		if i < citing {
			body += fmt.Sprintf("\nSee @ctx/c%d/page%d.md for the details.\n", i%repos, (i/repos)%docsPerRepo)
		}
		p := filepath.Join(proj, "docs", fmt.Sprintf("d%02d", i%100), fmt.Sprintf("note%d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	env := os.Environ()
	ctxRun := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append([]string{"-C", proj}, args...), &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, env, proj)
		return code, errOut.String()
	}
	n, scan := 0, time.Duration(0)
	for b.Loop() {
		b.StopTimer()
		n++
		env = append(os.Environ(), "CTX_CACHE="+filepath.Join(tmp, fmt.Sprintf("cache%d", n)))
		os.RemoveAll(filepath.Join(proj, ".context"))
		if code, e := ctxRun("init", "--registry", reg); code != 0 {
			b.Fatalf("init: %d %s", code, e)
		}
		b.StartTimer()
		code, e := ctxRun("refs", "--fetch", "--yes")
		b.StopTimer()
		if code != 0 || !strings.Contains(e, "refs: fetched: 50 installed") || !strings.Contains(e, "1000 resolved") {
			b.Fatalf("refs --fetch: exit %d\n%s", code, e)
		}
		// The scan and classification alone (all resolved: no registry).
		start := time.Now()
		if code, e := ctxRun("refs", "--check"); code != 0 {
			b.Fatalf("refs --check: exit %d\n%s", code, e)
		}
		scan += time.Since(start)
		b.StartTimer()
	}
	b.ReportMetric(scan.Seconds()/float64(n), "scan-s/op")
}

// BenchmarkRefsOneLine: `ctx refs` over a project whose docs/refs.md is
// one line of references, 8 MiB (about 700,000 of "@ctx/x/a.md"), the shape
// that was quadratic (issue 25: 40,000 took 18 s). The scan stops at the
// reference limit (100,000), inside the line; the goal is ≤ 2 s
// (ctxref's BenchmarkScanOneLine reads 10 MB).
func BenchmarkRefsOneLine(b *testing.B) {
	proj := b.TempDir()
	if err := os.MkdirAll(filepath.Join(proj, "docs"), 0o755); err != nil {
		b.Fatal(err)
	}
	const ref = "@ctx/x/a.md "
	line := strings.Repeat(ref, (ctxref.DefaultMaxFileBytes-1)/len(ref))
	if err := os.WriteFile(filepath.Join(proj, "docs", "refs.md"), []byte(line+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	env := os.Environ()
	ctxRun := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append([]string{"-C", proj}, args...), &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, env, proj)
		return code, errOut.String()
	}
	if code, e := ctxRun("init"); code != 0 {
		b.Fatalf("init: %d %s", code, e)
	}
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for b.Loop() {
		code, e := ctxRun("refs")
		if code != 0 || !strings.Contains(e, "stopped after 100000 references (the limit) at docs/refs.md:1") {
			b.Fatalf("refs: exit %d\n%.2000s", code, e)
		}
	}
	// The process's CPU time (GC included): on a shared machine the wall
	// time is mostly the others' load.
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}
