package mcpserver

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/tokens"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"
	"github.com/ctx-dev/ctx/project"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// kindsProject has one package of each kind, each with a document that
// says okapi: git (a commit), https (a sha256: snapshot) and dir (live).
func kindsProject(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "proj")
	ctxDir := filepath.Join(dir, ".context")
	writeFile(t, filepath.Join(ctxDir, project.ManifestName), `{"index":{},"packages":[
  {"alias":"gitpkg","source":"https://example.com/g.git","path":"docs","ref":"main"},
  {"alias":"web","kind":"https","source":"https://docs.example.com/guide.md"},
  {"alias":"notes","kind":"dir","source":"./notes"}
]}`)
	writeFile(t, filepath.Join(ctxDir, "packages", "gitpkg", "api", "okapi.md"), "# Okapi API\n\nThe okapi endpoint.\n\n## Errors\n\nokapi errors.\n")
	writeFile(t, filepath.Join(ctxDir, "packages", "gitpkg", "guide", "okapi.md"), "# Okapi guide\n\nHow to feed an okapi.\n")
	writeFile(t, filepath.Join(ctxDir, "packages", "web", "guide.md"), "# Web guide\n\nThe okapi on the web.\n")
	writeFile(t, filepath.Join(dir, "notes", "okapi notes.md"), "# Notes\n\nOur okapi notes.\n")
	when := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	lock := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{
		"gitpkg": {Source: "https://example.com/g.git", Path: "docs", Ref: "main", Rev: strings.Repeat("ab", 20), Tree: strings.Repeat("cd", 20),
			Hash: "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", Updated: when},
		"web": {Kind: project.KindHTTPS, Source: "https://docs.example.com/guide.md", Rev: "sha256:" + strings.Repeat("ef", 32),
			Hash: "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", URL: "https://docs.example.com/guide.md", Fetched: when, Updated: when},
	}}
	if err := lockfiletest.WriteInstalled(ctxDir, lock); err != nil {
		t.Fatal(err)
	}
	proj, err := project.At(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := proj.ReadManifest()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Sync(context.Background(), ctxDir, proj.Installed(m, lock), indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// links returns an answer's resource links.
func links(res *mcp.CallToolResult) []*mcp.ResourceLink {
	var out []*mcp.ResourceLink
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			out = append(out, l)
		}
	}
	return out
}

