package registry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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

// TestRed19ContextsPastTheLimitRefusedBeforeDecoding (red19 finding 4): a
// registry may be 8 MB, room for 2.8 million `{}` contexts; the validator
// built a problem for each (130 s of CPU, 6.4 GB) before the list was cut.
// Parse refuses a file of more than MaxContexts contexts, naming the count
// and the limit, before the walk, the decode and the rules; a second
// "contexts" member (which the decode would keep instead of the first) is
// counted too. The bound is on memory allocated (no timing): on the old
// code 3 × MaxContexts `{}` allocate over 100 MB.
func TestRed19ContextsPastTheLimitRefusedBeforeDecoding(t *testing.T) {
	n := 3 * MaxContexts
	many := strings.TrimSuffix(strings.Repeat("{},", n), ",")
	for _, doc := range []string{
		`{"name":"r","contexts":[` + many + `]}`,
		`{"name":"r","contexts":[` + many + `],"Contexts":[]}`,
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := Parse("r.json", []byte(doc))
		runtime.ReadMemStats(&after)
		var pe *ParseError
		if !errors.As(err, &pe) || len(pe.Errors) != 1 {
			t.Fatalf("Parse: %v, want one problem", err)
		}
		msg := pe.Errors[0].Error()
		if !strings.Contains(msg, "r.json:1:") || !strings.Contains(msg, fmt.Sprint(n)) || !strings.Contains(msg, fmt.Sprint(MaxContexts)) {
			t.Errorf("problem %q, want the place, the count %d and the limit %d", msg, n, MaxContexts)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
			t.Errorf("Parse allocated %d MB for %d empty contexts, want under 16 MB (nothing decoded past the count)", got>>20, n)
		}
	}
	// At the limit, the file is decoded and checked as before.
	_, err := Parse("r.json", []byte(`{"name":"r","contexts":[`+strings.TrimSuffix(strings.Repeat("{},", MaxContexts), ",")+`]}`))
	if err == nil || strings.Contains(err.Error(), "limit") {
		t.Errorf("Parse of %d empty contexts: %v, want the rules' problems", MaxContexts, err)
	}
}
