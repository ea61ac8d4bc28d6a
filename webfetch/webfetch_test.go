package webfetch

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// server is an httptest server on 127.0.0.1 that counts its requests and
// records the headers of the last one.
type server struct {
	*httptest.Server
	n    atomic.Int64
	mu   sync.Mutex
	last http.Header
	seen []http.Header
}

func serve(t testing.TB, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.n.Add(1)
		s.mu.Lock()
		s.last = r.Header.Clone()
		s.seen = append(s.seen, r.Header.Clone())
		s.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) header(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last.Get(name)
}

func newClient(t testing.TB, o Options) *Client {
	t.Helper()
	if o.CacheDir == "" {
		o.CacheDir = t.TempDir()
	}
	o.backoff = time.Millisecond
	c := New(o)
	t.Cleanup(c.Close)
	return c
}

func fetchOK(t testing.TB, c *Client, r Request) *Snapshot {
	t.Helper()
	s, err := c.Fetch(context.Background(), r)
	if err != nil {
		t.Fatalf("Fetch(%s): %v", r.URL, err)
	}
	return s
}

func fetchErr(t *testing.T, c *Client, r Request, kind Kind, wants ...string) error {
	t.Helper()
	_, err := c.Fetch(context.Background(), r)
	if err == nil {
		t.Fatalf("Fetch(%s): no error, want %v", r.URL, kind)
	}
	if KindOf(err) != kind {
		t.Errorf("Fetch(%s): kind %v, want %v: %v", r.URL, KindOf(err), kind, err)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Fetch(%s): error %q does not say %q", r.URL, err, w)
		}
	}
	return err
}

func blobText(t testing.TB, c *Client, blob string) string {
	t.Helper()
	f, err := c.Open(blob)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestFetchDocument(t *testing.T) {
	t.Parallel()
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		w.Header().Set("ETag", `"v1"`)
		io.WriteString(w, "# Hello\n")
	})
	c := newClient(t, Options{})
	snap := fetchOK(t, c, Request{URL: s.URL + "/guide.md", AllowPrivate: true})
	if snap.Form != FormDocument || len(snap.Items) != 1 || snap.Requests != 1 || snap.BodyBytes != 8 || snap.ETag != `"v1"` {
		t.Fatalf("snapshot %+v", snap)
	}
	if got := blobText(t, c, snap.Items[0].Blob); got != "# Hello\n" {
		t.Errorf("blob %q", got)
	}
	if !strings.HasPrefix(snap.Rev, "sha256:") || snap.Items[0].ContentType != "text/markdown" {
		t.Errorf("snapshot %+v", snap)
	}
	cached, err := c.Cached(snap.Rev)
	if err != nil {
		t.Fatal(err)
	}
	if cached.Rev != snap.Rev || cached.Items[0].Blob != snap.Items[0].Blob || cached.URL != snap.URL {
		t.Errorf("cached %+v, fetched %+v", cached, snap)
	}
}

func TestBadRequests(t *testing.T) {
	t.Parallel()
	c := newClient(t, Options{})
	fetchErr(t, c, Request{URL: "ftp://example.com/a.md"}, KindScheme, "only http and https")
	fetchErr(t, c, Request{URL: "file:///etc/passwd"}, KindScheme, "only http and https")
	fetchErr(t, c, Request{URL: "https://user:secret@example.com/a.md"}, KindOther, "credentials", "tokenEnv")
	fetchErr(t, c, Request{URL: "https://example.com/a.md", Token: "a\nb"}, KindAuth, "control character")
	fetchErr(t, c, Request{URL: "https://example.com/a.md", Form: "zip"}, KindOther, "unknown form")
	fetchErr(t, c, Request{URL: "https://example.com/a.md", Limits: Limits{MaxBytes: -1}}, KindOther, "maxBytes")
	if _, err := New(Options{}).Fetch(context.Background(), Request{URL: "https://example.com/a.md"}); err == nil || !strings.Contains(err.Error(), "cache") {
		t.Errorf("no cache dir: %v", err)
	}
}

// redirector answers /r/N with a redirect to /r/N-1 and /r/0 with a page.
func redirector(t *testing.T) *server {
	return serve(t, func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/r/"))
		if n == 0 {
			io.WriteString(w, "end\n")
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/r/%d", n-1), http.StatusFound)
	})
}

func TestRedirectLimit(t *testing.T) {
	t.Parallel()
	s := redirector(t)
	c := newClient(t, Options{})
	snap := fetchOK(t, c, Request{URL: s.URL + "/r/5", AllowPrivate: true})
	if snap.FinalURL != s.URL+"/r/0" || snap.Requests != 6 {
		t.Errorf("5 redirects: final %s, %d requests", snap.FinalURL, snap.Requests)
	}
	fetchErr(t, c, Request{URL: s.URL + "/r/6", AllowPrivate: true}, KindLimit, "more than 5 redirects", `"maxRedirects"`)
	fetchErr(t, c, Request{URL: s.URL + "/r/3", AllowPrivate: true, Limits: Limits{MaxRedirects: 2}}, KindLimit, "more than 2 redirects")
}

