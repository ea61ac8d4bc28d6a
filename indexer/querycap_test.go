package indexer

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestSearchQueryCap: a query over MaxQueryTerms words or MaxQueryBytes
// bytes is refused at once with ErrQueryTooLong and a message that says
// the limit and what to do; one at the caps is searched.
func TestSearchQueryCap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	words := func(n int) string { return strings.TrimSpace(strings.Repeat("rollback pager ", n/2)) }
	for _, tc := range []struct {
		name, text string
		want       string // "" means accepted
	}{
		{"100,000 words", words(100_000), "8192"},
		{"1,001 words", "rollback " + strings.Repeat("a ", 1000), "1001 words, more than the 1000"},
		{"one long word", strings.Repeat("x", MaxQueryBytes+1), "8193 bytes"},
		{"1,000 words", words(1000), ""},
		{"8 KB", "rollback " + strings.Repeat("y", MaxQueryBytes-len("rollback ")), ""},
	} {
		hits, err := r.Search(ctx, Query{Text: tc.text})
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			} else if tc.name == "1,000 words" && len(hits) == 0 {
				t.Errorf("%s: no hits", tc.name)
			}
			continue
		}
		if !errors.Is(err, ErrQueryTooLong) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "distinctive words") {
			t.Errorf("%s: %v, want ErrQueryTooLong saying %q and what to do", tc.name, err, tc.want)
		}
		if CheckQuery(tc.text) == nil {
			t.Errorf("%s: CheckQuery accepts it", tc.name)
		}
	}
}
