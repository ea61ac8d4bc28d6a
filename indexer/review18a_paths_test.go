package indexer

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestReview18aPathFiltersKeepTheirMeaning (review18a): uncoveredPrefixes
// (red18 finding 2) drops a path: filter another one covers. Random lists
// of path: qualifiers (both forms, the empty prefix, prefixes of one
// another, of an alias, with and without package:) must select what every
// filter of the list selects (any of them: pathMatches, as dd4e78d asked
// bleve), through the real search.
func TestReview18aPathFiltersKeepTheirMeaning(t *testing.T) {
	t.Parallel()
	r := openSyntaxFixture(t)
	ctx := context.Background()
	aliases := map[string]bool{"docs": true, "ops": true}
	docs := [][2]string{{"docs", "guide/install.md"}, {"docs", "guide/upgrade.md"}, {"docs", "ref/cli.md"}, {"ops", "runbook.md"}}
	atoms := []string{"/", "g", "gu", "guide", "guide/", "guide/i", "guide/u", "r", "re", "ref/", "ref/cli.md", "ru",
		"runbook.md", "d", "do", "docs", "docs/", "docs/g", "docs/guide/", "docs/r", "o", "ops", "ops/", "ops/r", "ops/x", "x", "docs/x"}
	rng := rand.New(rand.NewPCG(18, 1))
	for i := 0; i < 400; i++ {
		var paths []string
		for n := 1 + rng.IntN(5); n > 0; n-- {
			paths = append(paths, atoms[rng.IntN(len(atoms))])
		}
		text := "tool"
		for _, p := range paths {
			text += " path:" + p
		}
		pkg := ""
		if rng.IntN(3) == 0 {
			pkg = []string{"docs", "ops"}[rng.IntN(2)]
			text += " package:" + pkg
		}
		var want []string
		for _, d := range docs {
			if pkg != "" && d[0] != pkg {
				continue
			}
			for _, p := range paths {
				if pathMatches(p, d[0], d[1], aliases) {
					want = append(want, d[0]+"/"+d[1])
					break
				}
			}
		}
		slices.Sort(want)
		if got := hitPaths(t, r, ctx, text); !slices.Equal(got, want) {
			t.Errorf("%q: got %v, want %v (kept %q)", text, got, want, uncoveredPrefixes(paths, aliases))
		}
	}
}
