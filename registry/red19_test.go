package registry

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/jsonfile"
)

// TestRed19CheckCountsWhatTheListLeavesOut: a file's problems are listed
// up to jsonfile.MaxErrors (red19 finding 2); `ctx registry check` must
// still say how many it left out, not report the first 100 as all.
func TestRed19CheckCountsWhatTheListLeavesOut(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.json")
	if err := os.WriteFile(p, []byte(`{"name":"r","contexts":[`+strings.TrimSuffix(strings.Repeat("{},", 200), ",")+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := (&Loader{}).Check(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != jsonfile.MaxErrors+1 || !strings.Contains(rep.Problems[len(rep.Problems)-1].Msg, "and 500 more problems") {
		t.Errorf("%d problems, the last %q; want %d and a count of the 500 left out", len(rep.Problems), rep.Problems[len(rep.Problems)-1].Msg, jsonfile.MaxErrors+1)
	}
}
