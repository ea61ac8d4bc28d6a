package webfetch

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
)

// etagHandler serves fixed bodies by path with strong ETags and answers
// If-None-Match with 304.
func etagHandler(bodies map[string][]byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		tag := fmt.Sprintf(`"%x"`, sha256.Sum256(b))
		w.Header().Set("ETag", tag)
		if r.Header.Get("If-None-Match") == tag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Write(b)
	}
}

// benchPasses fetches every URL into a fresh cache (the cold pass), then
// again with each snapshot as Prev (the second, conditional pass), and
// reports the requests and body bytes of both.
func benchPasses(b *testing.B, urls []string) {
	c := New(Options{})
	defer c.Close()
	root := b.TempDir()
	var cold, warm Snapshot
	for b.Loop() {
		dir, err := os.MkdirTemp(root, "cache")
		if err != nil {
			b.Fatal(err)
		}
		c.o.CacheDir = dir
		cold, warm = Snapshot{}, Snapshot{}
		prevs := make([]*Snapshot, len(urls))
		for i, u := range urls {
			s, err := c.Fetch(context.Background(), Request{URL: u, AllowPrivate: true})
			if err != nil {
				b.Fatal(err)
			}
			prevs[i] = s
			cold.Requests += s.Requests
			cold.BodyBytes += s.BodyBytes
		}
		for i, u := range urls {
			s, err := c.Fetch(context.Background(), Request{URL: u, AllowPrivate: true, Prev: prevs[i]})
			if err != nil {
				b.Fatal(err)
			}
			if !s.NotModified {
				b.Fatalf("%s: not NotModified on the second pass", u)
			}
			warm.Requests += s.Requests
			warm.BodyBytes += s.BodyBytes
		}
	}
	b.ReportMetric(float64(cold.Requests), "cold-requests/op")
	b.ReportMetric(float64(cold.BodyBytes), "cold-body-B/op")
	b.ReportMetric(float64(warm.Requests), "2nd-requests/op")
	b.ReportMetric(float64(warm.BodyBytes), "2nd-body-B/op")
}

// BenchmarkFetch50Documents: 50 markdown documents of about 8 KB, fetched
// cold and then revalidated (goal: one request per source, 0 body bytes).
func BenchmarkFetch50Documents(b *testing.B) {
	bodies := map[string][]byte{}
	for i := range 50 {
		bodies[fmt.Sprintf("/doc%02d.md", i)] = []byte(fmt.Sprintf("# Document %d\n\n%s", i, strings.Repeat("Some documentation text.\n", 330)))
	}
	s := serve(b, etagHandler(bodies))
	var urls []string
	for p := range bodies {
		urls = append(urls, s.URL+p)
	}
	benchPasses(b, urls)
}

// BenchmarkFetchArchive1000Files: one .tar.gz of 1,000 markdown files.
func BenchmarkFetchArchive1000Files(b *testing.B) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for i := range 1000 {
		body := []byte(fmt.Sprintf("# Page %d\n\n%s", i, strings.Repeat(fmt.Sprintf("line %d of the page\n", i), 40)))
		if err := tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("docs/p%04d.md", i), Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			b.Fatal(err)
		}
		tw.Write(body)
	}
	tw.Close()
	zw.Close()
	s := serve(b, etagHandler(map[string][]byte{"/docs.tar.gz": buf.Bytes()}))
	benchPasses(b, []string{s.URL + "/docs.tar.gz"})
}
