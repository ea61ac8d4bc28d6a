package mcpserver

import (
	"strings"
	"testing"
)

// TestNoMatchNamesFilters (audit16 finding 6): an empty answer's note names
// the filters the search had, the query's qualifiers (path:, tag:) as well
// as the arguments; and a tag no document has is an error naming the
// nearest, as list_tags shows them, not an empty answer.
func TestNoMatchNamesFilters(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	var out SearchOut
	res := call(t, cs, "search", map[string]any{"query": "install path:nosuch/"}, &out)
	if res.IsError || len(out.Hits) != 0 || !strings.Contains(out.Note, "without the path filter") {
		t.Errorf("search with path: in the query: %s", text(res))
	}
	out = SearchOut{}
	res = call(t, cs, "search", map[string]any{"query": "install tag:api", "path": "nosuch/"}, &out)
	if res.IsError || len(out.Hits) != 0 || !strings.Contains(out.Note, "without the tag and path filters") {
		t.Errorf("search with tag: in the query and a path: %s", text(res))
	}
	res = call(t, cs, "read_relevant", map[string]any{"query": "install path:nosuch/"}, nil)
	if res.IsError || !strings.Contains(text(res), "without the path filter") {
		t.Errorf("read_relevant with path: in the query: %s", text(res))
	}
	for _, args := range []map[string]any{
		{"query": "install", "tags": []string{"onbaording"}},
		{"query": "install tag:onbaording"},
	} {
		wantError(t, call(t, cs, "search", args, nil), `tag "onbaording": no indexed document has this tag (did you mean onboarding?)`, "list_tags")
	}
	wantError(t, call(t, cs, "read_relevant", map[string]any{"query": "install tag:onbaording"}, nil), "did you mean onboarding?")
	// find_documents as search (review of fixA16, 5); an unknown package
	// is named before an unknown tag (6).
	wantError(t, call(t, cs, "find_documents", map[string]any{"tag": "onbaording"}, nil), `tag "onbaording": no indexed document has this tag (did you mean onboarding?)`, "list_tags")
	wantError(t, call(t, cs, "search", map[string]any{"query": "install", "tags": []string{"onbaording"}, "packages": []string{"nosuch"}}, nil), `"nosuch"`, "list_contexts")
}
