package registry

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// audit17 finding 10: two contexts of the same repository and path at
// different refs are two contexts (a hub offering release 1 and the
// current docs); the loader's duplicate merge must not drop the second.
func TestAudit17SameFolderTwoRefsKeepsBoth(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "r.json"), `{"name":"versions","contexts":[
 {"name":"handbook-v1","description":"release 1","repo":"https://h/hb.git","path":"handbook","ref":"v1"},
 {"name":"handbook","description":"current","repo":"https://h/hb.git","path":"handbook","ref":"main"}
]}`)
	var rec recorder
	res, err := rec.loader().Load(context.Background(), filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Names(), ","); got != "handbook-v1,handbook" {
		t.Errorf("contexts %q, want handbook-v1,handbook (different refs are different contexts); warnings %v", got, rec.warnings)
	}
}
