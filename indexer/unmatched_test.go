package indexer

import (
	"context"
	"slices"
	"testing"
)

// TestUnmatched (agent20): the words of a query that no indexed chunk
// holds, as typed, each once: a typo and an absent term are named; a word
// that is there in another form (a plural, another case, a typo that
// stems to a held word), a stop word,
// a title's word, a phrase's found words, an excluded word and a
// qualifier are not. common (polish21b) says the query has words and
// every one is a stop word: none picks documents.
func TestUnmatched(t *testing.T) {
	t.Parallel()
	r := openSyntaxFixture(t)
	for _, tc := range []struct {
		query  string
		want   []string
		common bool // no word picks documents: each is a stop word
	}{
		{"wizard", nil, false},
		{"how do I install the wizards", nil, false},
		{"RESTART Command", nil, false},
		{"instal the wizzard zanzibar", []string{"wizzard", "zanzibar"}, false},
		{`"run the wizzard" -nothingness package:docs tag:setup Wizzard`, []string{"Wizzard"}, false},
		{"", nil, false},
		// polish21b: a query of only stop words picks no document.
		{"the of and", nil, true},
		{"How do I", nil, true},
		{"how do I wizard", nil, false},
		{"how do I zanzibar", []string{"zanzibar"}, false},
		{`"how do I"`, nil, false}, // a phrase picks the documents that have it
		{"the -wizard", nil, true},
		{"tag:setup", nil, false},
		// review23-chunk23: a query of exclusions alone is searched as
		// written (queryOf), so its words are checked as Search reads them:
		// a flag no document has is named, a stop word alone is common;
		// with a filter they are exclusions again, never named.
		{"-zanzibarflag", []string{"-zanzibarflag"}, false},
		{`-"zanzibar wizard"`, []string{"zanzibar"}, false},
		{"-the", nil, true},
		{"-zanzibarflag package:docs", nil, false},
	} {
		got, common, err := r.Unmatched(context.Background(), Query{Text: tc.query})
		if err != nil || !slices.Equal(got, tc.want) || common != tc.common {
			t.Errorf("Unmatched(%q) = %q, %v, %v; want %q, %v", tc.query, got, common, err, tc.want, tc.common)
		}
	}
	// A filter of the query's own (an MCP tool's packages) keeps the
	// exclusions exclusions, as Search does.
	if got, common, err := r.Unmatched(context.Background(), Query{Text: "-zanzibarflag", Packages: []string{"docs"}}); err != nil || len(got) > 0 || common {
		t.Errorf("Unmatched(-zanzibarflag, package docs) = %q, %v, %v; want none", got, common, err)
	}
}
