package indexer

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/search/query"
)

// prefixQueries counts the prefix queries in q's tree: each is expanded
// by bleve into one term searcher per indexed path it matches.
func prefixQueries(q query.Query) int {
	switch q := q.(type) {
	case *query.PrefixQuery:
		return 1
	case *query.DisjunctionQuery:
		n := 0
		for _, c := range q.Disjuncts {
			n += prefixQueries(c)
		}
		return n
	case *query.ConjunctionQuery:
		n := 0
		for _, c := range q.Conjuncts {
			n += prefixQueries(c)
		}
		return n
	}
	return 0
}

// TestRed18PathFilterAmplification (red18 finding 2): a query of 999
// `path:/` qualifiers (7 KB, within CheckQuery's 1,000 words and 8 KB) made
// every search expand the whole path field 999 times: 13.6 s of CPU for
// one MCP search on 2,300 documents (0.06 s without them), from any MCP
// client. A path filter that another one of the same query already
// covers (the same prefix, a longer one, or any after the empty prefix,
// which holds every path) adds nothing to the answer and must add nothing
// to the work.
func TestRed18PathFilterAmplification(t *testing.T) {
	t.Parallel()
	aliases := map[string]bool{"docs": true, "ops": true}
	for _, tc := range []struct {
		text string
		max  int // prefix queries at most
	}{
		{"tool " + strings.Repeat("path:/ ", 999), 1},
		{"tool " + strings.Repeat("path:guide/ ", 999), 2},
		{"tool path:g path:gu path:gui path:guid path:guide path:guide/ path:guide/u", 1},
		{"tool path:docs/ path:docs/g path:docs/gu path:docs/guide/", 2},
		{"tool path:a path:b path:a path:b", 2},
	} {
		pq := parseQuery(tc.text)
		n := 0
		for _, f := range searchFilters(pq, Query{}, nil, aliases) {
			n += prefixQueries(f)
		}
		if n > tc.max {
			t.Errorf("%.60q: %d prefix queries, want at most %d", tc.text, n, tc.max)
		}
	}

	// The answers are the same as with the filters that cover the others.
	r := openSyntaxFixture(t)
	ctx := context.Background()
	for _, tc := range []struct{ query, same string }{
		{"tool " + strings.Repeat("path:/ ", 999), "tool"},
		{"tool path:guide path:guide/up path:guide/install.md", "tool path:guide"},
		{"tool path:docs/ path:docs/ref path:guide/up", "tool path:docs/ path:guide/up"},
		{"tool path:d path:docs/ref/", "tool path:d path:docs/ref/"},
		{"tool path:ops/ path:ops/run path:guide/ path:guide/x", "tool path:ops/ path:guide/"},
	} {
		got, want := hitPaths(t, r, ctx, tc.query), hitPaths(t, r, ctx, tc.same)
		if !slices.Equal(got, want) {
			t.Errorf("%.60q: got %v, want %v (as %q)", tc.query, got, want, tc.same)
		}
	}
}

func hitPaths(t *testing.T, r *Reader, ctx context.Context, text string) []string {
	t.Helper()
	hits, err := r.Search(ctx, Query{Text: text})
	if err != nil {
		t.Fatalf("%.60q: %v", text, err)
	}
	var got []string
	for _, h := range hits {
		if p := h.Package + "/" + h.Path; !slices.Contains(got, p) {
			got = append(got, p)
		}
	}
	slices.Sort(got)
	return got
}

// TestRed18IndexMDTitleBacktick (red18 finding 6): a title with an odd
// backtick opened a code span that the entry's path closed, so INDEX.md
// showed the path as plain text and "backtick and ](http://x) and (" as
// code. An unbalanced backtick of a title or a folder's sample title is
// written escaped; balanced code spans stay as they are.
func TestRed18IndexMDTitleBacktick(t *testing.T) {
	t.Parallel()
	s := &pkgSection{docs: []fileRecord{{Path: "b.md", Title: "Title with `backtick and ](http://x)", Summary: "some `summary"}, {Path: "c.md", Title: "The `kubectl` command"}}}
	got := s.docLine(s.docs[0], levelFull)
	if want := "- Title with \\`backtick and ](http://x) (`b.md`): some \\`summary\n"; got != want {
		t.Errorf("docLine = %q, want %q", got, want)
	}
	if got, want := s.docLine(s.docs[1], levelTitles), "- The `kubectl` command (`c.md`)\n"; got != want {
		t.Errorf("docLine = %q, want %q", got, want)
	}
	g := group{label: "d/", n: 1, samples: []string{"odd ` title"}}
	if got, want := s.folderLine(g, levelSamples, "document", "documents"), "- `d/` — 1 document: odd \\` title\n"; got != want {
		t.Errorf("folderLine = %q, want %q", got, want)
	}
}
