package indexer

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/tokens"
)

// TestLayoutStopsAtBound (upd22): a package whose full lines are far over
// the budget's byte bound has them built only until they pass it, and
// not kept (layout never renders that level); the file is the one a
// render building every line whole gives, on random corpora and budgets.
func TestLayoutStopsAtBound(t *testing.T) {
	// Not parallel: linesWhole is the package's.
	docs := make([]fileRecord, 500)
	for i := range docs {
		docs[i] = fileRecord{Path: fmt.Sprintf("part%d/page%03d.md", i%10, i), Title: fmt.Sprintf("Page %d", i), Summary: strings.Repeat("Some documentation text. ", 12) + "…"}
	}
	s := &pkgSection{docs: docs, tc: new(tokens.Counter), cost: [numLevels]int{-1, -1, -1, -1, -1, -1}}
	const limit = 8000
	if n := s.costOf(levelFull, limit); n != limit+1 {
		t.Fatalf("cost of 500 long lines at a %d-token limit: %d, want %d", limit, n, limit+1)
	}
	if s.lines[levelFull] != nil {
		t.Errorf("the full lines were kept (%d), though over the bound", len(s.lines[levelFull]))
	}
	if n := s.costOf(levelTitles, limit); n > limit || len(s.lines[levelTitles]) != len(docs) {
		t.Errorf("titles level: cost %d, %d lines kept; want under %d and every line", n, len(s.lines[levelTitles]), limit)
	}

	r := rand.New(rand.NewPCG(22, 31))
	for run := 0; run < 16; run++ {
		pkgs, files := randCorpus(r, run%4 == 0)
		if run%5 == 0 && len(pkgs) > 0 {
			files[pkgs[0].Alias] = append(files[pkgs[0].Alias], docs...)
		}
		budget := 300 + r.IntN(30000)
		got, info := renderIndex(pkgs, files, budget, "")
		linesWhole = true
		want, wantInfo := renderIndex(pkgs, files, budget, "")
		linesWhole = false
		if got != want || info != wantInfo {
			t.Fatalf("run %d, budget %d: the render differs from one building every line (%+v, want %+v)", run, budget, info, wantInfo)
		}
	}
}
