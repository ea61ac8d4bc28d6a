package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestArgumentDescriptionsReadInErrors (polish21b, review21-agent21
// finding 7): an error names an argument with its description in
// parentheses ("limit" (hits, default 10)), so a description holds none
// of its own (it read `"limit" (hits (default 10))`), and none points
// "below": in an error nothing is below (search's query said "words, with
// the query syntax below").
func TestArgumentDescriptionsReadInErrors(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		b, _ := json.Marshal(tl.InputSchema)
		var schema struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatal(err)
		}
		for name, p := range schema.Properties {
			if strings.ContainsAny(p.Description, "()") || strings.Contains(p.Description, "below") {
				t.Errorf("%s's argument %q is described %q: in an error it reads %q", tl.Name, name, p.Description, `"`+name+`" (`+p.Description+`)`)
			}
		}
	}
	wantError(t, call(t, cs, "search", map[string]any{"query": "x", "maxTokens": "500"}, nil),
		`search: the argument "maxTokens" (answer budget in tokens, default 10000) must be an integer, not a string.`)
}

// TestCursorErrorNamesItBriefly (polish21b, agent21's leftover): a cursor
// the server did not give is refused without quoting it back (it was
// quoted whole, up to 200 bytes: noise the model sent itself).
func TestCursorErrorNamesItBriefly(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	bad := strings.Repeat("QUJD", 30) // 120 bytes of base64: "ABC"...
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"list_contexts", map[string]any{"cursor": bad}},
		{"get_overview", map[string]any{"cursor": bad}},
		{"get_links", map[string]any{"package": "hub", "path": "page.md", "cursor": bad}},
		{"list_contexts", map[string]any{"cursor": "eyJsIjoiYSJ9" + bad}}, // JSON of another listing
		{"get_overview", map[string]any{"cursor": "bm9wZQ" + bad}},
	} {
		res := call(t, cs, c.tool, c.args, nil)
		wantError(t, res, "the cursor ", "without cursor")
		if strings.Contains(text(res), "QUJDQUJD") {
			t.Errorf("%s quotes the cursor back: %s", c.tool, text(res))
		}
	}
}
