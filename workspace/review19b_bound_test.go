package workspace

import (
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/internal/netrate"
	"github.com/ctx-dev/ctx/project"
)

// review19b: left19 bounded resolving and fetching a package, not the
// other network steps: `ctx add URL` of a page with no extension asks the
// server for git's ref advertisement (InferKind, CheckAccess) before any
// package exists, and a server that trickles that answer above the rate
// floor held `ctx add` (here until the trickler gives up, 20 s, with
// another error; a real one need not give up).
func TestAddKindProbeHasATotalBound(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv := gittest.Trickler(t, "application/x-git-upload-pack-advertisement", "fff0")
	o := f.opts()
	o.FetchTimeout = 300 * time.Millisecond
	w, err := Open(f.project, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	r, err := w.Add(bg, []project.PackageSpec{{Alias: "t", Source: srv.URL + "/guide"}}, AddOptions{})
	if err == nil && r != nil && len(r.Packages) == 1 {
		err = r.Packages[0].Err
	}
	if err == nil || !strings.Contains(err.Error(), (&netrate.TotalError{Bound: o.FetchTimeout}).Error()) || !strings.Contains(err.Error(), "CTX_FETCH_TIMEOUT=600ms") {
		t.Fatalf("Add of a URL whose kind is asked of a trickling server = %v; want the total bound", err)
	}
}
