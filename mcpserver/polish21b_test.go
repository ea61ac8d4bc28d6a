package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// TestStopWordsOnlyQuerySaysSo (polish21b, agent21's leftover): a query
// of only stop words ("the of and", "how do I") picks no document, and
// its hits match those words anywhere; search's note and read_relevant's
// last text say so and what to send. It had weak hits and no note.
func TestStopWordsOnlyQuerySaysSo(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	const says = "no word of the query picks documents"
	for _, q := range []string{"the of and", "how do I"} {
		var out SearchOut
		if res := call(t, cs, "search", map[string]any{"query": q}, &out); res.IsError {
			t.Fatalf("search %q: %s", q, text(res))
		}
		if !strings.Contains(out.Note, says) || !strings.Contains(out.Note, "send") {
			t.Errorf("search %q: note %q, want it to say %q and what to send", q, out.Note, says)
		}
		res := call(t, cs, "read_relevant", map[string]any{"query": q}, nil)
		if res.IsError {
			t.Fatalf("read_relevant %q: %s", q, text(res))
		}
		if tc, ok := res.Content[len(res.Content)-1].(*mcp.TextContent); !ok || !strings.Contains(tc.Text, says) {
			t.Errorf("read_relevant %q: the last text does not say %q: %s", q, says, text(res))
		}
	}
	// Cut to fit the budget, the note keeps it.
	var cut SearchOut
	if res := call(t, cs, "search", map[string]any{"query": "the of and", "allPassages": true, "limit": 50, "maxTokens": 200}, &cut); res.IsError {
		t.Fatalf("search: %s", text(res))
	}
	if !strings.Contains(cut.Note, says) || !strings.Contains(cut.Note, "cut to fit") {
		t.Errorf("search cut to fit: note %q, want it to say %q and how it was cut", cut.Note, says)
	}
	var out SearchOut
	call(t, cs, "search", map[string]any{"query": "how do I roll back"}, &out)
	if strings.Contains(out.Note, says) {
		t.Errorf("a query with a word that picks documents: note %q", out.Note)
	}
}
