package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"
)

// What an agent reads (agent18): the JSON a client shows the model must
// hold what the agent needs, once.

// agentViewProject is a project of one package "hub": a document with
// manyLinks external links and one link to a page, a page three
// documents link to, a lone document with no link either way, and two
// documents with front matter.
func agentViewProject(t *testing.T, manyLinks int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "proj")
	ctxDir := filepath.Join(dir, ".context")
	pk := filepath.Join(ctxDir, "packages", "hub")
	var many strings.Builder
	many.WriteString("# Many links\n\nSee [the page](page.md).\n\n")
	for i := range manyLinks {
		fmt.Fprintf(&many, "- [release note %d](https://example.com/releases/v1.%d.0/notes)\n", i, i)
	}
	files := map[string]string{
		"many.md":  many.String(),
		"page.md":  "# Page\n\nA page.\n",
		"a.md":     "# A\n\n[page](page.md)\n",
		"b.md":     "# B\n\n[page](page.md)\n",
		"lone.md":  "# Lone\n\nNo links at all.\n",
		"rb.md":    "---\ntitle: Roll back\nsummary: Return to the last good release.\ntags: [deploy, incident]\ntype: runbook\nowner: sre\n---\n# Roll back\n\nSteps.\n",
		"rb2.md":   "---\ntitle: Deploy\ntype: runbook\nstatus: active\n---\n# Deploy\n\nSteps.\n",
		"notes.md": "# Notes\n\nPlain.\n",
		"desc.md":  "---\ndescription: How the page links back.\naudience: ops\n---\n# Desc\n\n[a](a.md) and [b](b.md).\n",
	}
	for rel, content := range files {
		writeFile(t, filepath.Join(pk, rel), content)
	}
	lock := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{
		"hub": {Source: "https://example.com/hub.git", Ref: "main", Rev: strings.Repeat("c3", 20), Tree: strings.Repeat("d4", 20),
			Hash: "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", Updated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
	}}
	if err := lockfiletest.WriteInstalled(ctxDir, lock); err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Sync(context.Background(), ctxDir, lockPackages(ctxDir, lock), indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// structured is a result's structuredContent as generic JSON.
func structured(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestGetLinksPages: a document with more links than the default budget
// holds is read whole over MCP, page by page (cursor = nextCursor), and no
// row repeats the document asked about: a link has no "from", a backlink
// no "to".
func TestGetLinksPages(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 600))
	seen := map[string]bool{}
	args := map[string]any{"package": "hub", "path": "many.md"}
	for page := 0; ; page++ {
		if page > 20 {
			t.Fatal("no end after 20 pages")
		}
		var out GetLinksOut
		res := call(t, cs, "get_links", args, &out)
		if res.IsError {
			t.Fatalf("get_links %v: %s", args, text(res))
		}
		raw := structured(t, res.StructuredContent)
		for _, l := range raw["links"].([]any) {
			m := l.(map[string]any)
			if _, ok := m["from"]; ok {
				t.Fatalf("a link repeats the document it is in: %v", m)
			}
			seen[m["target"].(string)] = true
		}
		if out.NextCursor == "" {
			if out.Truncated {
				t.Errorf("last page truncated: %s", out.Note)
			}
			break
		}
		if !strings.Contains(out.Note, "cursor = nextCursor") {
			t.Errorf("the note does not say how to read on: %q", out.Note)
		}
		args["cursor"] = out.NextCursor
	}
	if len(seen) != 601 {
		t.Errorf("read %d distinct links over the pages, want 601", len(seen))
	}

	res := call(t, cs, "get_links", map[string]any{"package": "hub", "path": "page.md"}, nil)
	raw := structured(t, res.StructuredContent)
	back := raw["backlinks"].([]any)
	if len(back) != 3 {
		t.Fatalf("page.md backlinks: %s", text(res))
	}
	for _, l := range back {
		m := l.(map[string]any)
		if _, ok := m["to"]; ok {
			t.Errorf("a backlink repeats the document it leads to: %v", m)
		}
		if _, ok := m["from"]; !ok {
			t.Errorf("a backlink without its document: %v", m)
		}
	}
}

