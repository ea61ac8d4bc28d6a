package registry

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRed17ImportFanOut (red17 finding 7): the import depth is bounded (5)
// but not how many registries are read, nor how many contexts are kept: a
// server that makes each registry import 5 new ones makes Load read 3,906
// registries (5^0+…+5^5) and warn 15,625 times; with 20 imports of 2,000
// contexts each, `ctx setup` read 366 registries and held 712 MB in 90 s
// and was still going (3.2 million to read). A bound on the registries
// read (and the contexts kept), with an error naming it, is wanted; 1,000
// here stands for whatever bound the fix picks.
func TestRed17ImportFanOut(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		base := strings.TrimSuffix(r.URL.Path, ".json")
		var imports []string
		for i := range 5 {
			imports = append(imports, fmt.Sprintf("%s/%d.json", base, i))
		}
		key := strings.ReplaceAll(strings.Trim(base, "/"), "/", "-")
		fmt.Fprint(w, reg("r"+key, imports, "c"+key+"=https://git.example/"+key+".git"))
	}))
	defer srv.Close()
	var rec recorder
	res, err := rec.loader().Load(context.Background(), srv.URL+"/r.json")
	if err != nil {
		return // refused: fine
	}
	if n := hits.Load(); n > 1000 {
		t.Errorf("Load read %d registries (%d contexts, %d warnings) from one root: no bound on imports", n, len(res.Contexts), len(rec.warnings))
	}
}