func TestRedirectSchemeRefused(t *testing.T) {
	t.Parallel()
	plain := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/to-https" {
			http.Redirect(w, r, "https://"+strings.TrimPrefix(r.Host, "http://")+"/x.md", http.StatusFound)
			return
		}
		io.WriteString(w, "plain\n")
	})
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/to-http" {
			http.Redirect(w, r, plain.URL+"/x.md", http.StatusMovedPermanently)
			return
		}
		if r.URL.Path == "/to-ftp" {
			http.Redirect(w, r, "ftp://"+r.Host+"/x.md", http.StatusMovedPermanently)
			return
		}
		io.WriteString(w, "secure\n")
	}))
	t.Cleanup(tlsSrv.Close)
	c := newClient(t, Options{tls: tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig})
	snap := fetchOK(t, c, Request{URL: tlsSrv.URL + "/a.md", AllowPrivate: true})
	if got := blobText(t, c, snap.Items[0].Blob); got != "secure\n" {
		t.Fatalf("https fetch: %q", got)
	}
	fetchErr(t, c, Request{URL: tlsSrv.URL + "/to-http", AllowPrivate: true}, KindScheme, "from https to", "(http)", "may not change the scheme")
	fetchErr(t, c, Request{URL: tlsSrv.URL + "/to-ftp", AllowPrivate: true}, KindScheme, "may not change the scheme")
	fetchErr(t, c, Request{URL: plain.URL + "/to-https", AllowPrivate: true}, KindScheme, "from http to", "may not change the scheme")
	if n := plain.n.Load(); n != 1 {
		t.Errorf("the http server saw %d requests, want 1 (the redirect to http must not be followed)", n)
	}
}

func TestPrivateNetworkRefused(t *testing.T) {
	t.Parallel()
	private := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "internal\n") })
	_, port, _ := strings.Cut(strings.TrimPrefix(private.URL, "http://"), ":")
	c := newClient(t, Options{})
	fetchErr(t, c, Request{URL: private.URL + "/a.md"}, KindPrivate, "127.0.0.1 resolves to 127.0.0.1, a loopback address", "--allow-private-network")
	fetchErr(t, c, Request{URL: "http://localhost:" + port + "/a.md"}, KindPrivate, "localhost resolves to", "loopback", "--allow-private-network")
	if n := private.n.Load(); n != 0 {
		t.Errorf("the private server saw %d requests, want 0", n)
	}
	// The same source with AllowPrivate is fetched.
	fetchOK(t, c, Request{URL: "http://localhost:" + port + "/a.md", AllowPrivate: true})
}

func TestRedirectToPrivateRefused(t *testing.T) {
	t.Parallel()
	private := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "internal\n") })
	_, port, _ := strings.Cut(strings.TrimPrefix(private.URL, "http://"), ":")
	public := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/go" {
			http.Redirect(w, r, "http://localhost:"+port+"/secret.md", http.StatusFound)
			return
		}
		io.WriteString(w, "public\n")
	})
	publicAddr := netip.MustParseAddrPort(strings.TrimPrefix(public.URL, "http://"))
	c := newClient(t, Options{public: func(ap netip.AddrPort) bool { return ap == publicAddr }})
	fetchOK(t, c, Request{URL: public.URL + "/a.md"}) // the seam lets it through
	fetchErr(t, c, Request{URL: public.URL + "/go"}, KindPrivate, "localhost resolves to", "loopback", "--allow-private-network")
	if n := private.n.Load(); n != 0 {
		t.Errorf("the private server saw %d requests, want 0", n)
	}
}

func TestSizeLimits(t *testing.T) {
	t.Parallel()
	released := make(chan struct{})
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/huge.md": // claims a terabyte, then sends nothing: reading it would hang
			w.Header().Set("Content-Length", strconv.FormatInt(1<<40, 10))
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-released:
			}
		case "/chunked.md": // no length: 1000 bytes in chunks
			for range 10 {
				w.Write([]byte(strings.Repeat("x", 100)))
				w.(http.Flusher).Flush()
			}
		case "/exact.md":
			w.Write([]byte(strings.Repeat("y", 100)))
		case "/docs.zip":
			w.Write([]byte(strings.Repeat("z", 500)))
		}
	})
	t.Cleanup(func() { close(released) }) // before s.Close, which waits for the handlers
	c := newClient(t, Options{})
	lim := Limits{MaxBytes: 100, MaxArchiveBytes: 1000, Timeout: 5 * time.Second, Attempts: 1}
	fetchErr(t, c, Request{URL: s.URL + "/huge.md", AllowPrivate: true, Limits: lim}, KindLimit,
		"document is 1099511627776 bytes, over the limit of 100 bytes", `"maxBytes"`)
	fetchErr(t, c, Request{URL: s.URL + "/chunked.md", AllowPrivate: true, Limits: lim}, KindLimit,
		"document is more than 100 bytes, over the limit of 100 bytes", `"maxBytes"`)
	if snap := fetchOK(t, c, Request{URL: s.URL + "/exact.md", AllowPrivate: true, Limits: lim}); snap.Items[0].Size != 100 {
		t.Errorf("exact: size %d", snap.Items[0].Size)
	}
	// An archive has its own limit.
	if snap := fetchOK(t, c, Request{URL: s.URL + "/docs.zip", AllowPrivate: true, Limits: lim}); snap.Form != FormArchive || snap.Items[0].Size != 500 {
		t.Errorf("archive: %+v", snap)
	}
	lim.MaxArchiveBytes = 499
	fetchErr(t, c, Request{URL: s.URL + "/docs.zip", AllowPrivate: true, Limits: lim}, KindLimit, "archive is", `"maxArchiveBytes"`)
	// Nothing over a limit was left in the cache.
	entries, _ := os.ReadDir(c.dir("blobs"))
	if len(entries) != 2 {
		t.Errorf("blobs: %d entries, want 2 (exact.md, docs.zip)", len(entries))
	}
}