// TestGetLinksCursorIndexChanged: get_links pages with an opaque cursor
// tied to the links it pages; when the document's links change between
// pages (the index is live), the next page is refused with what happened
// and what to do, not sent with links repeated or skipped.
func TestGetLinksCursorIndexChanged(t *testing.T) {
	t.Parallel()
	before := connect(t, agentViewProject(t, 600))
	after := connect(t, agentViewProject(t, 601)) // many.md with one link more
	args := map[string]any{"package": "hub", "path": "many.md"}
	res := call(t, before, "get_links", args, nil)
	raw := structured(t, res.StructuredContent)
	next, ok := raw["nextCursor"].(string)
	if res.IsError || !ok || next == "" {
		t.Fatalf("get_links many.md, first page: no nextCursor in %.300s", text(res))
	}
	if !strings.Contains(raw["note"].(string), "nextCursor") {
		t.Errorf("the note does not say how to read on: %q", raw["note"])
	}
	args["cursor"] = next
	// The same index: the next page.
	if res := call(t, before, "get_links", args, nil); res.IsError {
		t.Fatalf("get_links with its own cursor: %s", text(res))
	}
	// The links changed: refused, with what to do.
	wantError(t, call(t, after, "get_links", args, nil), "many.md", "changed", "without cursor")
	// Another document's cursor, or one this server did not give.
	wantError(t, call(t, before, "get_links", map[string]any{"package": "hub", "path": "page.md", "cursor": next}, nil), "another listing")
	wantError(t, call(t, before, "get_links", map[string]any{"package": "hub", "path": "page.md", "cursor": "bm9wZQ"}, nil), "not one this server gave")
}

// TestFindDocumentsEmptySaysWhy: a filter that matches nothing says so,
// and names a field no document has, with the field it may be a typo of.
func TestFindDocumentsEmptySaysWhy(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	var out FindDocumentsOut
	res := call(t, cs, "find_documents", map[string]any{"where": map[string]any{"tpye": "runbook"}}, &out)
	if res.IsError || out.Total != 0 {
		t.Fatalf("find_documents tpye: %s", text(res))
	}
	for _, want := range []string{"no document matches", `no document has the field "tpye"`, "did you mean type"} {
		if !strings.Contains(out.Note, want) {
			t.Errorf("note %q does not say %q", out.Note, want)
		}
	}
	out = FindDocumentsOut{}
	res = call(t, cs, "find_documents", map[string]any{"where": map[string]any{"type": "nosuch"}}, &out)
	if res.IsError || out.Total != 0 || !strings.Contains(out.Note, "no document matches") || strings.Contains(out.Note, "no document has the field") {
		t.Errorf("find_documents type=nosuch: note %q", out.Note)
	}
	out = FindDocumentsOut{}
	res = call(t, cs, "find_documents", map[string]any{"where": map[string]any{"type": "runbook"}}, &out)
	if res.IsError || out.Total != 2 || out.Note != "" {
		t.Errorf("find_documents type=runbook: %s", text(res))
	}
	// The fields looked at are those of the documents the call's other
	// filters keep: rb2.md has status, but no document tagged deploy does.
	out = FindDocumentsOut{}
	res = call(t, cs, "find_documents", map[string]any{"tag": "deploy", "where": map[string]any{"status": "active"}}, &out)
	if res.IsError || out.Total != 0 {
		t.Fatalf("find_documents tag=deploy status=active: %s", text(res))
	}
	for _, want := range []string{`no document tagged deploy has the field "status"`, "fields in use: owner,"} {
		if !strings.Contains(out.Note, want) {
			t.Errorf("tag deploy, status: note %q does not say %q", out.Note, want)
		}
	}
	if strings.Contains(out.Note, "try other values") {
		t.Errorf("tag deploy, status: note %q sends the agent to other values of a field no document of the tag has", out.Note)
	}
}

