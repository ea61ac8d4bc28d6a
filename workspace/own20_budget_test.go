package workspace

import (
	"errors"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/internal/netrate"
	"github.com/ctx-dev/ctx/project"
)

// own20 (left19's open item): the total fetch bound was per operation, so
// a command of k network operations could take k bounds. Under a
// command's budget (netrate.WithBudget, which cmd/ctx puts on every
// command's context) the operations share it: adding two sources whose
// kind is asked of a trickling server (two probes, one after the other)
// spends the bound on the first, and the second ends at once, without a
// request (before: a second request, and a second bound).
func TestCommandBudgetSharedByOperations(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv, requests := gittest.CountingTrickler(t, "application/x-git-upload-pack-advertisement", "fff0")
	w, err := Open(f.project, f.opts())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	ctx := netrate.WithBudget(bg, 300*time.Millisecond)
	r, err := w.Add(ctx, []project.PackageSpec{{Alias: "a", Source: srv.URL + "/a"}, {Alias: "b", Source: srv.URL + "/b"}}, AddOptions{KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Packages) != 2 {
		t.Fatalf("%d results, want 2", len(r.Packages))
	}
	for _, p := range r.Packages {
		var te *netrate.TotalError
		if !errors.As(p.Err, &te) || !te.Command || te.Bound != 300*time.Millisecond {
			t.Errorf("%s: %v; want the command's bound of 300ms", p.Alias, p.Err)
		}
	}
	if n := requests(); n != 1 {
		t.Errorf("the server had %d requests; want 1 (the second probe began with the budget spent)", n)
	}
}