func TestStalledServer(t *testing.T) {
	t.Parallel()
	released := make(chan struct{})
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/mid-body.md" {
			w.Header().Set("Content-Length", "100")
			w.Write([]byte("partial"))
			w.(http.Flusher).Flush()
		}
		select { // before headers, or mid-body
		case <-r.Context().Done():
		case <-released:
		}
	})
	t.Cleanup(func() { close(released) }) // before s.Close, which waits for the handlers
	c := newClient(t, Options{})
	lim := Limits{Timeout: 200 * time.Millisecond, Attempts: 2}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fetchErr(t, c, Request{URL: s.URL + "/no-headers.md", AllowPrivate: true, Limits: lim}, KindNetwork, "sent nothing for 200ms", `"timeout"`)
		fetchErr(t, c, Request{URL: s.URL + "/mid-body.md", AllowPrivate: true, Limits: lim}, KindNetwork, "sent nothing for 200ms")
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Fetch of a stalled server hangs")
	}
	if n := s.n.Load(); n != 2 {
		t.Errorf("server saw %d requests, want 2 (a stall is not tried again)", n)
	}
}

// A server that drips a byte every 20ms never trips the idle timeout; the
// rate floor (1,000 bytes in each Limits.Timeout) gives up on it, once,
// with a message naming the source and the limit to raise (issue 25).
func TestSlowServer(t *testing.T) {
	t.Parallel()
	released := make(chan struct{})
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		io.WriteString(w, "# Slow\n")
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for range 100_000 {
			select {
			case <-r.Context().Done():
				return
			case <-released:
				return
			case <-tick.C:
			}
			io.WriteString(w, "x")
			w.(http.Flusher).Flush()
		}
	})
	t.Cleanup(func() { close(released) }) // before s.Close, which waits for the handlers
	c := newClient(t, Options{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := fetchErr(t, c, Request{URL: s.URL + "/slow.md?token=x", AllowPrivate: true, Limits: Limits{Timeout: time.Second}}, KindNetwork,
			s.URL+"/slow.md", "the server is too slow: ", "under the floor of 1000 bytes per 1s", "limits.timeout")
		if strings.Contains(err.Error(), "token=x") {
			t.Errorf("the query string is shown: %v", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Fetch of a dripping server hangs")
	}
	if n := s.n.Load(); n != 1 {
		t.Errorf("server saw %d requests, want 1 (too slow is not tried again)", n)
	}
}

func TestRetries(t *testing.T) {
	t.Parallel()
	var flaky atomic.Int64
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/flaky.md":
			if flaky.Add(1) <= 2 {
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			io.WriteString(w, "ok\n")
		case "/down.md":
			http.Error(w, "down", http.StatusInternalServerError)
		case "/bad.md":
			http.Error(w, "bad", http.StatusBadRequest)
		case "/reset.md":
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}
	})
	c := newClient(t, Options{})
	snap := fetchOK(t, c, Request{URL: s.URL + "/flaky.md", AllowPrivate: true})
	if snap.Requests != 3 {
		t.Errorf("flaky: %d requests, want 3", snap.Requests)
	}
	before := s.n.Load()
	fetchErr(t, c, Request{URL: s.URL + "/down.md", AllowPrivate: true}, KindNetwork, "500", "after 3 attempts")
	if n := s.n.Load() - before; n != 3 {
		t.Errorf("5xx: %d requests, want 3", n)
	}
	before = s.n.Load()
	fetchErr(t, c, Request{URL: s.URL + "/bad.md", AllowPrivate: true}, KindOther, "400")
	if n := s.n.Load() - before; n != 1 {
		t.Errorf("4xx: %d requests, want 1 (no retry)", n)
	}
	before = s.n.Load()
	fetchErr(t, c, Request{URL: s.URL + "/reset.md", AllowPrivate: true, Limits: Limits{Attempts: 2}}, KindNetwork, "after 2 attempts")
	if n := s.n.Load() - before; n < 2 {
		t.Errorf("cut connection: %d requests, want at least 2", n)
	}
}

