package gitengine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/internal/netrate"
)

// fixB19 (review19b's list): the total bound covered a package's resolve
// and fetch only (workspace's fetchBound); push, update's checks,
// Changes' old side, the wizard's access checks and a git registry's
// Resolve could be held for days by a server trickling just above the
// rate floor (here until the trickler gives up, 20 s, with another
// error). The bound is now on every network operation of the engine
// (watch, which each goes through): Options.Total.
func TestEveryNetworkOperationHasATotalBound(t *testing.T) {
	t.Parallel()
	srv := gittest.Trickler(t, "application/x-git-upload-pack-advertisement", "fff0")
	url := srv.URL + "/repo.git"
	for name, op := range map[string]func(*Engine) error{
		"ListRefs": func(e *Engine) error { _, err := e.ListRefs(context.Background(), url); return err },
		"Resolve":  func(e *Engine) error { _, err := e.Resolve(context.Background(), url, "main"); return err },
	} {
		err := op(New(Options{CacheDir: t.TempDir(), Total: 300 * time.Millisecond}))
		var te *netrate.TotalError
		if !errors.As(err, &te) || te.Bound != 300*time.Millisecond {
			t.Errorf("%s = %v; want the total bound of 300ms", name, err)
			continue
		}
		for _, want := range []string{"longer than 300ms", "CTX_FETCH_TIMEOUT=600ms"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: the error %q does not say %q", name, err, want)
			}
		}
	}
}
