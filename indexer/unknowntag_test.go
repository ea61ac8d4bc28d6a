package indexer

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestSearchUnknownTag (audit16 finding 6): a tag filter no indexed
// document has (Query.Tags, tag:T) is ErrUnknownTag naming the nearest
// tags, as a package typo is ErrUnknownPackage, not an empty answer; a
// filter with one known tag among others searches.
func TestSearchUnknownTag(t *testing.T) {
	t.Parallel()
	r := openSyntaxFixture(t)
	ctx := context.Background()
	for _, q := range []Query{
		{Text: "tool", Tags: []string{"setpu"}},
		{Text: "tool tag:setpu"},
		{Text: "tool tag:SETPU tag:nothing"},
	} {
		_, err := r.Search(ctx, q)
		if !errors.Is(err, ErrUnknownTag) || !strings.Contains(err.Error(), "did you mean setup?") || !strings.Contains(err.Error(), `"setpu"`) {
			t.Errorf("%q %v: %v; want ErrUnknownTag naming setpu, did you mean setup", q.Text, q.Tags, err)
		}
	}
	for _, q := range []Query{
		{Text: "tool", Tags: []string{"setpu", "setup"}},
		{Text: "tool tag:nothing tag:linux"},
		{Text: "tool package:ops tag:linux"}, // the tag is in another package: an empty answer
	} {
		if _, err := r.Search(ctx, q); err != nil {
			t.Errorf("%q %v: %v", q.Text, q.Tags, err)
		}
	}
}

// TestQueryFilters: the filters a search has, its own and its query's
// qualifiers, in one order, each once.
func TestQueryFilters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		q    Query
		want []string
	}{
		{Query{Text: "deploy"}, nil},
		{Query{Text: "deploy tag:x path:a/"}, []string{"tag", "path"}},
		{Query{Text: "deploy path:a/", Paths: []string{"b/"}, Packages: []string{"p"}}, []string{"package", "path"}},
		{Query{Text: "kind:git x", Tags: []string{"t"}}, []string{"kind", "tag"}},
		{Query{Text: "kind:changelog x"}, []string{"kind"}},
		{Query{Text: `"path:a/" tag: x`}, nil},
	} {
		if got := tc.q.Filters(); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: Filters() = %v, want %v", tc.q, got, tc.want)
		}
	}
}
