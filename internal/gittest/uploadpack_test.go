package gittest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// exchange is one request a git client made, kept to be sent again.
type exchange struct {
	method, uri string
	header      http.Header
	body        []byte
}

// TestUploadPackAsHTTPBackend: the server's own run of upload-pack
// (serveUploadPack) answers every request of real git clients (protocol
// v2, and v0 shallow and filtered; a fetch with haves in each) as
// git http-backend does: the same status, the same headers a client reads
// (Content-Type, the no-cache ones) and the same body (the same pkt-lines
// and the same bytes on each side band: where git cuts the pack into
// packets follows its pipe's reads, which two runs of http-backend do not
// share either); a gzip-encoded body too. What it does not take (no
// repository there, a wrong content type, an unknown encoding)
// http-backend answers, as before.
func TestUploadPackAsHTTPBackend(t *testing.T) {
	t.Parallel()
	root, _ := setup(t)
	direct, err := Serve(root, ServeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	ref, err := Serve(root, ServeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	ref.viaBackend = true

	// A proxy in front of the direct server keeps every request the
	// clients make.
	var mu sync.Mutex
	var seen []exchange
	target, _ := url.Parse(direct.URL)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		seen = append(seen, exchange{r.Method, r.URL.RequestURI(), r.Header.Clone(), body})
		mu.Unlock()
		req, _ := http.NewRequest(r.Method, target.String()+r.URL.RequestURI(), bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	defer proxy.Close()

	tmp := t.TempDir()
	src := filepath.Join(tmp, "src")
	MustGit(t, tmp, "clone", "-q", filepath.Join(root, "repo.git"), src)
	for i, args := range [][]string{
		{"clone", "-q", "--no-checkout"},
		// go-git's protocol, shallow and filtered as gitengine fetches
		{"-c", "protocol.version=0", "clone", "-q", "--no-checkout", "--depth", "1", "--filter=blob:none"},
	} {
		MustGit(t, tmp, append(args, proxy.URL+"/repo.git", filepath.Join(tmp, fmt.Sprint("c", i)))...)
	}
	// A fetch with something to negotiate: a new commit pushed to the
	// served repository, fetched into a clone that has the first.
	Commit(t, src, "v2", map[string]string{"docs/a/two.md": "two\n"})
	MustGit(t, src, "push", "-q", "origin", "HEAD")
	MustGit(t, filepath.Join(tmp, "c0"), "fetch", "-q", "origin")
	MustGit(t, filepath.Join(tmp, "c1"), "-c", "protocol.version=0", "fetch", "-q", "origin")

	// Each different request once (the advertisements repeat), and one
	// POST of each protocol again gzip-encoded, as a client sends a large
	// one.
	mu.Lock()
	var reqs []exchange
	distinct := map[string]bool{}
	for _, x := range seen {
		k := fmt.Sprintf("%s %s %s %q", x.method, x.uri, x.header.Get("Git-Protocol"), x.body)
		if !distinct[k] {
			distinct[k] = true
			reqs = append(reqs, x)
		}
	}
	mu.Unlock()
	var posts int
	zipped := map[string]bool{}
	for _, x := range reqs {
		if x.method == http.MethodPost {
			posts++
			if zipped[x.header.Get("Git-Protocol")] {
				continue
			}
			zipped[x.header.Get("Git-Protocol")] = true
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(x.body)
			zw.Close()
			h := x.header.Clone()
			h.Set("Content-Encoding", "gzip")
			reqs = append(reqs, exchange{x.method, x.uri, h, z.Bytes()})
		}
	}
	if len(zipped) != 2 || posts < 6 {
		t.Fatalf("the clients made %d different requests (%d POSTs, protocols %v); want at least 6 POSTs, of two protocols", len(reqs), posts, zipped)
	}
	// What the direct path leaves to http-backend.
	reqs = append(reqs,
		exchange{http.MethodGet, "/nothing.git/info/refs?service=git-upload-pack", http.Header{}, nil},
		exchange{http.MethodPost, "/repo.git/git-upload-pack", http.Header{"Content-Type": {"text/plain"}}, []byte("0000")},
		exchange{http.MethodPost, "/repo.git/git-upload-pack", http.Header{"Content-Type": {"application/x-git-upload-pack-request"}, "Content-Encoding": {"br"}}, []byte("0000")},
	)
	runsBefore := direct.backendRuns.Load()
	for _, x := range reqs {
		a, b := send(t, direct.URL, x), send(t, ref.URL, x)
		what := fmt.Sprintf("%s %s (Git-Protocol %q, Content-Encoding %q)", x.method, x.uri, x.header.Get("Git-Protocol"), x.header.Get("Content-Encoding"))
		if a.status != b.status {
			t.Errorf("%s: status %d, http-backend's %d", what, a.status, b.status)
		}
		for _, k := range []string{"Content-Type", "Cache-Control", "Expires", "Pragma"} {
			if a.header.Get(k) != b.header.Get(k) {
				t.Errorf("%s: %s %q, http-backend's %q", what, k, a.header.Get(k), b.header.Get(k))
			}
		}
		if !bytes.Equal(a.body, b.body) && unbanded(a.body) != unbanded(b.body) {
			t.Errorf("%s: a body of %d bytes unlike http-backend's %d:\n%s\n%s", what, len(a.body), len(b.body), clip([]byte(unbanded(a.body))), clip([]byte(unbanded(b.body))))
		}
	}
	if got := direct.backendRuns.Load() - runsBefore; got != int64(len(reqs)) {
		t.Errorf("%d runs of git for %d requests", got, len(reqs))
	}
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func send(t *testing.T, base string, x exchange) answer {
	t.Helper()
	req, err := http.NewRequest(x.method, base+x.uri, bytes.NewReader(x.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = x.header.Clone()
	req.Header.Del("Content-Length")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, body}
}

// unbanded is a response body's pkt-lines with the side-band packets
// (a first byte of 1, 2 or 3) taken out and joined per band: the body
// without where its packets were cut. A body that is not all pkt-lines is
// itself.
func unbanded(b []byte) string {
	var lines []string
	bands := map[byte]*strings.Builder{1: {}, 2: {}, 3: {}}
	for len(b) > 0 {
		if len(b) < 4 {
			return "not pkt-lines: " + string(b)
		}
		n, err := strconv.ParseUint(string(b[:4]), 16, 16)
		if err != nil || n == 3 || int(n) > len(b) {
			return "not pkt-lines: " + string(b)
		}
		if n < 4 { // flush, delim, response-end
			lines = append(lines, string(b[:4]))
			b = b[4:]
			continue
		}
		p := b[4:n]
		if len(p) > 0 && p[0] >= 1 && p[0] <= 3 {
			bands[p[0]].Write(p[1:])
		} else {
			lines = append(lines, string(p))
		}
		b = b[n:]
	}
	return fmt.Sprintf("%q band1 %q band2 %q band3 %q", lines, bands[1].String(), bands[2].String(), bands[3].String())
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return strings.ToValidUTF8(string(b), "?")
}
