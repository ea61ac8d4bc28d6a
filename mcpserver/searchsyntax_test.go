package mcpserver

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestSearchSyntaxAndTags: the search tool documents the query syntax
// within 2 KB, applies it, and shows each hit's tags.
func TestSearchSyntaxAndTags(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name != "search" {
			continue
		}
		if n := len(tool.Description); n > 2048 {
			t.Errorf("search description is %d bytes, over 2 KB", n)
		}
		for _, s := range []string{`"an exact phrase"`, "-word", "package:ALIAS", "path:PREFIX", "tag:TAG", "kind:KIND"} {
			if !strings.Contains(tool.Description, s) {
				t.Errorf("search description does not document %s", s)
			}
		}
	}
	var out SearchOut
	call(t, cs, "search", map[string]any{"query": "widgets tag:api"}, &out)
	if len(out.Hits) != 1 || out.Hits[0].Path != "reference.md" || !slices.Equal(out.Hits[0].Tags, []string{"api", "http"}) {
		t.Errorf("widgets tag:api: %+v, want api/reference.md with tags api, http", out.Hits)
	}
	call(t, cs, "search", map[string]any{"query": `"error codes" package:api`}, &out)
	if len(out.Hits) != 1 || out.Hits[0].Path != "errors.md" {
		t.Errorf(`"error codes" package:api: %+v, want api/errors.md`, out.Hits)
	}
}

// TestUnknownKind: a kind: in a query that is no kind, in every tool that
// takes a query, and a kind argument that is no source kind, are an error
// result naming the kinds there are and the one the typo is within two
// letters of, not an empty answer.
func TestUnknownKind(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	for _, tool := range []string{"search", "read_relevant", "related"} {
		res := call(t, cs, tool, map[string]any{"query": "widgets kind:chnagelog"}, nil)
		wantError(t, res, `"kind:chnagelog": no such kind (did you mean kind:changelog?)`, "git, dir, https", "changelog, release, blog")
	}
	res := call(t, cs, "search", map[string]any{"query": "widgets", "kind": "gti"}, nil)
	wantError(t, res, `unknown kind: "gti" is not a source kind`, "did you mean git?", "git, dir, https")
	var out SearchOut
	if res := call(t, cs, "search", map[string]any{"query": "widgets kind:Changelog"}, &out); res.IsError || len(out.Hits) != 0 {
		t.Errorf("widgets kind:Changelog: %s, want no hits and no error", text(res))
	}
	// The kind argument in capitals is that kind, as kind: in a query is.
	if res := call(t, cs, "search", map[string]any{"query": "widgets", "kind": "GIT"}, &out); res.IsError {
		t.Errorf("kind GIT: %s, want the git kind", text(res))
	}
}
