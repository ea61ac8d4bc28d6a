package workspace

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/internal/netrate"
	"github.com/ctx-dev/ctx/project"
)

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
			srv := gittest.Trickler(t, c.ct, c.first)
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
