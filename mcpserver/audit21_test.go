package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingArgumentNamesIt (agent21 audit): a call without an argument
// the tool needs says which, what it is, and what the tool takes; the SDK's
// words (`validating "arguments": validating root: required: missing
// properties: ["path"]`) said neither what it is nor what to do.
func TestMissingArgumentNamesIt(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "hub"}, nil),
		`get_document needs the argument "path" (document path in the package; without package, <alias>/<path> or @ctx/<alias>/<path>); it takes package, path, offset, limit, section, maxTokens.`)
	wantError(t, call(t, cs, "get_section", map[string]any{"package": "hub"}, nil),
		`get_section needs the arguments "path" (document path in the package`, `and "heading" (heading text or a search hit's heading trail); it takes package, path, heading, offset, maxTokens.`)
	wantError(t, call(t, cs, "search", map[string]any{}, nil),
		`search needs the argument "query" (words in search's query syntax); it takes query,`)
}

// TestDocumentTooSmallNamesMaxTokens (agent21 audit): get_document and
// get_section with a maxTokens that leaves no room for text name the
// maxTokens given and the one that holds a window, as every other tool's
// refusal does; they said "the budget of 0 tokens" and "a larger
// maxTokens". The maxTokens named reads a window.
func TestDocumentTooSmallNamesMaxTokens(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	for _, tool := range []string{"get_document", "get_section"} {
		args := map[string]any{"package": "hub", "path": "rb.md", "maxTokens": 1}
		if tool == "get_section" {
			args["heading"] = "Roll back"
		}
		res := call(t, cs, tool, args, nil)
		wantError(t, res, "maxTokens 1 is too small for a window of hub/rb.md", "give maxTokens ")
		var need int
		if _, err := fmt.Sscanf(text(res)[strings.Index(text(res), "give maxTokens ")+len("give maxTokens "):], "%d", &need); err != nil {
			t.Fatalf("%s: %v in %q", tool, err, text(res))
		}
		args["maxTokens"] = need
		if res := call(t, cs, tool, args, nil); res.IsError {
			t.Errorf("%s with the maxTokens %d it named: %s", tool, need, text(res))
		}
	}
}

// TestRefusedPathNamedOnce (agent21 audit): a path with ".." is refused
// naming it once (it was `refused path "../x": path "../x" has …`).
func TestRefusedPathNamedOnce(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	res := call(t, cs, "get_document", map[string]any{"package": "hub", "path": "../x.md"}, nil)
	wantError(t, res, `"../x.md" has a '..' element`)
	if n := strings.Count(text(res), `"../x.md"`); n != 1 {
		t.Errorf("the path is named %d times: %s", n, text(res))
	}
	// review21-agent21: a refused path with a "%" in it was named twice
	// ("refused path \"../a%20b.md\": path \"../a%20b.md\" has …"); one
	// refused only once decoded is named as sent and as decoded.
	res = call(t, cs, "get_document", map[string]any{"package": "hub", "path": "../a%20b.md"}, nil)
	wantError(t, res, `"../a%20b.md" has a '..' element`)
	if n := strings.Count(text(res), `"../a%20b.md"`); n != 1 {
		t.Errorf("the path is named %d times: %s", n, text(res))
	}
	res = call(t, cs, "get_document", map[string]any{"package": "hub", "path": "%2e%2e/x.md"}, nil)
	wantError(t, res, `"%2e%2e/x.md"`, `"../x.md" has a '..' element`, "after percent-decoding")
}

// TestWholeListingHasNoPageCounts (agent21 audit): a listing that fits on
// one page says how many items there are (total), not that it listed them
// all and none remain; a page of a longer listing keeps both counts.
func TestWholeListingHasNoPageCounts(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_outline", map[string]any{"package": "hub", "path": "rb.md"}},
		{"list_tags", map[string]any{}},
		{"list_contexts", map[string]any{}},
		{"list_contexts", map[string]any{"package": "hub"}},
	} {
		res := call(t, cs, c.tool, c.args, nil)
		if v := clientView(t, res); res.IsError || !strings.Contains(v, `"total":`) || strings.Contains(v, `"listed"`) || strings.Contains(v, `"remaining"`) {
			t.Errorf("%s %v: %s", c.tool, c.args, v)
		}
	}
	res := call(t, cs, "list_contexts", map[string]any{"package": "hub", "limit": 1}, nil)
	if v := clientView(t, res); res.IsError || !strings.Contains(v, `"listed":1`) || !strings.Contains(v, `"remaining":`) {
		t.Errorf("list_contexts, a page of one: %s", v)
	}
}