func TestAuth(t *testing.T) {
	t.Parallel()
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good-token-123" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		io.WriteString(w, "private docs\n")
	})
	c := newClient(t, Options{})
	fetchErr(t, c, Request{URL: s.URL + "/a.md", AllowPrivate: true}, KindAuth, "401", `set the source's "tokenEnv"`)
	fetchErr(t, c, Request{URL: s.URL + "/a.md", AllowPrivate: true, Token: "wrong-token-456"}, KindAuth, "401", "refused the token", `"tokenEnv"`)
	fetchOK(t, c, Request{URL: s.URL + "/a.md", AllowPrivate: true, Token: "good-token-123"})
}

const secretToken = "tok-SECRET-9f8e7d"

// TestTokenNeverShown makes errors happen with a token set, some of them
// from a server that echoes the token, and looks for it in every message
// and every cache file.
func TestTokenNeverShown(t *testing.T) {
	t.Parallel()
	echo := serve(t, func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		switch r.URL.Path {
		case "/status": // the token in the status line
			conn, buf, _ := w.(http.Hijacker).Hijack()
			fmt.Fprintf(buf, "HTTP/1.1 599 %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", tok)
			buf.Flush()
			conn.Close()
		case "/loop": // the token in redirect URLs, forever
			http.Redirect(w, r, "/loop?t="+tok, http.StatusFound)
		case "/ftp":
			http.Redirect(w, r, "ftp://"+tok+"@example.com/x?t="+tok, http.StatusFound)
		case "/forbidden":
			http.Error(w, tok, http.StatusForbidden)
		case "/gone":
			http.Error(w, tok, http.StatusNotFound)
		case "/big":
			io.WriteString(w, tok+strings.Repeat(tok, 100))
		case "/ok.md":
			w.Header().Set("ETag", `"e"`)
			io.WriteString(w, "fine\n")
		case "/llms.txt":
			io.WriteString(w, "- [page](/page404.md)\n- [ok](/ok.md)\n")
		case "/bad/llms.txt": // every page fails: so does the index
			io.WriteString(w, "- [page](/page404.md)\n")
		case "/page404.md": // a page left out with a warning
			conn, buf, _ := w.(http.Hijacker).Hijack()
			fmt.Fprintf(buf, "HTTP/1.1 404 %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", tok)
			buf.Flush()
			conn.Close()
		}
	})
	var warnings []string
	var mu sync.Mutex
	c := newClient(t, Options{Warn: func(m string) { mu.Lock(); warnings = append(warnings, m); mu.Unlock() }})
	lim := Limits{MaxBytes: 100, Attempts: 1}
	var msgs []string
	for _, p := range []string{"/status", "/loop", "/ftp", "/forbidden", "/gone", "/gone", "/big"} {
		_, err := c.Fetch(context.Background(), Request{URL: echo.URL + p + "?q=1", Token: secretToken, AllowPrivate: true, Limits: lim})
		if err == nil {
			t.Fatalf("%s: no error", p)
		}
		msgs = append(msgs, err.Error())
	}
	fetchOK(t, c, Request{URL: echo.URL + "/ok.md", Token: secretToken, AllowPrivate: true})
	fetchOK(t, c, Request{URL: echo.URL + "/llms.txt", Token: secretToken, AllowPrivate: true})
	if len(warnings) != 1 || !strings.Contains(warnings[0], "page404.md") {
		t.Errorf("warnings %q, want the left-out page", warnings)
	}
	_, err := c.Fetch(context.Background(), Request{URL: echo.URL + "/bad/llms.txt", Token: secretToken, AllowPrivate: true})
	if err == nil {
		t.Fatal("bad/llms.txt: no error")
	}
	msgs = append(msgs, err.Error())
	msgs = append(msgs, warnings...)
	for _, m := range msgs {
		if strings.Contains(m, secretToken) {
			t.Errorf("message shows the token: %s", m)
		}
	}
	if len(msgs) < 7 || !strings.Contains(msgs[0], "599") || !strings.Contains(msgs[1], "redirects") || !strings.Contains(msgs[2], "scheme") {
		t.Errorf("messages: %q", msgs)
	}
	filepath.WalkDir(c.o.CacheDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, _ := os.ReadFile(p)
		if strings.Contains(string(data), secretToken) || strings.Contains(p, secretToken) {
			t.Errorf("cache file %s holds the token", p)
		}
		return nil
	})
}

