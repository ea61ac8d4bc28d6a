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
	for i := range 5000 {
		tags = append(tags, fmt.Sprintf("nosuchtag%04d", i))
	}
	_, err := r.Search(context.Background(), Query{Text: "tool", Tags: tags})
	if !errors.Is(err, ErrUnknownTag) {
		t.Fatalf("5,000 unknown tags: %v; want ErrUnknownTag", err)
	}
	if n := len(err.Error()); n > 2000 {
		t.Errorf("the error is %d bytes (%.120s…); want a few tags named and the rest counted", n, err)
	}
	if !strings.Contains(err.Error(), "nosuchtag0000") {
		t.Errorf("the error names no tag asked for: %v", err)
	}
}
