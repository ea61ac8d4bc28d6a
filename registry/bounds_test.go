package registry

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// A registry whose imports fan out is read up to MaxRegistries, and each
// limit is one warning naming where it was passed, not one per import.
func TestLoadBoundsFanOut(t *testing.T) {
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
		t.Fatal(err)
	}
	if n := hits.Load(); n != MaxRegistries || len(res.Loaded) != MaxRegistries {
		t.Errorf("read %d registries (%d loaded), want %d", n, len(res.Loaded), MaxRegistries)
	}
	// one for the depth limit (depth first: the first branch goes deep),
	// one for the registry limit
	if len(rec.warnings) != 2 || !strings.Contains(rec.warnings[1], fmt.Sprintf("limit of %d registries", MaxRegistries)) || !strings.Contains(rec.warnings[1], srv.URL+"/r.json and its imports") {
		t.Errorf("warnings %q, want two, the second naming the registry limit and the root", rec.warnings)
	}
}

// Past the depth limit: one warning with the count, not one per import.
func TestLoadDepthWarningsCounted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := 0; i < 3; i++ {
		var imps []string
		if i < 2 {
			imps = []string{fmt.Sprintf("r%d.json", i+1), fmt.Sprintf("s%d.json", i+1), fmt.Sprintf("t%d.json", i+1)}
		}
		for _, p := range []string{"r", "s", "t"} {
			writeFile(t, filepath.Join(dir, fmt.Sprintf("%s%d.json", p, i)), reg(fmt.Sprintf("%s%d", p, i), imps, fmt.Sprintf("%s%d=https://h/%s%d.git", p, i, p, i)))
		}
	}
	var rec recorder
	l := rec.loader()
	l.MaxDepth = 1
	if _, err := l.Load(context.Background(), filepath.Join(dir, "r0.json")); err != nil {
		t.Fatal(err)
	}
	if len(rec.warnings) != 1 || !strings.Contains(rec.warnings[0], "(and 8 more imports)") || !strings.Contains(rec.warnings[0], "depth limit (1)") {
		t.Errorf("warnings %q, want one counting 9 imports past the depth limit", rec.warnings)
	}
}

// The contexts kept are bounded, all registries together, with one
// warning. (One file of more than MaxContexts is refused by Parse:
// TestRed19ContextsPastTheLimitRefusedBeforeDecoding.)
func TestLoadBoundsContexts(t *testing.T) {
	t.Parallel()
	var cs, more []string
	for i := range MaxContexts - 5 {
		cs = append(cs, fmt.Sprintf("c%d=https://h/c%d.git", i, i))
	}
	for i := range 10 {
		more = append(more, fmt.Sprintf("m%d=https://h/m%d.git", i, i))
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "r.json"), reg("r", []string{"i.json"}, cs...))
	writeFile(t, filepath.Join(dir, "i.json"), reg("i", nil, more...))
	var rec recorder
	res, err := rec.loader().Load(context.Background(), filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contexts) != MaxContexts {
		t.Errorf("kept %d contexts, want %d", len(res.Contexts), MaxContexts)
	}
	if len(rec.warnings) != 1 || !strings.Contains(rec.warnings[0], "5 contexts left out") {
		t.Errorf("warnings %q", rec.warnings)
	}
}

// One file listing the same source, path and ref under two names: Load
// warns (keeping the first), Check reports a problem at the second.
func TestSameFolderTwiceInOneFile(t *testing.T) {
	t.Parallel()
	dir := writeRegs(t, map[string]string{"r.json": `{"name":"r","contexts":[
 {"name":"a","description":"d","repo":"https://h/x.git","path":"docs"},
 {"name":"b","description":"d","repo":"https://H/x","path":"docs/"}
]}`})
	var rec recorder
	res, err := rec.loader().Load(context.Background(), filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Names(), ","); got != "a" || len(rec.warnings) != 1 || !strings.Contains(rec.warnings[0], `"b" has the same source, path and ref as "a"`) {
		t.Errorf("contexts %q, warnings %q", got, rec.warnings)
	}
	rep, err := rec.loader().Check(context.Background(), filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Line != 3 || rep.Problems[0].Field != "contexts[1]" {
		t.Errorf("problems %+v, want one at line 3, contexts[1]", rep.Problems)
	}
}