// TestMetaNotRepeated: get_metadata's and find_documents' front matter
// (meta) leaves out what the answer already gives as title, summary, tags
// and type, and keeps the rest.
func TestMetaNotRepeated(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	res := call(t, cs, "get_metadata", map[string]any{"package": "hub", "path": "rb.md"}, nil)
	m := structured(t, res.StructuredContent)
	meta, _ := m["meta"].(map[string]any)
	if m["title"] != "Roll back" || m["type"] != "runbook" || meta["owner"] != "sre" {
		t.Fatalf("get_metadata: %s", text(res))
	}
	for _, k := range []string{"title", "summary", "tags", "type"} {
		if _, ok := meta[k]; ok {
			t.Errorf("get_metadata: meta repeats %s: %v", k, meta)
		}
	}
	res = call(t, cs, "find_documents", map[string]any{"where": map[string]any{"type": "runbook"}}, nil)
	docs := structured(t, res.StructuredContent)["documents"].([]any)
	if len(docs) != 2 {
		t.Fatalf("find_documents: %s", text(res))
	}
	for _, d := range docs {
		meta, _ := d.(map[string]any)["meta"].(map[string]any)
		for _, k := range []string{"title", "summary", "tags", "type"} {
			if _, ok := meta[k]; ok {
				t.Errorf("find_documents: meta repeats %s: %v", k, meta)
			}
		}
	}
	// description is the summary when there is no summary: not repeated.
	res = call(t, cs, "get_metadata", map[string]any{"package": "hub", "path": "desc.md"}, nil)
	m = structured(t, res.StructuredContent)
	meta, _ = m["meta"].(map[string]any)
	if m["summary"] != "How the page links back." || meta["audience"] != "ops" {
		t.Fatalf("get_metadata desc.md: %s", text(res))
	}
	if _, ok := meta["description"]; ok {
		t.Errorf("get_metadata desc.md: meta repeats the summary as description: %v", meta)
	}
	// A field the filter names is still matched in the front matter.
	var out FindDocumentsOut
	if res := call(t, cs, "find_documents", map[string]any{"where": map[string]any{"owner": "sre"}}, &out); res.IsError || out.Total != 1 {
		t.Errorf("find_documents owner=sre: %s", text(res))
	}
}

// TestRelatedSaysWhy: related with no neighbours says why and what to do
// instead; one cut to fit says how many are left out and how to see them.
func TestRelatedSaysWhy(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	var rel RelatedOut
	res := call(t, cs, "related", map[string]any{"package": "hub", "path": "lone.md"}, &rel)
	if res.IsError || rel.Total != 0 || !strings.Contains(rel.Note, "no document links to or from lone.md") || !strings.Contains(rel.Note, "search") {
		t.Errorf("related lone.md: %s", text(res))
	}
	res = call(t, cs, "related", map[string]any{"package": "hub", "path": "page.md", "maxTokens": 120}, &rel)
	if res.IsError || !rel.Truncated || !strings.Contains(rel.Note, fmt.Sprintf("of %d", rel.Total)) || !strings.Contains(rel.Note, "maxTokens") {
		t.Errorf("related page.md cut: %s", text(res))
	}
	// Scores are shown as search shows them: three decimals, not the
	// 17 digits of a float64.
	res = call(t, cs, "related", map[string]any{"query": "page"}, &rel)
	scored := 0
	for _, d := range rel.Documents {
		if d.Score != 0 {
			scored++
		}
		if d.Score != math.Round(d.Score*1000)/1000 {
			t.Errorf("related page: %s's score %v has more than three decimals", d.Path, d.Score)
		}
	}
	if res.IsError || scored == 0 {
		t.Errorf("related page: no neighbour with a score: %s", text(res))
	}
}

// TestAnnotationsLean: every tool is read-only and idempotent, and sends
// no hint the spec reads only for a tool that is not read-only
// (destructiveHint), which tools/list would pay for on every turn.
func TestAnnotationsLean(t *testing.T) {
	t.Parallel()
	cs := connect(t, sharedProject(t).dir)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		b, _ := json.Marshal(tool.Annotations)
		a := string(b)
		if !strings.Contains(a, `"readOnlyHint":true`) || strings.Contains(a, "destructiveHint") || strings.Contains(a, `"idempotentHint":false`) {
			t.Errorf("%s annotations: %s", tool.Name, a)
		}
	}
}

