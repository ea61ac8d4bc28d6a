package gitengine

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// authLog is a server in front of another that records each request's
// Authorization header, then passes the request on.
type authLog struct {
	mu   sync.Mutex
	seen []string
	*httptest.Server
}

func newAuthLog(t *testing.T, to string) *authLog {
	t.Helper()
	u, err := url.Parse(to)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	l := &authLog{}
	l.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.seen = append(l.seen, r.Header.Get("Authorization"))
		l.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(l.Close)
	return l
}

// sent returns the Authorization headers received, and how many requests.
func (l *authLog) sent() (auths []string, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, a := range l.seen {
		if a != "" {
			auths = append(auths, a)
		}
	}
	return auths, len(l.seen)
}

// TestTokenBoundToHosts (red17 finding 4): Options.Token goes only to the
// hosts of Options.TokenHosts, on the advertisement's path and the
// assumed one (a known commit), and never when it is bound to no host
// (which warns once).
func TestTokenBoundToHosts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{})
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		hosts []string
		want  bool
		warns int
	}{
		{"bound elsewhere", []string{"github.com", "127.0.0.2"}, false, 0},
		{"bound to no host", nil, false, 1},
		{"bound to the host", []string{"git.corp.example", "127.0.0.1"}, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := newAuthLog(t, s.URL)
			o, _ := isolate(t)
			var mu sync.Mutex
			var warns []string
			o.Token, o.TokenHosts = "tok-SECRET", tc.hosts
			o.Warn = func(_, m string) { mu.Lock(); warns = append(warns, m); mu.Unlock() }
			e := New(o)
			if err := e.CheckAccess(ctx, l.URL+"/repo.git"); err != nil {
				t.Fatal(err)
			}
			// A known commit: the advertisement is skipped (assume).
			if _, err := e.Materialize(ctx, FetchRequest{URL: l.URL + "/repo.git", Commit: f.c2, Path: "docs"}, filepath.Join(t.TempDir(), "p")); err != nil {
				t.Fatal(err)
			}
			auths, n := l.sent()
			if tc.want && len(auths) != n {
				t.Errorf("%d of %d requests carried the token, want all", len(auths), n)
			}
			if !tc.want && len(auths) > 0 {
				t.Errorf("the token went to a host it is not bound to: %q", auths)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(warns) != tc.warns || (tc.warns > 0 && !strings.Contains(warns[0], "CTX_GIT_TOKEN_HOSTS")) {
				t.Errorf("warnings %q, want %d naming CTX_GIT_TOKEN_HOSTS", warns, tc.warns)
			}
		})
	}
}

// A host the token is bound to that redirects to another origin: the
// token does not follow, neither on the redirected GET nor on the POSTs
// that go to the new origin.
func TestTokenNotAfterRedirect(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{})
	other := newAuthLog(t, s.URL)
	// The same server under another name: localhost, not 127.0.0.1.
	target := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	redir := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target+r.URL.RequestURI(), http.StatusFound)
	}))
	defer redir.Close()
	o, _ := isolate(t)
	o.Token, o.TokenHosts = "tok-SECRET", []string{"127.0.0.1:" + redir.URL[strings.LastIndex(redir.URL, ":")+1:]}
	e := New(o)
	ctx := context.Background()
	if err := e.CheckAccess(ctx, redir.URL+"/repo.git"); err != nil {
		t.Errorf("CheckAccess through a redirect: %v", err)
	}
	if _, err := e.Materialize(ctx, FetchRequest{URL: redir.URL + "/repo.git", Commit: f.c2, Path: "docs"}, filepath.Join(t.TempDir(), "p")); err != nil {
		t.Logf("Materialize through a redirect: %v", err)
	}
	auths, n := other.sent()
	if n == 0 {
		t.Fatal("the redirect was not followed: the test proves nothing")
	}
	if len(auths) > 0 {
		t.Errorf("the token followed a redirect to another origin: %q", auths)
	}
}

// A 401 from a host the token is not bound to: the token is not sent,
// and the hint says how to bind it.
func TestTokenUnboundHostHint(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{BasicAuth: "x-access-token:tok-SECRET"})
	o, _ := isolate(t)
	o.Token, o.TokenHosts = "tok-SECRET", []string{"github.com"}
	err := New(o).CheckAccess(context.Background(), s.URL+"/repo.git")
	if KindOf(err) != KindAuthRequired || !strings.Contains(err.Error(), "CTX_GIT_TOKEN_HOSTS") {
		t.Errorf("err %v (kind %v): want auth required, naming CTX_GIT_TOKEN_HOSTS", err, KindOf(err))
	}
}