// TestProvenance: every search hit and every read names the package, the
// commit its files are from (git: the commit; https: the sha256: snapshot;
// dir: live, none) and the lines, in the structured output or _meta and
// in the text a model reads, and links to the document's resource.
func TestProvenance(t *testing.T) {
	t.Parallel()
	cs := connect(t, kindsProject(t))
	want := map[string]struct {
		commit string
		live   bool
	}{
		"gitpkg": {strings.Repeat("ab", 6), false},
		"web":    {"sha256:" + strings.Repeat("ef", 6), false},
		"notes":  {"", true},
	}
	// search names each package's revision once, in revisions (round 20's
	// leftover: "commit" on every hit was 2-3% of an answer); a hit's is
	// its package's.
	wantRevs := map[string]string{"gitpkg": want["gitpkg"].commit, "web": want["web"].commit, "notes": "live"}
	var out SearchOut
	res := call(t, cs, "search", map[string]any{"query": "okapi"}, &out)
	if res.IsError {
		t.Fatal(text(res))
	}
	seen := map[string]bool{}
	for i, h := range out.Hits {
		seen[h.Package] = true
		if out.Revisions[h.Package] != wantRevs[h.Package] || h.Lines[0] < 1 || h.Lines[1] < h.Lines[0] {
			t.Errorf("hit %+v: want revision %q (got %q), a line range", h, wantRevs[h.Package], out.Revisions[h.Package])
		}
		// The hit names its document once, by package and path; the
		// resource URI search's description gives is made of them and
		// reads it (agent20: a "uri" on every hit was 13-20% of the
		// answer).
		elems := strings.Split(h.Path, "/")
		for j, e := range elems {
			elems[j] = url.PathEscape(e)
		}
		uri := "ctx://packages/" + h.Package + "/" + strings.Join(elems, "/")
		if rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri}); err != nil || len(rr.Contents) != 1 {
			t.Errorf("hit %d: resources/read %s: %v", i, uri, err)
		}
		// The text (the same JSON, jsonAnswer) shows it too.
		if !strings.Contains(text(res), `"path":"`+h.Path+`"`) {
			t.Errorf("text does not name %s: %s", h.Path, text(res))
		}
	}
	if len(seen) != 3 {
		t.Fatalf("hits from %v, want the three packages", seen)
	}
	if len(out.Revisions) != len(wantRevs) {
		t.Errorf("revisions %v, want %v", out.Revisions, wantRevs)
	}
	for _, s := range []string{`"gitpkg":"` + strings.Repeat("ab", 6) + `"`, `"web":"sha256:` + strings.Repeat("ef", 6) + `"`, `"notes":"live"`} {
		if n := strings.Count(text(res), s); n != 1 {
			t.Errorf("search text says %q %d times, want once: %s", s, n, text(res))
		}
	}
	if strings.Contains(text(res), `"commit"`) || strings.Contains(text(res), `"live":`) {
		t.Errorf("a hit repeats its package's revision: %s", text(res))
	}

	// Reads: the same provenance in _meta, the footer and the link.
	for _, c := range []struct {
		tool string
		args map[string]any
		pkg  string
	}{
		{"get_document", map[string]any{"package": "gitpkg", "path": "api/okapi.md"}, "gitpkg"},
		{"get_section", map[string]any{"package": "gitpkg", "path": "api/okapi.md", "heading": "Errors"}, "gitpkg"},
		{"get_document", map[string]any{"path": "@ctx/web/guide.md"}, "web"},
		{"get_section", map[string]any{"package": "notes", "path": "okapi notes.md", "heading": "notes"}, "notes"},
	} {
		var d DocumentOut
		res := call(t, cs, c.tool, c.args, &d)
		if res.IsError {
			t.Fatalf("%s %v: %s", c.tool, c.args, text(res))
		}
		w := want[c.pkg]
		if d.Package != c.pkg || d.Commit != w.commit || d.Live != w.live || d.StartLine < 1 || d.EndLine < d.StartLine || d.TotalLines < d.EndLine {
			t.Errorf("%s %v: _meta %+v", c.tool, c.args, d)
		}
		foot := text(res)[len(d.Text):]
		wantFoot := "commit " + w.commit
		if w.live {
			wantFoot = "live"
		}
		if !strings.Contains(foot, wantFoot) || !strings.Contains(foot, c.pkg+"/") {
			t.Errorf("%s %v: footer %q does not say %q", c.tool, c.args, foot, wantFoot)
		}
		ls := links(res)
		if len(ls) != 1 || ls[0].URI != d.URI || ls[0].URI != docURI(d.Package, d.Path) || ls[0].MIMEType != "text/markdown" {
			t.Errorf("%s %v: links %+v, want one to %s", c.tool, c.args, ls, d.URI)
		}
	}
	// The link is a resource the server serves.
	var d DocumentOut
	res = call(t, cs, "get_document", map[string]any{"package": "notes", "path": "okapi notes.md"}, &d)
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: links(res)[0].URI})
	if err != nil || rr.Contents[0].Text != d.Text {
		t.Errorf("reading the link %s: %v", links(res)[0].URI, err)
	}
}

