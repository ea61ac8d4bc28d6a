package workspace

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// TestRV20AddSameOriginRedirect (review of red20): add's engine is now
// guarded (a redirect to another private origin is refused); a redirect
// within the origin typed (a forge's /repo to /repo.git) must still be
// followed, on the private network too.
func TestRV20AddSameOriginRedirect(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	target, _ := f.serveUpstream()
	u, err := url.Parse(strings.TrimSuffix(target, "/up.git"))
	if err != nil {
		t.Fatal(err)
	}
	var redirected atomic.Int32
	proxy := httputil.NewSingleHostReverseProxy(u)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rest, ok := strings.CutPrefix(r.URL.Path, "/up/"); ok { // /up → /up.git, as GitHub's
			redirected.Add(1)
			http.Redirect(w, r, "/up.git/"+rest+"?"+r.URL.RawQuery, http.StatusMovedPermanently)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	w := f.open(f.project)
	rep, err := w.Add(bg, []project.PackageSpec{{Alias: "api", Source: front.URL + "/up", Path: "guides"}}, AddOptions{})
	if err == nil && rep != nil && len(rep.Packages) == 1 {
		err = rep.Packages[0].Err
	}
	if err != nil {
		t.Fatalf("add through a redirect within the origin typed: %v", err)
	}
	if redirected.Load() == 0 {
		t.Fatal("no request was redirected: the test proves nothing")
	}
}

// TestRV20AddProbeNotRedirectedToAnotherPrivateOrigin (review of red20):
// red20 guards ctx add's fetch (a redirect to another origin on the
// private network is refused), but with no kind given, add first probes
// the URL typed (InferKind) with the unguarded engine: that request
// followed the redirect to the other private origin. The probe is guarded
// as the fetch is: nothing reaches the origin the user did not type.
func TestRV20AddProbeNotRedirectedToAnotherPrivateOrigin(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	target, _ := f.serveUpstream()
	u, err := url.Parse(strings.TrimSuffix(target, "/up.git"))
	if err != nil {
		t.Fatal(err)
	}
	var reached atomic.Int32
	proxy := httputil.NewSingleHostReverseProxy(u)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		proxy.ServeHTTP(w, r)
	}))
	defer other.Close()
	hop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest := strings.TrimPrefix(r.URL.Path, "/moved/up")
		http.Redirect(w, r, other.URL+"/up.git"+rest+"?"+r.URL.RawQuery, http.StatusMovedPermanently)
	}))
	defer hop.Close()
	w := f.open(f.project)
	rep, err := w.Add(bg, []project.PackageSpec{{Alias: "api", Source: hop.URL + "/moved/up", Path: "guides"}}, AddOptions{})
	if err == nil && rep != nil && len(rep.Packages) == 1 {
		err = rep.Packages[0].Err
	}
	if err == nil {
		t.Fatal("add followed a redirect to another private origin")
	}
	if n := reached.Load(); n > 0 {
		t.Errorf("%d request(s) reached %s, an origin on the private network the user did not type (add: %v)", n, other.URL, err)
	}
}
