package indexer

import (
	"context"
	"errors"
	"path/filepath"
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

// TestUnknownTagFindAndOrder (review of fixA16, 5-6): Find answers a tag
// no document has with the same ErrUnknownTag as Search; an unknown
// package is named before an unknown tag; a tag with a space is
// suggested whole.
func TestUnknownTagFindAndOrder(t *testing.T) {
	t.Parallel()
	r := openSyntaxFixture(t)
	ctx := context.Background()
	if _, err := r.Find(context.Background(), FindQuery{Tags: []string{"setpu"}}); !errors.Is(err, ErrUnknownTag) || !strings.Contains(err.Error(), "did you mean setup?") {
		t.Errorf("Find tag setpu: %v; want ErrUnknownTag, did you mean setup", err)
	}
	if res, err := r.Find(context.Background(), FindQuery{Tags: []string{"Setup"}}); err != nil || res.Total != 2 {
		t.Errorf("Find tag Setup: %+v, %v; want 2 documents", res, err)
	}
	if _, err := r.Find(context.Background(), FindQuery{Tags: []string{"setpu"}, Packages: []string{"nosuch"}}); !errors.Is(err, ErrUnknownPackage) {
		t.Errorf("Find tag setpu, package nosuch: %v; want ErrUnknownPackage first", err)
	}
	for _, q := range []Query{
		{Text: "tool", Tags: []string{"setpu"}, Packages: []string{"nosuch"}},
		{Text: "tool tag:setpu package:nosuch"},
	} {
		if _, err := r.Search(ctx, q); !errors.Is(err, ErrUnknownPackage) {
			t.Errorf("%q %v %v: %v; want ErrUnknownPackage first", q.Text, q.Tags, q.Packages, err)
		}
	}

	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "docs", map[string]string{
		"start.md": "---\ntags: [Getting Started, api]\n---\n# Start\n\nStart here.\n",
	})
	if _, err := Sync(ctx, dir, []Package{{Alias: "docs"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r2, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	for typed, want := range map[string]string{
		"getting":        `(did you mean "getting started"?)`,
		"geting started": `(did you mean "getting started"?)`,
		"a":              `(did you mean api?)`,
	} {
		if _, err := r2.Search(ctx, Query{Text: "start", Tags: []string{typed}}); !errors.Is(err, ErrUnknownTag) || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("tag %q: %v; want ErrUnknownTag ending %s", typed, err, want)
		}
	}
}