// TestSearchPathFilter: search's path parameter keeps the hits whose path
// starts with it (spaces allowed, a leading / ignored), with the other
// filters and the query's own path: (both hold).
func TestSearchPathFilter(t *testing.T) {
	t.Parallel()
	cs := connect(t, kindsProject(t))
	for _, c := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"query": "okapi", "path": "api/"}, []string{"gitpkg/api/okapi.md"}},
		{map[string]any{"query": "okapi", "path": "/guide"}, []string{"gitpkg/guide/okapi.md", "web/guide.md"}},
		{map[string]any{"query": "okapi", "path": "guide", "packages": []string{"web"}}, []string{"web/guide.md"}},
		{map[string]any{"query": "okapi", "path": "okapi no"}, []string{"notes/okapi notes.md"}},
		{map[string]any{"query": "okapi path:api", "path": "guide"}, nil},
	} {
		got := searchPaths(t, cs, c.args)
		slices.Sort(got)
		got = slices.Compact(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("search %v: %v, want %v", c.args, got, c.want)
		}
	}
	var out SearchOut
	call(t, cs, "search", map[string]any{"query": "okapi", "path": "nowhere/"}, &out)
	if len(out.Hits) != 0 || !strings.Contains(out.Note, "path") {
		t.Errorf("no hits under nowhere/: %+v, note %q", out.Hits, out.Note)
	}
}