func TestCheckTokenHost(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"github.com", "git.corp.example:8443", "127.0.0.1", "[::1]:3000", "::1"} {
		if err := CheckTokenHost(h); err != nil {
			t.Errorf("%q: %v", h, err)
		}
	}
	for _, h := range []string{"", "https://github.com", "github.com/org", "user@github.com", "*.corp.example", "host:0", "host:x"} {
		if err := CheckTokenHost(h); err == nil {
			t.Errorf("%q: accepted", h)
		}
	}
}

// TestReview17bTokenForHostPortCase pins what CTX_GIT_TOKEN_HOSTS binds:
// a "host:port" entry that port only (the default port of the scheme when
// the URL has none), a "host" entry any port, without case, IPv6 with or
// without brackets, https only (plain http only to loopback). The token
// tests of tokenhost_test.go pass when the port or the case is ignored.
func TestReview17bTokenForHostPortCase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		hosts []string
		url   string
		want  bool
	}{
		{[]string{"git.corp.example:8443"}, "https://git.corp.example/org/x.git", false},
		{[]string{"git.corp.example:8443"}, "https://git.corp.example:9443/org/x.git", false},
		{[]string{"git.corp.example:8443"}, "https://git.corp.example:8443/org/x.git", true},
		{[]string{"git.corp.example:443"}, "https://git.corp.example/org/x.git", true},
		{[]string{"localhost:80"}, "http://localhost/x.git", true},
		{[]string{"localhost:443"}, "http://localhost/x.git", false},
		{[]string{"Git.Corp.Example"}, "https://GIT.corp.example:8443/x.git", true},
		{[]string{"GIT.CORP.EXAMPLE:8443"}, "https://git.corp.example:8443/x.git", true},
		{[]string{"[::1]:3000"}, "https://[::1]:3000/x.git", true},
		{[]string{"[::1]:3000"}, "https://[::1]:3001/x.git", false},
		{[]string{"::1"}, "https://[::1]:3001/x.git", true},
		{[]string{"github.com"}, "http://github.com/org/x.git", false},
		{[]string{"github.com"}, "https://github.com.evil.example/org/x.git", false},
		{[]string{"github.com"}, "https://evil.example/github.com/x.git", false},
		{[]string{"github.com"}, "https://evil.example:443/x.git?github.com", false},
		{[]string{"github.com"}, "https://github.com./org/x.git", false},
		{[]string{"corp.example"}, "https://evil.corp.example/x.git", false},
	} {
		r, err := parseRemote(tc.url)
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		o, _ := isolate(t)
		o.Token, o.TokenHosts = "tok-SECRET", tc.hosts
		if got := New(o).tokenFor(r); got != tc.want {
			t.Errorf("CTX_GIT_TOKEN_HOSTS=%s, %s: token sent %v, want %v", strings.Join(tc.hosts, ","), tc.url, got, tc.want)
		}
	}
}

// TestReview17bBoundHostOverHTTPHint: a host that IS in
// CTX_GIT_TOKEN_HOSTS but is reached over plain http (not loopback) gets
// no token (right), and its 401 must not tell the user to add the host
// to CTX_GIT_TOKEN_HOSTS, where it already is: the reason is the scheme.
// 127.0.0.2 is not loopback to isLoopback, yet reachable on Linux.
func TestReview17bBoundHostOverHTTPHint(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{BasicAuth: "x-access-token:tok-SECRET"})
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2 here: %v", err)
	}
	p := httptest.NewUnstartedServer(httputil.NewSingleHostReverseProxy(u))
	p.Listener = ln
	p.Start()
	defer p.Close()
	o, _ := isolate(t)
	o.Token, o.TokenHosts = "tok-SECRET", []string{"127.0.0.2"}
	o.CredentialEnv = nil
	err = New(o).CheckAccess(context.Background(), p.URL+"/repo.git")
	if err == nil {
		t.Fatal("the token went over plain http to a non-loopback host")
	}
	msg := err.Error()
	if strings.Contains(msg, "not in CTX_GIT_TOKEN_HOSTS") || strings.Contains(msg, "add the host there") {
		t.Errorf("the hint says the host is not in CTX_GIT_TOKEN_HOSTS, where it is (the reason is plain http): %v", msg)
	}
	_ = http.StatusOK
}