func TestTokenOnlyToOriginalHost(t *testing.T) {
	t.Parallel()
	other := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "other\n") })
	origin := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away.md": // same address, another port: another host
			http.Redirect(w, r, other.URL+"/b.md", http.StatusFound)
		case "/here.md":
			http.Redirect(w, r, "/c.md", http.StatusFound)
		default:
			io.WriteString(w, "origin\n")
		}
	})
	// other stands for a public host: a source's private-network
	// allowance is its origin's only (TestPrivateAllowanceIsTheOrigins).
	otherAddr := netip.MustParseAddrPort(strings.TrimPrefix(other.URL, "http://"))
	c := newClient(t, Options{public: func(ap netip.AddrPort) bool { return ap == otherAddr }})
	fetchOK(t, c, Request{URL: origin.URL + "/here.md", Token: "t0k", AllowPrivate: true})
	if got := origin.header("Authorization"); got != "Bearer t0k" {
		t.Errorf("redirect on the same host: Authorization %q, want the token", got)
	}
	fetchOK(t, c, Request{URL: origin.URL + "/away.md", Token: "t0k", AllowPrivate: true})
	if got := other.header("Authorization"); got != "" {
		t.Errorf("redirect to another host: Authorization %q sent there", got)
	}
}

// The private-network allowance is for the source's origin (the user
// allowed it for that scheme, host and port: project.WebAllowFor): a
// redirect from there to another private address, or an llms.txt index
// redirected there with its pages, goes through the guard (review17a: an
// open redirect on the allowed host reached 169.254.169.254).
func TestPrivateAllowanceIsTheOrigins(t *testing.T) {
	t.Parallel()
	metadata := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/llms.txt" {
			io.WriteString(w, "# Meta\n\n- [role](/role.md)\n")
			return
		}
		io.WriteString(w, "# Role\n\nsecret\n")
	})
	allowed := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hop.md":
			http.Redirect(w, r, metadata.URL+"/role.md", http.StatusFound)
		case "/llms.txt":
			http.Redirect(w, r, metadata.URL+"/llms.txt", http.StatusFound)
		case "/here.md":
			http.Redirect(w, r, "/a.md", http.StatusFound)
		default:
			io.WriteString(w, "# A\n\nmine\n")
		}
	})
	c := newClient(t, Options{CacheDir: t.TempDir()})
	fetchOK(t, c, Request{URL: allowed.URL + "/here.md", AllowPrivate: true})
	fetchErr(t, c, Request{URL: allowed.URL + "/hop.md", AllowPrivate: true}, KindPrivate, "loopback")
	fetchErr(t, c, Request{URL: allowed.URL + "/llms.txt", AllowPrivate: true}, KindPrivate, "loopback")
	if n := metadata.n.Load(); n != 0 {
		t.Errorf("the other private server saw %d requests, want 0", n)
	}
}

