package registry

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfineManifestRegistry (netguard18): a registry the committed
// manifest names (Loader.Confine, the project root) is held to the
// manifest's own rule: on this machine it is read only inside the
// project, so are its imports (a registry inside the project may not
// import the user's files elsewhere), and over http it may not reach the
// private network; the same registries named by the user load.
func TestConfineManifestRegistry(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	proj, home := filepath.Join(tmp, "proj"), filepath.Join(tmp, "home")
	for _, d := range []string{proj, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mine := filepath.Join(home, "mine.json")
	write := func(p, body string) {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(mine, reg("mine", nil, "secret=https://example.com/s.git"))
	inside := filepath.Join(proj, "reg.json")
	write(inside, reg("team", []string{mine}, "ok=https://example.com/o.git"))
	if err := os.Symlink(mine, filepath.Join(proj, "link.json")); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, reg("web", nil, "x=https://example.com/x.git"))
	}))
	t.Cleanup(srv.Close)
	ctx := context.Background()

	for _, loc := range []string{mine, filepath.Join(proj, "link.json")} {
		var rec recorder
		l := rec.loader()
		l.Confine = proj
		if _, err := l.Load(ctx, loc); err == nil || !strings.Contains(err.Error(), "is outside the project") || !strings.Contains(err.Error(), "ctx setup --registry") {
			t.Errorf("confined %s: %v, want refused as outside the project", loc, err)
		}
		if _, err := rec.loader().Load(ctx, loc); err != nil {
			t.Errorf("the user's %s: %v", loc, err)
		}
	}

	var rec recorder
	l := rec.loader()
	l.Confine = proj
	res, err := l.Load(ctx, inside)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Names(), ","); got != "ok" {
		t.Errorf("confined, inside, importing outside: contexts %s, want ok only", got)
	}
	if w := strings.Join(rec.warnings, "\n"); !strings.Contains(w, "is outside the project") {
		t.Errorf("warnings %q, want the import refused", w)
	}

	l = rec.loader()
	l.Confine = proj
	if _, err := l.Load(ctx, srv.URL+"/reg.json"); err == nil || !strings.Contains(err.Error(), "private network refused: 127.0.0.1 is a loopback address") {
		t.Errorf("confined, on loopback: %v, want the private network refused", err)
	}
	if _, err := rec.loader().Load(ctx, srv.URL+"/reg.json"); err != nil {
		t.Errorf("the user's, on loopback: %v", err)
	}
}
