package indexer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestReview18aUnknownTagsBounded (review18a): Query.Tags has no bound (the
// MCP search tool's "tags" array, up to its 1 MiB body), and an answer
// naming no known tag echoed every one back: 60,000 tags made a 720 KB
// error, sent to the model as the tool's text, after a quadratic
// de-duplication (slices.Contains per tag: 5.3 s of CPU on the Debian
// corpus, load 21) and an edit distance from each to every known tag.
// The error names a few and counts the rest.
func TestReview18aUnknownTagsBounded(t *testing.T) {
	t.Parallel()
	r := openSyntaxFixture(t)
	var tags []string
	for i := range MaxQueryFilters {
		tags = append(tags, fmt.Sprintf("nosuchtag%04d", i))
	}
	_, err := r.Search(context.Background(), Query{Text: "tool", Tags: tags})
	if !errors.Is(err, ErrUnknownTag) {
		t.Fatalf("%d unknown tags: %v; want ErrUnknownTag", len(tags), err)
	}
	if n := len(err.Error()); n > 2000 {
		t.Errorf("the error is %d bytes (%.120s…); want a few tags named and the rest counted", n, err)
	}
	if !strings.Contains(err.Error(), "nosuchtag0000") {
		t.Errorf("the error names no tag asked for: %v", err)
	}
}

// TestQueryFiltersBounded: a filter list over MaxQueryFilters is refused
// before any work, naming the list and the cap.
func TestQueryFiltersBounded(t *testing.T) {
	t.Parallel()
	r := openSyntaxFixture(t)
	many := make([]string, MaxQueryFilters+1)
	for i := range many {
		many[i] = fmt.Sprintf("x%d", i)
	}
	for name, q := range map[string]Query{
		"tags":     {Text: "tool", Tags: many},
		"packages": {Text: "tool", Packages: many},
		"kinds":    {Text: "tool", Kinds: many},
		"paths":    {Text: "tool", Paths: many},
	} {
		_, err := r.Search(context.Background(), q)
		if !errors.Is(err, ErrQueryTooLong) || !strings.Contains(err.Error(), name) {
			t.Errorf("%d %s: %v; want ErrQueryTooLong naming %s", len(many), name, err, name)
		}
	}
}
