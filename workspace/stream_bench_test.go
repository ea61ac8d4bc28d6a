package workspace

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/project"
)

// BenchmarkInstallIndexWhileFetching: `ctx install --frozen` of 20
// packages cut from the benchmark corpus (CTX_BENCH_CORPUS, e.g.
// ../shared/corpus; skipped when unset), one repository served over smart
// HTTP on 127.0.0.1 (as is, and with every response delayed 50 ms, as a
// network round trip would), into a fresh clone with a cold object cache;
// each package is indexed as it lands (stream) and, alternating in the
// same run, after every fetch is done (after: as before issue 18). It
// reports each one's wall time; both include the full index build and
// INDEX.md.
func BenchmarkInstallIndexWhileFetching(b *testing.B) {
	corpus := os.Getenv("CTX_BENCH_CORPUS")
	if corpus == "" {
		b.Skip("CTX_BENCH_CORPUS not set")
	}
	if !gittest.Available() {
		b.Skip("git not installed")
	}
	tmp := b.TempDir()
	src := filepath.Join(tmp, "src")
	if out, err := exec.Command("cp", "-a", corpus, src).CombinedOutput(); err != nil {
		b.Fatalf("copy corpus: %v\n%s", err, out)
	}
	gittest.MustGit(b, src, "init", "-q")
	gittest.MustGit(b, src, "add", "-A")
	gittest.MustGit(b, src, "-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-qm", "corpus")
	root := filepath.Join(tmp, "srv")
	gittest.MustGit(b, tmp, "clone", "-q", "--bare", src, filepath.Join(root, "corpus.git"))
	for _, latency := range []time.Duration{0, 50 * time.Millisecond} {
		b.Run(fmt.Sprintf("rtt=%v", latency), func(b *testing.B) {
			srv, err := gittest.Serve(root, gittest.ServeOptions{Latency: latency})
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			installStreamedVsAfter(b, src, srv.URL)
		})
	}
}

// installStreamedVsAfter is BenchmarkInstallIndexWhileFetching's loop for
// one server, with the corpus at src served as url/corpus.git.
func installStreamedVsAfter(b *testing.B, src, url string) {
	tmp := b.TempDir()

	// The 20 largest folders two levels down (k8s-keps' sigs, rust-book's
	// src, tldr's pages): packages of a few hundred KB to a few MB.
	type folder struct {
		path string
		size int64
	}
	var folders []folder
	tops, _ := os.ReadDir(src)
	for _, top := range tops {
		if !top.IsDir() || top.Name() == ".git" {
			continue
		}
		subs, _ := os.ReadDir(filepath.Join(src, top.Name()))
		for _, sub := range subs {
			if !sub.IsDir() {
				continue
			}
			var size int64
			filepath.Walk(filepath.Join(src, top.Name(), sub.Name()), func(_ string, fi os.FileInfo, err error) error {
				if err == nil && !fi.IsDir() {
					size += fi.Size()
				}
				return nil
			})
			folders = append(folders, folder{top.Name() + "/" + sub.Name(), size})
		}
	}
	slices.SortFunc(folders, func(a, c folder) int { return cmp.Compare(c.size, a.size) })
	folders = folders[:min(20, len(folders))]
	proj := filepath.Join(tmp, "proj")
	os.MkdirAll(proj, 0o755)
	w, err := Init(proj, InitOptions{}, Options{EngineOptions: gitengine.Options{CacheDir: filepath.Join(tmp, "cache0")}})
	if err != nil {
		b.Fatal(err)
	}
	var specs []project.PackageSpec
	for i, f := range folders {
		specs = append(specs, project.PackageSpec{Alias: fmt.Sprintf("p%02d", i), Source: url + "/corpus.git", Path: f.path})
	}
	if r, err := w.Add(bg, specs, AddOptions{}); err != nil || r.Partial() {
		b.Fatalf("add: %v %+v", err, r)
	}
	w.Close()

	sides := []struct {
		name  string
		after bool
		time  time.Duration
	}{{"stream", false, 0}, {"after", true, 0}}
	n := 0
	for b.Loop() {
		n++
		for i := range sides {
			s := &sides[i]
			if n%2 == 0 {
				s = &sides[len(sides)-1-i] // alternate which goes first
			}
			b.StopTimer()
			dir := filepath.Join(b.TempDir(), "clone")
			copyBenchProject(b, proj, dir)
			b.StartTimer()
			start := time.Now()
			w, err := Open(dir, Options{Jobs: benchJobs, EngineOptions: gitengine.Options{CacheDir: filepath.Join(dir, "..", "cache")}, indexAfter: s.after})
			if err != nil {
				b.Fatal(err)
			}
			r, err := w.Install(bg, InstallOptions{Frozen: true})
			if err != nil || r.Partial() || r.Index == nil || !r.Index.Rebuilt {
				b.Fatalf("%s: install: %v %+v", s.name, err, r)
			}
			w.Close()
			s.time += time.Since(start)
		}
	}
	for _, s := range sides {
		b.ReportMetric(float64(s.time.Milliseconds())/float64(n), s.name+"-ms/op")
	}
	b.ReportMetric(float64(sides[1].time)/float64(sides[0].time), "speedup")
}
