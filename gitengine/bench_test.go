package gitengine

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// benchRepo is a repository of 2,000 files in 100 folders, served over
// smart HTTP; the package is one folder of 20 files.
func benchRepo(b *testing.B) (url, local, commit string) {
	b.Helper()
	if !gittest.Available() {
		b.Skip("git not installed")
	}
	tmp := b.TempDir()
	files := map[string]string{}
	for i := 0; i < 2000; i++ {
		files[fmt.Sprintf("area%02d/topic%02d/page%04d.md", i%10, i%100/10, i)] = fmt.Sprintf("# Page %d\n\n%0400d\n", i, i)
	}
	src := filepath.Join(tmp, "src")
	commit = gittest.NewRepo(b, src, files)
	root := filepath.Join(tmp, "root")
	gittest.MustGit(b, tmp, "clone", "-q", "--bare", src, filepath.Join(root, "r.git"))
	s, err := gittest.Serve(root, gittest.ServeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s.URL + "/r.git", filepath.Join(root, "r.git"), commit
}

func benchMaterialize(b *testing.B, url, commit string, freshCache bool) {
	ctx := context.Background()
	cache := b.TempDir()
	var bytes int64
	if !freshCache { // warm the cache outside the timer
		if _, err := New(Options{CacheDir: cache}).Materialize(ctx, FetchRequest{URL: url, Commit: commit, Path: "area03/topic04"}, filepath.Join(b.TempDir(), "p")); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if freshCache {
			cache = filepath.Join(b.TempDir(), "c")
		}
		e := New(Options{CacheDir: cache})
		res, err := e.Materialize(ctx, FetchRequest{URL: url, Commit: commit, Path: "area03/topic04"}, filepath.Join(b.TempDir(), "p"))
		if err != nil {
			b.Fatal(err)
		}
		bytes += res.Bytes
	}
	b.ReportMetric(float64(bytes)/float64(b.N), "netbytes/op")
}

func BenchmarkMaterializeHTTPCold(b *testing.B) {
	url, _, commit := benchRepo(b)
	benchMaterialize(b, url, commit, true)
}

func BenchmarkMaterializeHTTPWarm(b *testing.B) {
	url, _, commit := benchRepo(b)
	benchMaterialize(b, url, commit, false)
}

func BenchmarkMaterializeLocal(b *testing.B) {
	_, local, commit := benchRepo(b)
	benchMaterialize(b, local, commit, false)
}