func TestNotFoundRemembered(t *testing.T) {
	t.Parallel()
	s := serve(t, func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	dir := t.TempDir()
	c := newClient(t, Options{CacheDir: dir, Now: clock})
	r := Request{URL: s.URL + "/missing.md", AllowPrivate: true}
	fetchErr(t, c, r, KindNotFound, "404", "check the URL")
	if n := s.n.Load(); n != 1 {
		t.Fatalf("%d requests, want 1 (no retry on 404)", n)
	}
	mu.Lock()
	now = now.Add(59 * time.Minute)
	mu.Unlock()
	// Another client on the same cache (another process) remembers too.
	c2 := newClient(t, Options{CacheDir: dir, Now: clock})
	fetchErr(t, c2, r, KindNotFound, "answered 404 at 2026-03-01 12:00:00 UTC", "asks again after 13:00:00 UTC")
	if n := s.n.Load(); n != 1 {
		t.Errorf("%d requests, want 1: the 404 is remembered for an hour", n)
	}
	// With a token, the server is asked: it may show the page to that reader.
	fetchErr(t, c2, Request{URL: r.URL, AllowPrivate: true, Token: "x"}, KindNotFound, "404")
	if n := s.n.Load(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	fetchErr(t, c2, r, KindNotFound, "404")
	if n := s.n.Load(); n != 3 {
		t.Errorf("%d requests after an hour, want 3", n)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "https", "notfound"))
	for _, e := range entries {
		if strings.Contains(e.Name(), "missing") || strings.Contains(e.Name(), "127.0.0.1") {
			t.Errorf("the 404 record is named after the URL: %s", e.Name())
		}
	}
}

// etagServer serves /doc.md with an ETag (or a Last-Modified) and answers
// conditional requests with 304.
func etagServer(t testing.TB, body *atomic.Value, useLM bool) *server {
	return serve(t, func(w http.ResponseWriter, r *http.Request) {
		b := body.Load().(string)
		tag := fmt.Sprintf(`"%x"`, sha256.Sum256([]byte(b)))
		lm := "Mon, 02 Jan 2006 15:04:05 GMT"
		if strings.HasSuffix(b, "v2\n") {
			lm = "Tue, 03 Jan 2006 15:04:05 GMT"
		}
		if useLM {
			w.Header().Set("Last-Modified", lm)
			if r.Header.Get("If-Modified-Since") == lm {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		} else {
			w.Header().Set("ETag", tag)
			if r.Header.Get("If-None-Match") == tag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		io.WriteString(w, b)
	})
}

func TestConditionalRevalidation(t *testing.T) {
	t.Parallel()
	for _, useLM := range []bool{false, true} {
		t.Run(fmt.Sprintf("lastModified=%t", useLM), func(t *testing.T) {
			t.Parallel()
			var body atomic.Value
			body.Store("# doc v1\n")
			s := etagServer(t, &body, useLM)
			c := newClient(t, Options{})
			r := Request{URL: s.URL + "/doc.md", AllowPrivate: true}
			first := fetchOK(t, c, r)
			if first.NotModified || (useLM && first.LastModified == "") || (!useLM && first.ETag == "") {
				t.Fatalf("first: %+v", first)
			}
			r.Prev = first
			second := fetchOK(t, c, r)
			if !second.NotModified || second.Rev != first.Rev || second.Requests != 1 || second.BodyBytes != 0 || !second.Fetched.Equal(first.Fetched) {
				t.Errorf("second: NotModified %t, rev %s (was %s), %d requests, %d bytes", second.NotModified, second.Rev, first.Rev, second.Requests, second.BodyBytes)
			}
			if useLM && s.header("If-Modified-Since") == "" || !useLM && s.header("If-None-Match") == "" {
				t.Errorf("the server saw no conditional header: %v", s.last)
			}
			// The lock may carry only the rev and the validators.
			r.Prev = &Snapshot{Rev: first.Rev, ETag: first.ETag, LastModified: first.LastModified}
			if third := fetchOK(t, c, r); !third.NotModified || third.Requests != 1 {
				t.Errorf("from the lock's fields: %+v", third)
			}
			// New content: a new rev.
			body.Store("# doc v2\n")
			r.Prev = first
			changed := fetchOK(t, c, r)
			if changed.NotModified || changed.Rev == first.Rev || blobText(t, c, changed.Items[0].Blob) != "# doc v2\n" {
				t.Errorf("changed: %+v", changed)
			}
			// Prev not in this cache: fetched unconditionally.
			c2 := newClient(t, Options{})
			r.Prev = changed
			fresh := fetchOK(t, c2, r)
			if fresh.NotModified || fresh.Rev != changed.Rev || s.header("If-None-Match") != "" || s.header("If-Modified-Since") != "" {
				t.Errorf("prev not cached: NotModified %t, headers %v", fresh.NotModified, s.last)
			}
		})
	}
}

func TestCachedVerifies(t *testing.T) {
	t.Parallel()
	s := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "content "+r.URL.Path) })
	c := newClient(t, Options{})
	snap := fetchOK(t, c, Request{URL: s.URL + "/a.md", AllowPrivate: true})
	if _, err := c.Cached(snap.Rev); err != nil {
		t.Fatal(err)
	}
	blob := c.dir("blobs", snap.Items[0].Blob)
	if err := os.WriteFile(blob, []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Cached(snap.Rev); !errors.Is(err, ErrNotCached) || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("corrupt blob: %v", err)
	}
	os.Remove(blob)
	if _, err := c.Cached(snap.Rev); !errors.Is(err, ErrNotCached) {
		t.Errorf("missing blob: %v", err)
	}
	if _, err := c.Open(snap.Items[0].Blob); !errors.Is(err, ErrNotCached) {
		t.Errorf("Open missing blob: %v", err)
	}
	if _, err := c.Cached("sha256:" + strings.Repeat("0", 64)); !errors.Is(err, ErrNotCached) {
		t.Errorf("unknown rev: %v", err)
	}
	for _, bad := range []string{"", "sha256:../x", "md5:00", "sha256:" + strings.Repeat("A", 64)} {
		if _, err := c.Cached(bad); err == nil {
			t.Errorf("Cached(%q): no error", bad)
		}
	}
	for _, bad := range []string{"", "../../etc/passwd", strings.Repeat("g", 64)} {
		if _, err := c.Open(bad); err == nil {
			t.Errorf("Open(%q): no error", bad)
		}
	}
	// A snapshot file whose content is not its rev's.
	snap2 := fetchOK(t, c, Request{URL: s.URL + "/b.md", AllowPrivate: true})
	h1, _ := revHex(snap.Rev)
	h2, _ := revHex(snap2.Rev)
	data, _ := os.ReadFile(c.dir("snapshots", h2+".json"))
	os.WriteFile(c.dir("snapshots", h1+".json"), data, 0o644)
	if _, err := c.Cached(snap.Rev); !errors.Is(err, ErrNotCached) {
		t.Errorf("swapped snapshot: %v", err)
	}
}

// TestConcurrentFill: clients on one cache (as processes would be) fetch
// the same and different sources at once; the cache ends complete and
// without temporary files.
func TestConcurrentFill(t *testing.T) {
	t.Parallel()
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat("line of "+r.URL.Path+"\n", 5000))
	})
	dir := t.TempDir()
	var wg sync.WaitGroup
	revs := make([]string, 8)
	for i := range revs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := New(Options{CacheDir: dir})
			defer c.Close()
			snap, err := c.Fetch(context.Background(), Request{URL: fmt.Sprintf("%s/d%d.md", s.URL, i%2), AllowPrivate: true})
			if err != nil {
				t.Error(err)
				return
			}
			revs[i] = snap.Rev
		}()
	}
	wg.Wait()
	c := New(Options{CacheDir: dir})
	for _, rev := range revs {
		if _, err := c.Cached(rev); err != nil {
			t.Error(err)
		}
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".") {
			t.Errorf("left behind: %s", p)
		}
		return err
	})
}

