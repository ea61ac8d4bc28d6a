package workspace

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/netrate"
	"github.com/ctx-dev/ctx/project"
)

// trickler answers every request with a body it sends a byte at a time,
// fast enough for the rate floor (1,000 bytes in each 30 s) and the idle
// timeout, for as long as the client reads or until the test ends (then
// it stops short, so that a build without the total bound ends too, with
// another error).
func trickler(t *testing.T, contentType, first string) *httptest.Server {
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Length", "10000000")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(first))
		fl := w.(http.Flusher)
		fl.Flush()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		stop := time.After(20 * time.Second)
		for {
			select {
			case <-r.Context().Done():
				return
			case <-done:
				return
			case <-stop:
				return
			case <-tick.C:
				if _, err := w.Write([]byte("a")); err != nil {
					return
				}
				fl.Flush()
			}
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv
}

// left19 item 1 (red18 finding 4): a server that sends just above the
// rate floor held a package's fetch for as long as the body's size
// allowed (days). Each network step of a package now has a total bound
// (Options.FetchTimeout), for the https kind and for git over http; the
// error names it and how to raise it.
func TestFetchHasATotalBound(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		spec func(url string) project.PackageSpec
		ct   string
		// first is what the server sends before it trickles: for git, a
		// pkt-line header that promises a long line.
		first string
	}{
		{"https", func(u string) project.PackageSpec {
			return project.PackageSpec{Alias: "t", Kind: project.KindHTTPS, Source: u + "/t.md", AllowPrivateNetwork: true}
		}, "text/markdown", "# T\n\n"},
		{"git over http", func(u string) project.PackageSpec {
			return project.PackageSpec{Alias: "t", Kind: project.KindGit, Source: u + "/repo.git"}
		}, "application/x-git-upload-pack-advertisement", "fff0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			srv := trickler(t, c.ct, c.first)
			o := f.opts()
			o.FetchTimeout = 300 * time.Millisecond
			w, err := Open(f.project, o)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { w.Close() })
			r, err := w.Add(bg, []project.PackageSpec{c.spec(srv.URL)}, AddOptions{})
			if err == nil && r != nil && len(r.Packages) == 1 {
				err = r.Packages[0].Err
			}
			var te *netrate.TotalError
			if !errors.As(err, &te) || te.Bound != o.FetchTimeout {
				t.Fatalf("Add = %v; want the total bound of %s", err, o.FetchTimeout)
			}
			for _, want := range []string{"longer than 300ms", "CTX_FETCH_TIMEOUT=600ms", "at most 24h"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error %q does not say %q", err, want)
				}
			}
		})
	}
}