// TestWrongTypeSaysWhatToSend (agent21 audit): an argument of the wrong
// JSON type (a package name where a list goes, a number sent as a string,
// a null query) names the argument, what it is and the type it must be;
// the SDK's words named a JSON path ("validating /properties/packages:
// type: api has type \"string\", want \"array\"") and a null query
// "<invalid reflect.Value>".
func TestWrongTypeSaysWhatToSend(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search", map[string]any{"query": "x", "packages": "hub"}, `search: the argument "packages" (only these package aliases) must be an array, not a string: send ["hub"].`},
		{"search", map[string]any{"query": "x", "maxTokens": "500"}, `search: the argument "maxTokens" (answer budget in tokens, default 10000) must be an integer, not a string.`},
		{"read_relevant", map[string]any{"query": "x", "packages": []any{1}}, `read_relevant: the argument "packages" (only these package aliases) must be an array of strings, not one holding an integer.`},
		{"search", map[string]any{"query": nil}, `search: the argument "query" (words in search's query syntax) must be a string, not null.`},
		{"find_documents", map[string]any{"where": "status=x"}, `find_documents: the argument "where" (field: value`},
		// review21-agent21: a list sent as a JSON string, or as words
		// with commas, was advised back as one string in a list
		// (send ["[\"hub\"]"], send ["hub, web"]): the call it named fails.
		{"search", map[string]any{"query": "x", "packages": `["hub","web"]`}, `search: the argument "packages" (only these package aliases) must be an array, not a string holding one: send ["hub", "web"].`},
		{"search", map[string]any{"query": "x", "packages": "hub, web"}, `search: the argument "packages" (only these package aliases) must be an array, not a string: send ["hub", "web"].`},
	} {
		wantError(t, call(t, cs, c.tool, c.args, nil), c.want)
	}
}

// TestRelatedViaExplained (agent21 audit): related's documents carry
// "via":["<link"] or [">link"], whose only explanation was in the output
// schema, which tools/list does not send (no output schemas): a model
// read the marks with no key. The tool's description gives it.
func TestRelatedViaExplained(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "related" && tool.OutputSchema == nil && !(strings.Contains(tool.Description, ">type: the nearer document links to it") && strings.Contains(tool.Description, "<type: it links to the nearer one")) {
			t.Errorf("related's description does not say what via's > and < mean: %q", tool.Description)
		}
	}
}

// TestFindDocumentsRevisionsOnce (agent21): find_documents names each
// package's revision once, not on every document (the same value on each,
// as search's hits had it: round 20's leftover).
func TestFindDocumentsRevisionsOnce(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	res := call(t, cs, "find_documents", map[string]any{"package": "hub"}, nil)
	view := clientView(t, res)
	if res.IsError || strings.Count(view, `"package":"hub"`) < 2 || strings.Contains(view, `"commit"`) || strings.Count(view, strings.Repeat("c3", 6)) != 1 {
		t.Errorf("find_documents: want the revision once for hub's documents: %s", view)
	}
}

// TestLinkToolsTakeReferences (agent21 audit): get_metadata, get_links
// and related take a reference as path, as the document tools do
// (read_relevant's links give ctx:// URIs); they answered a URI with
// "has an empty element (a leading, trailing or double '/'): outside the
// package"). With a reference, package may be left out
// (TestLinkToolsTakeReferenceAlone).
func TestLinkToolsTakeReferences(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	for _, tool := range []string{"get_metadata", "get_links", "related"} {
		for _, ref := range []string{"ctx://packages/hub/rb.md", "@ctx/hub/rb.md"} {
			args := map[string]any{"package": "hub", "path": ref}
			if tool == "related" {
				delete(args, "package")
			}
			res := call(t, cs, tool, args, nil)
			if v := clientView(t, res); res.IsError || !strings.Contains(v, `"path":"rb.md"`) {
				t.Errorf("%s path=%s: %s", tool, ref, v)
			}
		}
	}
	wantError(t, call(t, cs, "get_metadata", map[string]any{"package": "other", "path": "@ctx/hub/rb.md"}, nil), "disagree")
	wantError(t, call(t, cs, "related", map[string]any{"path": "rb.md"}, nil), "give package and path")
}

