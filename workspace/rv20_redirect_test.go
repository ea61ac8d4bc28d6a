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
