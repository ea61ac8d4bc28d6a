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
// qualifier are not.
func TestUnmatched(t *testing.T) {
	t.Parallel()
	r := openSyntaxFixture(t)
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"wizard", nil},
		{"how do I install the wizards", nil},
		{"RESTART Command", nil},
		{"instal the wizzard zanzibar", []string{"wizzard", "zanzibar"}},
		{`"run the wizzard" -nothingness package:docs tag:setup Wizzard`, []string{"Wizzard"}},
		{"", nil},
	} {
		got, err := r.Unmatched(context.Background(), tc.query)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Unmatched(%q) = %q, %v; want %q", tc.query, got, err, tc.want)
		}
	}
}
