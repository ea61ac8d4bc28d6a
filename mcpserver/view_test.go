package mcpserver

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/mcpserver/mcpview"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientView is mcpview.ClientView, for a test.
func clientView(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	return mcpview.ClientView(res)
}

// maxToolListTokens is what tools/list may cost a model in o200k tokens,
// for all the tools together (issue 26).
const maxToolListTokens = 3500

// TestToolListTokens: tools/list, as a client puts it in the model's
// context (each tool's JSON), costs at most maxToolListTokens o200k tokens.
func TestToolListTokens(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type cost struct {
		name               string
		all, input, output int
	}
	var costs []cost
	total := 0
	count := func(v any) int {
		if v == nil {
			return 0
		}
		b, err := marshalJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := o200k.Count(string(b))
		return n
	}
	for _, tool := range res.Tools {
		c := cost{name: tool.Name, all: count(tool), input: count(tool.InputSchema), output: count(tool.OutputSchema)}
		total += c.all
		costs = append(costs, c)
	}
	sort.Slice(costs, func(i, j int) bool { return costs[i].all > costs[j].all })
	for _, c := range costs {
		t.Logf("%-16s %5d tokens (input schema %d, output schema %d)", c.name, c.all, c.input, c.output)
	}
	t.Logf("total %d tokens for %d tools", total, len(res.Tools))
	if total > maxToolListTokens {
		t.Errorf("tools/list costs %d o200k tokens, over %d", total, maxToolListTokens)
	}
}

// viewCalls are a call of every tool with its default arguments over the
// fixture (newProject), each with a text its answer must show.
var viewCalls = []struct {
	tool string
	args map[string]any
	want string
}{
	{"get_overview", map[string]any{}, "guide"},
	{"search", map[string]any{"query": "zanzibar"}, "**zanzibar**"},
	{"get_document", map[string]any{"package": "guide", "path": "docs/setup.md"}, "Run the installer."},
	{"get_section", map[string]any{"package": "guide", "path": "docs/setup.md", "heading": "Install"}, "Run the installer."},
	{"read_relevant", map[string]any{"query": "zanzibar installer"}, "Run the installer. The word zanzibar is only here."},
	{"list_contexts", map[string]any{}, `"alias":"guide"`},
	{"list_contexts", map[string]any{"package": "guide"}, "docs/setup.md"},
	{"get_outline", map[string]any{"package": "guide", "path": "docs/setup.md"}, "Configure"},
	{"list_tags", map[string]any{}, "onboarding"},
	{"get_links", map[string]any{"package": "guide", "path": "README.md"}, `"backlinks":[`},
	{"get_metadata", map[string]any{"package": "guide", "path": "docs/setup.md"}, "Setup guide"},
	{"find_documents", map[string]any{"where": map[string]any{"tags": map[string]any{"$contains": "onboarding"}}}, "docs/setup.md"},
	{"related", map[string]any{"query": "guide setup"}, `"start"`},
	{"what_changed", map[string]any{}, `"heading":"Setup > Install"`},
}

// TestClientViewHasAnswer: in what Claude Code shows of a result
// (clientView), every tool's answer is there, within 10,000 o200k tokens.
func TestClientViewHasAnswer(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	tools := map[string]bool{}
	for _, c := range viewCalls {
		tools[c.tool] = true
		res := call(t, cs, c.tool, c.args, nil)
		view := clientView(t, res)
		if res.IsError {
			t.Errorf("%s %v: %s", c.tool, c.args, view)
			continue
		}
		if !strings.Contains(view, c.want) {
			t.Errorf("%s %v: the client's view does not show %q:\n%.600s", c.tool, c.args, c.want, view)
		}
		if n, _ := o200k.Count(view); n > DefaultMaxTokens {
			t.Errorf("%s %v: the client's view is %d o200k tokens, over %d", c.tool, c.args, n, DefaultMaxTokens)
		}
	}
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if !tools[tool.Name] {
			t.Errorf("tool %s has no call in viewCalls", tool.Name)
		}
	}
}

