package registry

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/demo"
)

// TestDemoRegistryLoads: the registry `ctx demo` writes (demo.Write) is
// valid, and every context names a repository and a folder of the demo's
// hub that exist. (demo's own test checks its repositories; this check is
// here so that demo's test binary does not link the registry and the git
// engine behind it.)
func TestDemoRegistryLoads(t *testing.T) {
	t.Parallel()
	a, err := demo.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	res, err := (&Loader{}).Load(context.Background(), a.Registry)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contexts) != 4 || len(res.Warnings) != 0 {
		t.Fatalf("contexts %v warnings %v", res.Names(), res.Warnings)
	}
	for _, c := range res.Contexts {
		if _, err := os.Stat(filepath.Join(c.Repo, filepath.FromSlash(c.Path))); err != nil {
			t.Errorf("context %s: %v", c.Name, err)
		}
		if !strings.HasPrefix(c.Repo, a.Dir) {
			t.Errorf("context %s: repo %s is not in the hub", c.Name, c.Repo)
		}
	}
}
