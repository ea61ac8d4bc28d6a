package workspace

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/project"
)

// TestRed20AddRedirectToAnotherPrivateOrigin (round 18's leftover,
// red20): ctx add of a URL the user typed records an allowance for the
// origin typed (when it is on the private network), but the fetch may be
// redirected to another origin. The next install on the same machine
// checks that redirect against the allowances, so add must not succeed
// where install then fails: either add refuses the redirect as install
// does, or install takes what add took.
func TestRed20AddRedirectToAnotherPrivateOrigin(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	target, _ := f.serveUpstream()
	hop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.TrimSuffix(target, "/up.git")+r.URL.Path[len("/moved"):]+"?"+r.URL.RawQuery, http.StatusMovedPermanently)
	}))
	defer hop.Close()
	typed := hop.URL + "/moved/up.git"
	w := f.open(f.project)
	rep, addErr := w.Add(bg, []project.PackageSpec{{Alias: "api", Source: typed, Path: "guides"}}, AddOptions{})
	w.Close()
	if addErr == nil && rep != nil && len(rep.Packages) == 1 {
		addErr = rep.Packages[0].Err
	}
	if addErr != nil {
		if !strings.Contains(addErr.Error(), "redirected to") || !strings.Contains(addErr.Error(), strings.TrimSuffix(target, "/up.git")) {
			t.Errorf("add's refusal %q does not name the redirect and where it went", addErr)
		}
		if gitengine.KindOf(addErr) != gitengine.KindPrivate {
			t.Fatalf("add refused, but not as a private-network redirect: %v", addErr)
		}
		t.Logf("add refused: %v", addErr)
		// A committed spec at the typed origin, allowed: install's refusal
		// of the redirect names it, and not the allowance the user has.
		writeCommitted(t, f.project, project.PackageSpec{Alias: "api", Source: typed, Path: "guides"})
		w = f.open(f.project)
		allowPrivateNetwork(t, w, "api")
		w.Close()
		w = f.open(f.project)
		r, _ := w.Install(bg, InstallOptions{})
		if len(r.Packages) != 1 || r.Packages[0].Err == nil {
			t.Fatalf("install of the allowed origin that redirects: %+v", r.Packages)
		}
		if msg := r.Packages[0].Err.Error(); !strings.Contains(msg, "redirected to") || strings.Contains(msg, "--allow-outside") {
			t.Errorf("install's refusal of the redirect: %s\nwant it to name the redirect, and not the allowance the user has", msg)
		}
		return // add refused what install would refuse
	}
	// Added: the same user's next install (the package folder gone, as
	// on a fresh clone of their own project) must take it too.
	if err := os.RemoveAll(w.pkgDir("api")); err != nil {
		t.Fatal(err)
	}
	o := f.opts()
	o.EngineOptions.CacheDir = filepath.Join(f.tmp, "cache2") // a fresh clone's machine: the cache does not answer
	w, err := Open(f.project, o)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, err := w.Install(bg, InstallOptions{})
	if err == nil {
		for _, p := range r.Packages {
			err = p.Err
		}
	}
	if err != nil {
		t.Fatalf("ctx add %s succeeded, then install on the same machine failed: %v", typed, err)
	}
}
