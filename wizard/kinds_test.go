package wizard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/registry"
)

// TestHTTPSContexts: an https context of a registry is checked by the
// https checker (not git's), installs as a kind https spec with its URL
// as the source, and one that cannot be read is skipped as an unreadable
// git repository is; a git context's spec still names no kind.
func TestHTTPSContexts(t *testing.T) {
	t.Parallel()
	reg := &registry.Result{Name: "hub", Contexts: []registry.Entry{
		{Context: registry.Context{Name: "git", Description: "d", Repo: "https://git.example/g.git", Path: "docs", Ref: "v1"}},
		{Context: registry.Context{Name: "web", Description: "d", URL: "https://docs.example/llms.txt", TTL: "1d"}},
		{Context: registry.Context{Name: "bundle", Description: "d", Repo: "https://docs.example/b.tar.gz", Kind: "https", Path: "site"}},
		{Context: registry.Context{Name: "gone", Description: "d", URL: "https://docs.example/gone.md"}},
	}}
	ws := &fakeWorkspace{}
	git := &fakeAccess{}
	web := &fakeAccess{deny: map[string]bool{"https://docs.example/gone.md": true}}
	sum, err := Run(context.Background(), ws, git, Options{Registry: reg, All: true, HTTPSAccess: web})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(git.checked, []string{"https://git.example/g.git"}) {
		t.Errorf("git checker saw %v", git.checked)
	}
	if len(web.checked) != 3 {
		t.Errorf("https checker saw %v, want the three https contexts", web.checked)
	}
	want := []project.PackageSpec{
		{Alias: "git", Source: "https://git.example/g.git", Path: "docs", Ref: "v1"},
		{Alias: "web", Kind: "https", Source: "https://docs.example/llms.txt", TTL: "1d"},
		{Alias: "bundle", Kind: "https", Source: "https://docs.example/b.tar.gz", Path: "site"},
	}
	if !reflect.DeepEqual(ws.added, want) {
		t.Errorf("added %+v\nwant %+v", ws.added, want)
	}
	for _, s := range ws.added {
		if errs := project.CheckSpec(s); len(errs) > 0 {
			t.Errorf("spec %+v is not a valid manifest entry: %v", s, errs)
		}
	}
	if len(sum.Unavailable) != 1 || sum.Unavailable[0].Name != "gone" || sum.Unavailable[0].Repo != "https://docs.example/gone.md" {
		t.Errorf("unavailable %+v, want gone", sum.Unavailable)
	}
}

// TestInstalledHTTPSContextRecognised: a manifest entry with the context's
// URL is the installed context, so setup does not add it twice.
func TestInstalledHTTPSContextRecognised(t *testing.T) {
	t.Parallel()
	reg := &registry.Result{Name: "hub", Contexts: []registry.Entry{
		{Context: registry.Context{Name: "web", Description: "d", URL: "https://docs.example/llms.txt"}},
	}}
	ws := &fakeWorkspace{man: project.Manifest{Packages: []project.PackageSpec{{Alias: "w", Kind: "https", Source: "https://docs.example/llms.txt"}}}}
	if _, err := Run(context.Background(), ws, &fakeAccess{}, Options{Registry: reg, All: true, HTTPSAccess: &fakeAccess{}}); err != nil {
		t.Fatal(err)
	}
	if len(ws.added) != 0 {
		t.Errorf("added %+v again", ws.added)
	}
}

// TestHTTPAccess: the default https check is one GET; an error status,
// a redirect loop and a redirect to another scheme are reasons.
func TestHTTPAccess(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok.md":
			w.Write([]byte("# ok"))
		case "/private.md":
			w.WriteHeader(http.StatusUnauthorized)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/to-ftp":
			http.Redirect(w, r, "ftp://example.invalid/x", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	if err := (HTTPAccess{AllowPrivate: true}).CheckAccess(ctx, srv.URL+"/ok.md"); err != nil {
		t.Errorf("ok.md: %v", err)
	}
	// Without AllowPrivate, the loopback server is refused (the guard).
	if err := (HTTPAccess{}).CheckAccess(ctx, srv.URL+"/ok.md"); err == nil || !strings.Contains(err.Error(), "--allow-private-network") {
		t.Errorf("loopback without AllowPrivate: %v, want the private-network refusal", err)
	}
	for path, want := range map[string]string{
		"/private.md": "401 Unauthorized (the server wants credentials",
		"/missing.md": "404 Not Found (check the URL",
		"/loop":       "more than 5 redirects",
		"/to-ftp":     "ftp",
	} {
		err := (HTTPAccess{AllowPrivate: true}).CheckAccess(ctx, srv.URL+path)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
}