// TestHitsNameTheirDocumentOnce (agent20): a search hit and a related
// document name their document by package and path, which every document
// tool takes, and carry no "uri" that repeats them (13-20% of those
// answers); search's description gives the resource URI's form once.
// get_metadata and get_outline do not echo one for the document asked
// about either.
func TestHitsNameTheirDocumentOnce(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	for _, c := range []struct {
		tool, list string
		args       map[string]any
	}{
		{"search", "hits", map[string]any{"query": "page"}},
		{"related", "documents", map[string]any{"package": "hub", "path": "page.md"}},
	} {
		res := call(t, cs, c.tool, c.args, nil)
		items, _ := structured(t, res.StructuredContent)[c.list].([]any)
		if res.IsError || len(items) == 0 {
			t.Fatalf("%s: %s", c.tool, text(res))
		}
		for _, it := range items {
			m := it.(map[string]any)
			if _, ok := m["uri"]; ok || m["package"] != "hub" || m["path"] == "" {
				t.Errorf("%s: item %v: want package and path, no uri", c.tool, m)
			}
		}
	}
	for _, tool := range []string{"get_metadata", "get_outline"} {
		res := call(t, cs, tool, map[string]any{"package": "hub", "path": "page.md"}, nil)
		if m := structured(t, res.StructuredContent); res.IsError || m["path"] != "page.md" || m["uri"] != nil {
			t.Errorf("%s: want path, no uri: %s", tool, text(res))
		}
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "search" && !strings.Contains(tool.Description, "ctx://packages/<package>/<path>") {
			t.Errorf("search's description does not give the resource URI of a hit: %s", tool.Description)
		}
	}
}

// TestUnknownArgumentNamesTheArguments (agent20): a call with an argument
// the tool does not take says which, what the tool takes, and the nearest
// to a typo; the SDK's words ("validating root: unexpected additional
// properties") named neither.
func TestUnknownArgumentNamesTheArguments(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "hub", "file": "page.md"}, nil),
		`get_document does not take the argument "file"; it takes package, path, offset, limit, section, maxTokens.`)
	wantError(t, call(t, cs, "search", map[string]any{"qurey": "page", "limt": 3}, nil),
		`search does not take the arguments "limt" and "qurey" (did you mean limit or query?); it takes query,`)
	wantError(t, call(t, cs, "get_overview", map[string]any{"offset": 7}, nil),
		`get_overview does not take the argument "offset"; it takes package, cursor, maxTokens.`)
	// A name ctx did not choose is quoted within bounds (safetext.Quote;
	// review20-agent20: a 3,000-byte name was echoed whole).
	long := strings.Repeat("x", 3000)
	res := call(t, cs, "get_overview", map[string]any{long: 1}, nil)
	wantError(t, res, `get_overview does not take the argument "xxx`, "…(2800 more bytes); it takes package, cursor, maxTokens.")
	if n := len(text(res)); n > 400 {
		t.Errorf("the error of a 3,000-byte argument name is %d bytes", n)
	}
}

// TestMetaShownLean (agent20): get_metadata and find_documents show a
// revision short, as every other tool does (they showed its 40 digits on
// every document), and leave out front-matter fields that are null.
func TestMetaShownLean(t *testing.T) {
	t.Parallel()
	dir := agentViewProject(t, 1)
	ctxDir := filepath.Join(dir, ".context")
	writeFile(t, filepath.Join(ctxDir, "packages", "hub", "kep.md"), "---\ntitle: A KEP\nstatus: implementable\nreplaces: null\nsee-also:\n---\n# A KEP\n\nText.\n")
	lock := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{ // agentViewProject's
		"hub": {Source: "https://example.com/hub.git", Ref: "main", Rev: strings.Repeat("c3", 20), Tree: strings.Repeat("d4", 20),
			Hash: "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", Updated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
	}}
	if _, err := indexer.Sync(context.Background(), ctxDir, lockPackages(ctxDir, lock), indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, dir)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_metadata", map[string]any{"package": "hub", "path": "kep.md"}},
		{"find_documents", map[string]any{"where": map[string]any{"status": "implementable"}}},
	} {
		res := call(t, cs, c.tool, c.args, nil)
		view := clientView(t, res)
		// get_metadata's one document says "commit"; find_documents says
		// each package's once, in revisions (agent21).
		rev := `"commit":"` + strings.Repeat("c3", 6) + `"`
		if c.tool == "find_documents" {
			rev = `"revisions":{"hub":"` + strings.Repeat("c3", 6) + `"}`
		}
		if res.IsError || !strings.Contains(view, `"status":"implementable"`) || !strings.Contains(view, rev) ||
			strings.Contains(view, strings.Repeat("c3", 7)) || strings.Contains(view, "null") || strings.Contains(view, "replaces") {
			t.Errorf("%s: want a 12-digit commit and no null field: %s", c.tool, view)
		}
	}
}
