package registry

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// audit17 finding 3: a wrong-typed field is one problem among the others
// of the file, not the only one reported; the registry was read (1, not 0).
func TestCheckListsEveryProblemPastATypeError(t *testing.T) {
	t.Parallel()
	dir := writeRegs(t, map[string]string{"r.json": `{"name":"m","contexts":[
{"name":"a","repo":"file:///tmp/x","path":"docs"},
{"name":"b"},
{"name":"c","description":"x","repo":"file:///tmp/x","tags":"t"}
]}`})
	var rec recorder
	rep, err := rec.loader().Check(context.Background(), filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range rep.Problems {
		got = append(got, p.Field)
	}
	all := strings.Join(got, " ")
	for _, want := range []string{"contexts[0].description", "contexts[1].description", "contexts[2].tags"} {
		if !strings.Contains(all, want) {
			t.Errorf("problems at %q: want one at %s", all, want)
		}
	}
	if strings.Count(all, "contexts[2].tags") != 1 {
		t.Errorf("problems at %q: the mistyped tags once", all)
	}
	if len(rep.Loaded) != 1 {
		t.Errorf("loaded %v: the registry was read", rep.Loaded)
	}
}