func TestLLMS(t *testing.T) {
	t.Parallel()
	var index atomic.Value
	released := make(chan struct{})
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/llms.txt":
			w.Header().Set("ETag", `"idx"`)
			if r.Header.Get("If-None-Match") == `"idx"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			io.WriteString(w, index.Load().(string))
		case "/docs/a.md", "/docs/b.md", "/c.txt":
			w.Header().Set("ETag", `"`+r.URL.Path+`"`)
			if r.Header.Get("If-None-Match") == `"`+r.URL.Path+`"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			io.WriteString(w, "page "+r.URL.Path+"\n")
		case "/broken.md":
			http.Error(w, "boom", http.StatusInternalServerError)
		case "/loop.md":
			http.Redirect(w, r, "/loop.md", http.StatusFound)
		case "/huge.md":
			io.WriteString(w, strings.Repeat("x", 5000))
		case "/stalled.md":
			select {
			case <-r.Context().Done():
			case <-released:
			}
		default:
			http.NotFound(w, r)
		}
	})
	t.Cleanup(func() { close(released) }) // before s.Close, which waits for the handlers
	index.Store(`# Project
> Summary

## Docs
- [A](docs/a.md): the first
- [B](` + s.URL + `/docs/b.md "B title")
- [A again](/docs/a.md#part)
- [C](/c.txt)
- [Gone](/docs/gone.md): 404, left out
- [Elsewhere](https://example.com/x.md)
- [HTML](/docs/page.html)
- [Mail](mailto:a@b.md)
`)
	var warnings []string
	var mu sync.Mutex
	c := newClient(t, Options{Warn: func(m string) { mu.Lock(); warnings = append(warnings, m); mu.Unlock() }})
	r := Request{URL: s.URL + "/llms.txt", AllowPrivate: true}
	snap := fetchOK(t, c, r)
	var urls []string
	for _, it := range snap.Items {
		urls = append(urls, strings.TrimPrefix(it.URL, s.URL))
	}
	if got, want := strings.Join(urls, " "), "/llms.txt /docs/a.md /docs/b.md /c.txt"; snap.Form != FormLLMS || got != want {
		t.Errorf("items %s, want %s", got, want)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "gone.md") || !strings.Contains(warnings[0], "404") {
		t.Errorf("warnings %q", warnings)
	}
	if got := blobText(t, c, snap.Items[2].Blob); got != "page /docs/b.md\n" {
		t.Errorf("page b: %q", got)
	}
	// Nothing changed: every request is conditional and answered 304 (the
	// 404 is remembered).
	r.Prev = snap
	again := fetchOK(t, c, r)
	if !again.NotModified || again.Rev != snap.Rev || again.BodyBytes != 0 || again.Requests != 4 {
		t.Errorf("revalidation: NotModified %t, %d requests, %d bytes", again.NotModified, again.Requests, again.BodyBytes)
	}
	// A capped index warns.
	warnings = nil
	capped := fetchOK(t, c, Request{URL: s.URL + "/llms.txt", AllowPrivate: true, Limits: Limits{MaxPages: 2}})
	if len(capped.Items) != 3 || len(warnings) != 1 || !strings.Contains(warnings[0], "more than 2 pages") || !strings.Contains(warnings[0], `"maxPages"`) {
		t.Errorf("capped: %d items, warnings %q", len(capped.Items), warnings)
	}
	// One bad page never sinks an index: a page that fails for any reason
	// (5xx after its attempts, a redirect loop, over a limit, a stall) is
	// left out with a warning naming it, as a 404 is.
	index.Store("- [Broken](/broken.md)\n- [Loop](/loop.md)\n- [Huge](/huge.md)\n- [Stalled](/stalled.md)\n- [A](/docs/a.md)\n")
	warnings = nil
	lim := Limits{MaxBytes: 1000, Timeout: 300 * time.Millisecond}
	c2 := newClient(t, Options{Warn: func(m string) { mu.Lock(); warnings = append(warnings, m); mu.Unlock() }})
	some := fetchOK(t, c2, Request{URL: s.URL + "/llms.txt", AllowPrivate: true, Limits: lim})
	if len(some.Items) != 2 || !strings.HasSuffix(some.Items[1].URL, "/docs/a.md") {
		t.Errorf("bad pages: items %v, want the index and a.md", some.Items)
	}
	for _, want := range []string{"broken.md: HTTP 500", "loop.md: more than 5 redirects", "huge.md: ", "stalled.md: the server sent nothing"} {
		n := 0
		for _, w := range warnings {
			if strings.Contains(w, "left out") && strings.Contains(w, want) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d warnings say %q left out, want 1: %q", n, want, warnings)
		}
	}
	// The source fails when every page fails, naming one.
	index.Store("- [Broken](/broken.md)\n- [Loop](/loop.md)\n")
	err := fetchErr(t, c2, Request{URL: s.URL + "/llms.txt", AllowPrivate: true, Limits: lim}, KindNetwork, "broken.md", "500", "every page")
	if strings.Count(err.Error(), "\n") != 0 {
		t.Errorf("error on more than one line: %q", err)
	}
}

