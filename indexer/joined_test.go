package indexer

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/mapping"
)

// TestJoinedWords pins which adjacent words of a query are also tried as
// one word: each typed word cut at what is not a letter or a digit, every
// pair in a row, except two stop words and pairs of fewer than four
// letters.
func TestJoinedWords(t *testing.T) {
	t.Parallel()
	m, ok := newMapping().(*mapping.IndexMappingImpl)
	if !ok {
		t.Fatal("newMapping: not an IndexMappingImpl")
	}
	key := m.AnalyzerNamed(keyTextAnalyzer)
	for _, c := range []struct{ query, want string }{
		{"health check", "healthcheck"},
		{"max-connections", "maxconnections"},
		{"Dry run", "dryrun"},
		{"check out a branch", "checkout abranch"},
		{"what to do", ""}, // three stop words
		{"a b", ""},        // too short
		{"zebra", ""},      // one word
		{"node_modules size", "nodemodules modulessize"},
		// review of rank23a: only words in a row; a phrase, an exclusion
		// or a qualifier between two words parts them.
		{`health -x check`, ""},
		{`health "x y" check`, ""},
		{`health kind:changelog check`, ""},
		{`dry path:docs run check`, "runcheck"},
		{`health check -x`, "healthcheck"},
		// Two numbers are no word written as one (a version's parts:
		// "10.15" is not 1015); letters are counted, not bytes.
		{"macos 10.15.7", "macos10"},
		{"error 404 500", "error404"},
		{"é ab", ""},
	} {
		var joins []string
		for _, j := range joinedWords(key, parseQuery(c.query)) {
			joins = append(joins, j.word)
		}
		if got := strings.Join(joins, " "); got != c.want {
			t.Errorf("joinedWords(%q) = %q, want %q", c.query, got, c.want)
		}
	}
}

// TestJoinedWordSearch pins the score a page gets when it writes as one
// word (`healthCheck`) two words of the query ("health check"), computed
// by hand:
//
//	a.md "# Zebra" over "healthCheck lion": head and title "zebra" (1), body 2
//	b.md "# Zebra" over "health check lion": head and title "zebra" (1), body 3
//
// N = 2; health, check (in b) and healthcheck (in a) have idf ln 2. The
// content words are health and check (mean idf ln 2, weight 1 each); the
// joined word is not one, and weighs joinWeight. No title holds a query
// word. Average body 2.5. Before joined words, a was no hit at all.
func TestJoinedWordSearch(t *testing.T) {
	t.Parallel()
	r := syncedPackage(t, map[string]string{
		"a.md": "# Zebra\n\nhealthCheck lion\n",
		"b.md": "# Zebra\n\nhealth check lion\n",
	})
	idf := math.Log(2)
	sat := func(tf float64) float64 { return tf / (1.3 + tf) }
	norm := func(dl, avg float64) float64 { return 0.25 + 0.75*dl/avg }
	checkScores(t, r, "health check", map[string]float64{
		"a.md": joinWeight * idf * sat(1/norm(2, 2.5)),
		"b.md": 2 * idf * sat(1/norm(3, 2.5)),
	})
	// Two stop words are not joined: "to do" does not find a page's TODO
	// (c: body "todo zebra", 2; d: "zebra", 1; zebra's idf ln 1.2; to and
	// do in no page). Joined, c would have 0.5·ln 2·sat(…) more.
	r2 := syncedPackage(t, map[string]string{
		"c.md": "# Lion\n\nTODO zebra\n",
		"d.md": "# Lion\n\nzebra\n",
	})
	idfZebra := math.Log(1.2)
	checkScores(t, r2, "to do zebra", map[string]float64{
		"c.md": idfZebra * sat(1/norm(2, 1.5)),
		"d.md": idfZebra * sat(1/norm(1, 1.5)),
	})
}

// TestJoinedWordsNotUnmatched (review of rank23a): a query's words that a
// page holds joined ("health check", the page's healthCheck) find that
// page (withJoined), so Unmatched does not name them as words no document
// has: the MCP answers said "no document has the words health or check
// (a typo?)" over the very hit they found. A word whose join the corpus
// does not hold is still named.
func TestJoinedWordsNotUnmatched(t *testing.T) {
	t.Parallel()
	r := syncedPackage(t, map[string]string{
		"a.md": "# Zebra\n\nhealthCheck lion\n",
		"b.md": "# Lion\n\nzebra tiger\n",
	})
	hits, err := r.Search(context.Background(), Query{Text: "health check"})
	if err != nil || len(hits) != 1 || hits[0].Path != "a.md" {
		t.Fatalf("Search(health check) = %v, %v; want a.md", hits, err)
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"health check", nil},
		{"Health-Check zebra", nil},
		{"health check wombat", []string{"wombat"}},
		{"check wombat", []string{"check", "wombat"}},
	} {
		got, _, err := r.Unmatched(context.Background(), Query{Text: tc.query})
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Unmatched(%q) = %q, %v; want %q", tc.query, got, err, tc.want)
		}
	}
}