// TestClientViewSizes: over documents built to be expensive in tokens
// (adversarialDocs), no tool's answer with default arguments is over
// 10,000 o200k tokens in the client's view.
func TestClientViewSizes(t *testing.T) {
	t.Parallel()
	dir := adversarialProject(t)
	cs := connect(t, dir)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"get_overview", nil},
		{"search", map[string]any{"query": "zebra"}},
		{"read_relevant", map[string]any{"query": "zebra"}},
		{"read_relevant", map[string]any{"query": "zebra stripes 斑马"}},
		{"list_contexts", nil},
		{"list_contexts", map[string]any{"package": "adv"}},
		{"list_tags", nil},
		{"find_documents", map[string]any{"where": map[string]any{"tags": map[string]any{"$exists": true}}}},
		{"related", map[string]any{"query": "zebra"}},
	}
	for _, doc := range []string{"emoji.md", "cjk.md", "json.md", "html.md", "oneline.md", "table.md", "meta.md", "links.md"} {
		a := map[string]any{"package": "adv", "path": doc}
		for _, tool := range []string{"get_document", "get_outline", "get_links", "get_metadata"} {
			calls = append(calls, struct {
				tool string
				args map[string]any
			}{tool, a})
		}
	}
	for _, c := range calls {
		res := call(t, cs, c.tool, c.args, nil)
		view := clientView(t, res)
		if res.IsError {
			t.Errorf("%s %v: %.300s", c.tool, c.args, view)
			continue
		}
		if n, _ := o200k.Count(view); n > DefaultMaxTokens {
			t.Errorf("%s %v: the client's view is %d o200k tokens, over %d", c.tool, c.args, n, DefaultMaxTokens)
		}
	}
}

// TestNullIsAbsent: every tool takes an optional argument sent as null as
// absent (models in strict modes send null for what they do not use).
func TestNullIsAbsent(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	var out SearchOut
	res := call(t, cs, "search", map[string]any{"query": "zanzibar", "packages": nil, "limit": nil}, &out)
	if res.IsError || len(out.Hits) == 0 {
		t.Fatalf(`search {"query":"zanzibar","packages":null,"limit":null}: %s`, text(res))
	}
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]map[string]any{}
	for _, tool := range list.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		var s map[string]any
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		schemas[tool.Name] = s
	}
	for _, c := range viewCalls {
		args := maps.Clone(c.args)
		props, _ := schemas[c.tool]["properties"].(map[string]any)
		for name := range props {
			if _, given := args[name]; !given {
				args[name] = nil
			}
		}
		res := call(t, cs, c.tool, args, nil)
		if res.IsError || !strings.Contains(clientView(t, res), c.want) {
			t.Errorf("%s with nulls %v: %.300s", c.tool, args, clientView(t, res))
		}
	}
	// A required argument sent as null is still refused.
	wantError(t, call(t, cs, "search", map[string]any{"query": nil}, nil), "query")
}

// TestOneNotFound: every tool that takes a path answers a missing document
// the same way: what was asked, and the nearest path (no internal prefix).
func TestOneNotFound(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	miss := map[string]any{"package": "guide", "path": "docs/setpu.md"}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_document", miss},
		{"get_section", map[string]any{"package": "guide", "path": "docs/setpu.md", "heading": "Install"}},
		{"get_outline", miss},
		{"get_links", miss},
		{"get_metadata", miss},
		{"related", miss},
	} {
		res := call(t, cs, c.tool, c.args, nil)
		wantError(t, res, `document "docs/setpu.md" not found in package "guide".`, "docs/setup.md")
		if got := text(res); strings.Contains(got, "indexer:") {
			t.Errorf("%s: internal prefix in %q", c.tool, got)
		}
	}
}

// TestModified: a listed document's modified is its fetch time for an
// https package and its file's mtime for a dir source; a git package's
// documents have none (agent20: it was the install's time, on every
// document, which reads as "changed today").
func TestModified(t *testing.T) {
	t.Parallel()
	dir := kindsProject(t)
	mtime := time.Date(2025, 6, 7, 8, 9, 10, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(dir, "notes", "okapi notes.md"), mtime, mtime); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, dir)
	for alias, want := range map[string]time.Time{"web": time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), "notes": mtime} {
		var out ListContextsOut
		if res := call(t, cs, "list_contexts", map[string]any{"package": alias}, &out); res.IsError || len(out.Documents) != 1 {
			t.Fatalf("%s: %s", alias, text(res))
		}
		if got := out.Documents[0].Modified; !got.Equal(want) {
			t.Errorf("%s: modified %v, want %v", alias, got, want)
		}
	}
	res := call(t, cs, "list_contexts", map[string]any{"package": "gitpkg"}, nil)
	if view := clientView(t, res); res.IsError || !strings.Contains(view, `"path":`) || strings.Contains(view, "modified") {
		t.Errorf("gitpkg: want documents with no modified: %s", view)
	}
}
