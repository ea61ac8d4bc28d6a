package gitengine

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

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