// TestNoGlobAdviceWithoutGlob (agent21 audit): list_contexts with a prefix
// that matches nothing said "A glob's * never matches /", with no glob.
func TestNoGlobAdviceWithoutGlob(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	res := call(t, cs, "list_contexts", map[string]any{"package": "hub", "prefix": "zzz/"}, nil)
	if v := clientView(t, res); res.IsError || !strings.Contains(v, `matches prefix \"zzz/\"`) || strings.Contains(v, "glob") {
		t.Errorf("prefix only: %s", v)
	}
	res = call(t, cs, "list_contexts", map[string]any{"package": "hub", "glob": "*/zzz.md"}, nil)
	if v := clientView(t, res); res.IsError || !strings.Contains(v, "A glob's * never matches /") {
		t.Errorf("a glob: %s", v)
	}
}

// TestPackagesSayOnlyWhatIsWrong (agent21 audit): list_contexts' packages
// carried "installed":true,"fresh":true on every package, 16% of the
// demo's listing; a package says "missing" or "stale" when it is, and
// nothing when all is well (installed_test and server_test check both).
func TestPackagesSayOnlyWhatIsWrong(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	res := call(t, cs, "list_contexts", map[string]any{}, nil)
	if v := clientView(t, res); res.IsError || !strings.Contains(v, `"alias":"hub"`) || strings.Contains(v, `"installed"`) || strings.Contains(v, `"fresh"`) || strings.Contains(v, `"missing"`) || strings.Contains(v, `"stale"`) {
		t.Errorf("list_contexts, all well: %s", v)
	}
}

// TestLinkToolsTakeReferenceAlone (review21-agent21): get_metadata and
// get_links take a reference as path with no package, as get_document
// and get_section do (README: every tool that takes a document takes the
// URI as path). Their schema required package, so a ctx:// URI alone, as
// a resource link gives it, was refused with "needs the argument
// \"package\"" before the reference was read; and their path's
// description (related's too) did not say a reference is taken.
func TestLinkToolsTakeReferenceAlone(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	for _, tool := range []string{"get_metadata", "get_links"} {
		for _, ref := range []string{"ctx://packages/hub/rb.md", "@ctx/hub/rb.md"} {
			res := call(t, cs, tool, map[string]any{"path": ref}, nil)
			if v := clientView(t, res); res.IsError || !strings.Contains(v, `"path":"rb.md"`) {
				t.Errorf("%s path=%s alone: %s", tool, ref, v)
			}
		}
		wantError(t, call(t, cs, tool, map[string]any{"path": "rb.md"}, nil), "give package and path")
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name != "get_metadata" && tool.Name != "get_links" && tool.Name != "related" {
			continue
		}
		b, _ := json.Marshal(tool.InputSchema)
		if !strings.Contains(string(b), "ctx://packages/") || strings.Contains(string(b), `"required":["package"`) {
			t.Errorf("%s's input schema: %s", tool.Name, b)
		}
	}
}

// TestFindDocumentsSaysLive (review21-agent21): find_documents names a dir
// source's revision "live", as search does (README: find_documents says
// each package's revision once "likewise"); it said nothing, and only its
// output schema, which tools/list does not send, said why.
func TestFindDocumentsSaysLive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "notes", "a.md"), "---\ntags: [otter]\n---\n# A\n\nThe otter.\n")
	cs := indexedNotes(t, dir)
	for _, tool := range []string{"find_documents", "search"} {
		args := map[string]any{"tag": "otter"}
		if tool == "search" {
			args = map[string]any{"query": "otter"}
		}
		res := call(t, cs, tool, args, nil)
		if v := clientView(t, res); res.IsError || !strings.Contains(v, `"revisions":{"notes":"live"}`) {
			t.Errorf("%s: want notes live in revisions: %s", tool, v)
		}
	}
}