// TestToolSchemas: input schemas have plain arrays (never ["null",
// "array"]) and bounds on their numbers; descriptions and the
// instructions fit in 2 KB; every property of an output schema is
// described.
func TestToolSchemas(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	if n := len(cs.InitializeResult().Instructions); n > 2048 {
		t.Errorf("instructions are %d bytes, over 2 KB", n)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type schema struct {
		Type       any                `json:"type"`
		Items      *schema            `json:"items"`
		Minimum    *float64           `json:"minimum"`
		Maximum    *float64           `json:"maximum"`
		Properties map[string]*schema `json:"properties"`
		Desc       string             `json:"description"`
	}
	decode := func(v any) *schema {
		var s schema
		b, _ := json.Marshal(v)
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		return &s
	}
	bounds := map[string][2]float64{ // a max of 0: none
		"search.limit": {1, MaxSearchLimit}, "search.maxTokens": {0, MaxMaxTokens},
		"get_document.offset": {0, 0}, "get_document.limit": {0, 0}, "get_document.maxTokens": {0, MaxMaxTokens},
		"get_section.offset": {0, 0}, "get_section.maxTokens": {0, MaxMaxTokens},
		"get_overview.maxTokens": {0, MaxMaxTokens},
		"list_contexts.limit":    {0, maxListLimit}, "list_contexts.depth": {0, maxTreeDepth}, "list_contexts.maxTokens": {0, MaxMaxTokens},
		"get_outline.depth": {0, 6}, "get_outline.maxTokens": {0, MaxMaxTokens},
		"list_tags.limit": {0, maxListLimit}, "list_tags.maxTokens": {0, MaxMaxTokens},
		"read_relevant.maxTokens": {0, MaxMaxTokens},
		"find_documents.limit":    {1, indexer.MaxFindLimit},
		"related.hops":            {1, indexer.MaxHops}, "related.maxTokens": {0, MaxMaxTokens},
		"what_changed.maxTokens": {0, MaxMaxTokens},
	}
	arrays := 0
	for _, tool := range res.Tools {
		if n := len(tool.Description); n > 2048 {
			t.Errorf("%s: description of %d bytes, over 2 KB", tool.Name, n)
		}
		in := decode(tool.InputSchema)
		for name, p := range in.Properties {
			key := tool.Name + "." + name
			if _, ok := p.Type.(string); !ok {
				t.Errorf("%s: type %v, want one type", key, p.Type)
			}
			if p.Type == "array" {
				arrays++
			}
			if p.Type != "integer" {
				continue
			}
			b, ok := bounds[key]
			if !ok {
				t.Errorf("%s: an integer with no bounds in this test", key)
				continue
			}
			if p.Minimum == nil || *p.Minimum != b[0] || (b[1] != 0) != (p.Maximum != nil) || (p.Maximum != nil && *p.Maximum != b[1]) {
				t.Errorf("%s: minimum %v, maximum %v; want %v", key, p.Minimum, p.Maximum, b)
			}
			delete(bounds, key)
		}
		if tool.OutputSchema == nil {
			continue
		}
		var walk func(where string, s *schema)
		walk = func(where string, s *schema) {
			for name, p := range s.Properties {
				if p.Desc == "" {
					t.Errorf("%s: output property %s%s has no description", tool.Name, where, name)
				}
				walk(where+name+".", p)
				if p.Items != nil {
					walk(where+name+"[].", p.Items)
				}
			}
		}
		walk("", decode(tool.OutputSchema))
	}
	if arrays < 2 {
		t.Errorf("%d array inputs, want search's packages and tags at least", arrays)
	}
	for key := range bounds {
		t.Errorf("%s: not in the input schema", key)
	}
}

// TestMaxTokens: maxTokens sets the budget of search and the document
// tools (a smaller window, fewer or shorter hits, with a note); out of
// range it is refused.
func TestMaxTokens(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	enc := tokens.Codec()
	if enc == nil {
		t.Fatal("the o200k codec did not load")
	}
	var small, big DocumentOut
	res := call(t, cs, "get_document", map[string]any{"package": "big", "path": "long.md", "maxTokens": 1000}, &small)
	if res.IsError {
		t.Fatal(text(res))
	}
	call(t, cs, "get_document", map[string]any{"package": "big", "path": "long.md"}, &big)
	if !small.Truncated || small.EndLine >= big.EndLine || small.EndLine < 10 {
		t.Errorf("maxTokens 1000: lines %d-%d; default: %d-%d", small.StartLine, small.EndLine, big.StartLine, big.EndLine)
	}
	if n := wireTokens(t, enc, res); n > 800 {
		t.Errorf("maxTokens 1000: %d tokens", n)
	}
	var sec DocumentOut
	call(t, cs, "get_section", map[string]any{"package": "big", "path": "long.md", "heading": "Part 2", "maxTokens": 500}, &sec)
	if sec.Section != "Part 2" || !sec.Truncated || sec.StartLine != 101 || sec.EndLine >= 200 {
		t.Errorf("section within 500 tokens: %+v", sec)
	}
	var ov DocumentOut
	if res := call(t, cs, "get_overview", map[string]any{"maxTokens": 300}, &ov); res.IsError || !ov.Truncated {
		t.Errorf("overview within 300 tokens: %+v %s", ov, text(res))
	}

	var out SearchOut
	res = call(t, cs, "search", map[string]any{"query": "quokka", "limit": 20, "maxTokens": 1000}, &out)
	if res.IsError || len(out.Hits) == 0 || len(out.Hits) >= 20 || !strings.Contains(out.Note, "maxTokens 1000") || !strings.Contains(out.Note, "of 20 hits") {
		t.Errorf("search within 1000 tokens: %d hits, note %q", len(out.Hits), out.Note)
	}
	if !strings.Contains(text(res), out.Note) {
		t.Errorf("the text does not carry the note: %s", text(res))
	}
	if n := wireTokens(t, enc, res); n > 800 {
		t.Errorf("search within 1000 tokens: %d tokens", n)
	}
	// Long snippets are shortened before hits are dropped.
	out = SearchOut{}
	call(t, cs, "search", map[string]any{"query": "zanzibar installer toolchain", "maxTokens": 200}, &out)
	if len(out.Hits) == 0 || !strings.Contains(out.Note, "snippets, heading trails and tags shortened") {
		t.Errorf("search within 200 tokens: %+v, note %q", out.Hits, out.Note)
	}
	for _, h := range out.Hits {
		if len(h.Snippet) > shortSnippetBytes {
			t.Errorf("snippet of %d bytes: %q", len(h.Snippet), h.Snippet)
		}
	}

	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"search", map[string]any{"query": "x", "maxTokens": MaxMaxTokens + 1}},
		{"get_document", map[string]any{"package": "guide", "path": "docs/setup.md", "maxTokens": 0.5}},
		{"get_section", map[string]any{"package": "guide", "path": "docs/setup.md", "heading": "Install", "maxTokens": -1}},
		{"get_overview", map[string]any{"maxTokens": 50000}},
	} {
		wantError(t, call(t, cs, c.tool, c.args, nil), "maxTokens")
	}
	// A budget that leaves nothing for the text says so.
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "guide", "path": "docs/setup.md", "maxTokens": 20}, nil), "maxTokens 20 is too small", "give maxTokens")
}