// A crash while a body downloads leaves a .incoming-* file in the blob
// folder. The next fill removes those older than staleIncoming and keeps
// younger ones, which may be another process's download in flight.
func TestStaleIncomingRemoved(t *testing.T) {
	t.Parallel()
	s := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "# Hello\n") })
	cacheDir := t.TempDir()
	blobs := filepath.Join(cacheDir, "https", "blobs")
	if err := os.MkdirAll(blobs, 0o755); err != nil {
		t.Fatal(err)
	}
	old, young := filepath.Join(blobs, ".incoming-old"), filepath.Join(blobs, ".incoming-young")
	for _, p := range []string{old, young} {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-staleIncoming - time.Minute)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, Options{CacheDir: cacheDir})
	fetchOK(t, c, Request{URL: s.URL + "/guide.md", AllowPrivate: true})
	if _, err := os.Stat(old); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stale %s: %v, want it removed", old, err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Errorf("young %s: %v, want it kept", young, err)
	}
}

// Request.Progress hears of a request before its first byte, of the bytes
// as they come, and of each body received whole: at the end, every body and
// byte of the snapshot.
func TestProgress(t *testing.T) {
	t.Parallel()
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/llms.txt":
			io.WriteString(w, "- [A](a.md)\n- [B](b.md)\n- [Gone](gone.md)\n")
		case "/a.md", "/b.md":
			io.WriteString(w, strings.Repeat("word ", 2000))
		default:
			http.NotFound(w, r)
		}
	})
	c := newClient(t, Options{})
	var got []Progress
	snap := fetchOK(t, c, Request{URL: s.URL + "/llms.txt", AllowPrivate: true,
		Progress: func(p Progress) { got = append(got, p) }})
	if len(got) == 0 || got[0] != (Progress{}) {
		t.Fatalf("progress %v: want a first call before any byte", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Bytes < got[i-1].Bytes || got[i].Bodies < got[i-1].Bodies {
			t.Fatalf("progress went back: %v then %v", got[i-1], got[i])
		}
	}
	last := got[len(got)-1]
	if last.Bodies != len(snap.Items) || last.Bytes != snap.BodyBytes || len(snap.Items) != 3 {
		t.Errorf("last progress %+v, snapshot of %d items and %d bytes", last, len(snap.Items), snap.BodyBytes)
	}
}

// TestRetryWaitsItsBackoff: a retry comes no sooner than its delay after
// the answer before it, the delay doubling each time: the Client's, or a
// RetryDelay in the request's context. (Lower bounds only: a timer never
// fires early, however loaded the machine.)
func TestRetryWaitsItsBackoff(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var at []time.Time
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
		http.Error(w, "down", http.StatusInternalServerError)
	})
	check := func(what string, ctx context.Context, c *Client, first time.Duration) {
		t.Helper()
		mu.Lock()
		at = nil
		mu.Unlock()
		if _, err := c.Fetch(ctx, Request{URL: s.URL + "/down.md", AllowPrivate: true}); err == nil {
			t.Fatalf("%s: a server answering 500 fetched", what)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(at) != DefaultAttempts {
			t.Fatalf("%s: %d requests, want %d", what, len(at), DefaultAttempts)
		}
		for i := 1; i < len(at); i++ {
			if gap, want := at[i].Sub(at[i-1]), first<<(i-1); gap < want {
				t.Errorf("%s: retry %d came %v after the answer before it, want at least %v", what, i, gap, want)
			}
		}
	}
	c := New(Options{CacheDir: t.TempDir(), backoff: 40 * time.Millisecond})
	t.Cleanup(c.Close)
	check("the Client's delay", context.Background(), c, 40*time.Millisecond)
	check("RetryDelay in the context", context.WithValue(context.Background(), RetryDelay{}, 60*time.Millisecond), newClient(t, Options{}), 60*time.Millisecond)
}

// review17a: http://:PORT/ has a Host (":PORT") but no host name, and Go
// dials this machine: refused as a URL with no host, nothing sent.
func TestNoHostNameRefused(t *testing.T) {
	t.Parallel()
	s := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "# Local\n") })
	_, port, _ := strings.Cut(strings.TrimPrefix(s.URL, "http://"), ":")
	c := newClient(t, Options{CacheDir: t.TempDir()})
	fetchErr(t, c, Request{URL: "http://:" + port + "/x.md", Token: "t0k", AllowPrivate: true}, KindOther, "no host")
	if n := s.n.Load(); n != 0 {
		t.Errorf("the local server saw %d requests, want 0", n)
	}
}
