package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/tokens"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestToolsAndInstructions(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	if got := cs.InitializeResult().Instructions; !strings.Contains(got, "search") || !strings.Contains(got, "nextOffset") || !strings.Contains(got, "nextCursor") {
		t.Errorf("instructions do not say how to use the tools: %q", got)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"list_contexts": true, "get_overview": true, "search": true, "get_document": true, "get_section": true,
		"get_links": true, "get_metadata": true, "find_documents": true, "related": true, "read_relevant": true,
		"get_outline": true, "list_tags": true, "what_changed": true}
	for _, tool := range res.Tools {
		if !want[tool.Name] {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		delete(want, tool.Name)
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: not annotated read-only", tool.Name)
		}
		if len(tool.Description) < 60 {
			t.Errorf("%s: description too thin for a model: %q", tool.Name, tool.Description)
		}
		// No output schema (addTool): it would cost every model tokens on
		// every turn.
		if tool.InputSchema == nil || tool.OutputSchema != nil {
			t.Errorf("%s: input schema %v, output schema %v", tool.Name, tool.InputSchema != nil, tool.OutputSchema != nil)
		}
	}
	for name := range want {
		t.Errorf("tool %s missing", name)
	}
}

func TestListContexts(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	var out ListContextsOut
	res := call(t, cs, "list_contexts", nil, &out)
	if res.IsError {
		t.Fatal(text(res))
	}
	if len(out.Packages) != 4 || out.Total != 4 {
		t.Fatalf("want 4 packages, got %+v", out.Packages)
	}
	g := out.Packages[2] // sorted: api, big, guide, many
	if g.Alias != "guide" || g.Source != "https://example.com/guide.git" || g.Ref != "main" || g.Commit != strings.Repeat("a1", 6) {
		t.Errorf("guide = %+v", g)
	}
	if g.Documents < 2 || g.Missing || g.Stale || !out.IndexFresh {
		t.Errorf("guide counts/state = %+v (index fresh %v)", g, out.IndexFresh)
	}

	var docs ListContextsOut
	res = call(t, cs, "list_contexts", map[string]any{"package": "guide"}, &docs)
	if res.IsError {
		t.Fatal(text(res))
	}
	var setup *DocInfo
	for i, d := range docs.Documents {
		if d.Path == "docs/setup.md" {
			setup = &docs.Documents[i]
		}
		if strings.HasPrefix(d.Path, ".") || strings.Contains(d.Path, "/.") {
			t.Errorf("hidden file listed: %s", d.Path)
		}
	}
	if setup == nil {
		t.Fatalf("docs/setup.md not listed: %+v", docs.Documents)
	}
	if setup.Title != "Setup guide" || setup.Size != int64(len(setupDoc)) || docs.URIPrefix+setup.Path != "ctx://packages/guide/docs/setup.md" || !setup.Modified.IsZero() { // a git package: no modified (agent20)
		t.Errorf("setup doc = %+v", setup)
	}

	// Paging the documents of a package: pages join up to the whole list.
	seen := map[string]bool{}
	cursor := ""
	for pages := 0; ; pages++ {
		var pg ListContextsOut
		args := map[string]any{"package": "many", "limit": 7}
		if cursor != "" {
			args["cursor"] = cursor
		}
		if res := call(t, cs, "list_contexts", args, &pg); res.IsError {
			t.Fatal(text(res))
		}
		for _, d := range pg.Documents {
			if seen[d.Path] {
				t.Errorf("%s listed twice", d.Path)
			}
			seen[d.Path] = true
		}
		if pg.NextCursor == "" || pages > 20 {
			break
		}
		cursor = pg.NextCursor
	}
	if len(seen) != 60 {
		t.Errorf("paging by 7 saw %d documents, want 60", len(seen))
	}
	var page ListContextsOut
	call(t, cs, "list_contexts", map[string]any{"package": "many", "limit": 25}, &page)
	if len(page.Documents) != 25 || !page.Truncated || page.NextCursor == "" || page.Remaining != 35 || page.Total != 60 {
		t.Errorf("first page: %d docs, truncated %v, next %q, remaining %d", len(page.Documents), page.Truncated, page.NextCursor, page.Remaining)
	}
	next := page.NextCursor
	page = ListContextsOut{}
	call(t, cs, "list_contexts", map[string]any{"package": "many", "limit": 50, "cursor": next}, &page)
	if page.Total != 60 || len(page.Documents) != 35 || page.Truncated || page.NextCursor != "" {
		t.Errorf("last page: total %d, %d docs, truncated %v", page.Total, len(page.Documents), page.Truncated)
	}

	wantError(t, call(t, cs, "list_contexts", map[string]any{"package": "giude"}, nil), "unknown package", `"guide"`)
}

func TestSearch(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	var out SearchOut
	res := call(t, cs, "search", map[string]any{"query": "zanzibar"}, &out)
	if res.IsError {
		t.Fatal(text(res))
	}
	seen := map[string]bool{}
	for _, h := range out.Hits {
		seen[h.Package+"/"+h.Path] = true
		if h.Lines[0] < 1 || h.Lines[1] < h.Lines[0] || h.Score <= 0 {
			t.Errorf("bad hit %+v", h)
		}
	}
	if !seen["guide/docs/setup.md"] || !seen["api/reference.md"] {
		t.Fatalf("zanzibar hits = %+v", out.Hits)
	}
	for _, h := range out.Hits {
		if h.Path == "docs/setup.md" && !strings.Contains(h.Heading, "Install") {
			t.Errorf("heading trail of the setup hit = %q", h.Heading)
		}
	}

	// The package filter is applied.
	call(t, cs, "search", map[string]any{"query": "zanzibar", "packages": []string{"api"}}, &out)
	if len(out.Hits) == 0 {
		t.Fatal("no hits with packages=[api]")
	}
	for _, h := range out.Hits {
		if h.Package != "api" {
			t.Errorf("package filter ignored: %+v", h)
		}
	}
	// The tag filter is applied.
	call(t, cs, "search", map[string]any{"query": "zanzibar", "tags": []string{"onboarding"}}, &out)
	if len(out.Hits) == 0 {
		t.Fatal("no hits with tags=[onboarding]")
	}
	for _, h := range out.Hits {
		if h.Path != "docs/setup.md" {
			t.Errorf("tag filter ignored: %+v", h)
		}
	}
	// A tag no document has is an error that says so (not "no matches").
	wantError(t, call(t, cs, "search", map[string]any{"query": "zanzibar", "tags": []string{"nosuchtag"}}, nil), `tag "nosuchtag": no indexed document has this tag`, "list_tags")

	// Limits: default 10, at most 50.
	call(t, cs, "search", map[string]any{"query": "quokka"}, &out)
	if len(out.Hits) != DefaultSearchLimit {
		t.Errorf("default limit: %d hits", len(out.Hits))
	}
	call(t, cs, "search", map[string]any{"query": "quokka", "limit": 3}, &out)
	if len(out.Hits) != 3 {
		t.Errorf("limit 3: %d hits", len(out.Hits))
	}
	call(t, cs, "search", map[string]any{"query": "quokka", "limit": MaxSearchLimit, "maxTokens": MaxMaxTokens}, &out)
	if len(out.Hits) != MaxSearchLimit {
		t.Errorf("limit %d: %d hits", MaxSearchLimit, len(out.Hits))
	}
	// Over the maximum: the input schema refuses it, naming the limit.
	wantError(t, call(t, cs, "search", map[string]any{"query": "quokka", "limit": 500}, nil), "limit", "50")

	// An agent gets the best passage of each document unless it asks for
	// every passage (allPassages): "padding" is in every section of
	// big/long.md.
	perDoc := func(args map[string]any) (docs, hits int) {
		out = SearchOut{} // more is omitted when 0: not decoded over an old hit
		call(t, cs, "search", args, &out)
		seen := map[string]bool{}
		for _, h := range out.Hits {
			seen[h.Package+"/"+h.Path] = true
		}
		return len(seen), len(out.Hits)
	}
	if docs, hits := perDoc(map[string]any{"query": "padding"}); docs != hits {
		t.Errorf("default search: %d hits from %d documents, want one per document", hits, docs)
	}
	// Its other passages are counted (more), for a search with allPassages
	// and its path to list.
	more := func() int {
		for _, h := range out.Hits {
			if h.Path == "long.md" {
				return h.More
			}
		}
		return -1
	}
	if m := more(); m < 1 {
		t.Errorf("default search: big/long.md's hit has more %d, want its other passages counted", m)
	}
	if docs, hits := perDoc(map[string]any{"query": "padding", "allPassages": true}); hits <= docs {
		t.Errorf("allPassages: %d hits from %d documents, want a document's second passage too", hits, docs)
	}
	if m := more(); m != 0 {
		t.Errorf("allPassages: big/long.md's first hit has more %d, want 0 (every passage is listed)", m)
	}

	wantError(t, call(t, cs, "search", map[string]any{"query": "x", "packages": []string{"gide"}}, nil), "unknown package", `"guide"`)
	wantError(t, call(t, cs, "search", map[string]any{"query": "  "}, nil), "empty query")
}

func TestGetDocument(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	var d DocumentOut
	res := call(t, cs, "get_document", map[string]any{"package": "guide", "path": "docs/setup.md"}, &d)
	if res.IsError {
		t.Fatal(text(res))
	}
	if d.Text != setupDoc || d.TotalLines != strings.Count(setupDoc, "\n") || d.Truncated || d.NextOffset != 0 || d.StartLine != 1 {
		t.Errorf("whole doc: %+v", d)
	}
	if !strings.HasPrefix(text(res), setupDoc) || !strings.Contains(text(res), "lines 1-") {
		t.Errorf("content = %q", text(res))
	}

	// A line window.
	call(t, cs, "get_document", map[string]any{"package": "guide", "path": "docs/setup.md", "offset": 5, "limit": 3}, &d)
	if d.StartLine != 5 || d.EndLine != 7 || !d.Truncated || d.NextOffset != 8 || d.Text != "# Setup\n\nInstall the tools first.\n" {
		t.Errorf("window: %+v", d)
	}
	// A section through get_document.
	call(t, cs, "get_document", map[string]any{"package": "guide", "path": "docs/setup.md", "section": "configure"}, &d)
	if d.Section != "Configure" || d.Text != "## Configure\n\nEdit the config file.\n" {
		t.Errorf("section: %+v", d)
	}
	// A symlink inside the package is followed.
	call(t, cs, "get_document", map[string]any{"package": "guide", "path": "alias.md"}, &d)
	if d.Text != setupDoc {
		t.Errorf("in-package symlink: %q", d.Text)
	}

	// Paging a long document returns all of it, each page under the caps:
	// prose (about 4 bytes a token) and digits (1 byte a token).
	enc := tokens.Codec()
	if enc == nil {
		t.Fatal("the o200k codec did not load")
	}
	for _, name := range []string{"long.md", "digits.md"} {
		want := fixtureFiles()["big/"+name]
		var got strings.Builder
		off, pages := 0, 0
		for {
			args := map[string]any{"package": "big", "path": name}
			if off > 0 {
				args["offset"] = off
			}
			res := call(t, cs, "get_document", args, &d)
			if res.IsError {
				t.Fatal(text(res))
			}
			pages++
			n, _ := enc.Count(d.Text)
			if len(d.Text) > MaxTextBytes || n > MaxTextTokens {
				t.Errorf("%s: page of %d bytes, %d tokens: over the cap", name, len(d.Text), n)
			}
			if d.TotalLines != strings.Count(want, "\n") {
				t.Errorf("%s: totalLines = %d", name, d.TotalLines)
			}
			got.WriteString(d.Text)
			if !d.Truncated {
				break
			}
			if d.NextOffset != d.EndLine+1 || !strings.Contains(text(res), fmt.Sprintf("offset=%d", d.NextOffset)) {
				t.Fatalf("paging hint: %+v / %q", d.NextOffset, text(res)[len(d.Text):])
			}
			off = d.NextOffset
		}
		if got.String() != want || pages < 2 {
			t.Errorf("%s: paging gave %d bytes in %d pages, want %d bytes in ≥2", name, got.Len(), pages, len(want))
		}
	}

	// One line wider than the cap is cut and says so.
	call(t, cs, "get_document", map[string]any{"package": "big", "path": "oneline.md", "offset": 3}, &d)
	if n, _ := enc.Count(d.Text); n > MaxTextTokens || !strings.Contains(d.Note, "cut") {
		t.Errorf("long line: %d bytes, note %q", len(d.Text), d.Note)
	}

	wantError(t, call(t, cs, "get_document", map[string]any{"package": "guide", "path": "docs/setup.md", "offset": 999}, nil), "past the end")
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "guide", "path": "docs/setpu.md"}, nil), "not found", `"docs/setup.md"`)
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "guide", "path": "setup.md"}, nil), "not found", `"docs/setup.md"`)
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "gide", "path": "README.md"}, nil), "unknown package", `"guide"`)
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "guide", "path": "docs/notes.html"}, nil), "not a document", ".md, .markdown, .mdx, .txt, .rst, .adoc, .yaml, .yml, .json and .toml files are served")
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "big", "path": "binary.md"}, nil), "not a text")
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "big", "path": "sub/dir.md"}, nil), "folder")
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "guide", "path": "docs/setup.md", "section": "Instal"}, nil), "no heading", `"Install"`)
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "guide"}, nil))
}

func TestGetSection(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	var d DocumentOut
	res := call(t, cs, "get_section", map[string]any{"package": "guide", "path": "docs/setup.md", "heading": "INSTALL"}, &d)
	if res.IsError {
		t.Fatal(text(res))
	}
	want := "## Install\n\nRun the installer. The word zanzibar is only here. It downloads the toolchain, checks the signature of every archive, unpacks them into the tools folder and adds that folder to the PATH of new shells.\n\n### Linux\n\nUse the package manager.\n"
	if d.Text != want || d.Section != "Install" || d.Truncated {
		t.Errorf("section Install = %+v", d)
	}
	// A top-level section runs to the next top-level heading.
	call(t, cs, "get_section", map[string]any{"package": "guide", "path": "docs/setup.md", "heading": "## setup"}, &d)
	if !strings.HasPrefix(d.Text, "# Setup\n") || !strings.Contains(d.Text, "Edit the config file.") || strings.Contains(d.Text, "Appendix") {
		t.Errorf("section Setup = %q", d.Text)
	}
	// A heading trail from a search hit works.
	call(t, cs, "get_section", map[string]any{"package": "guide", "path": "docs/setup.md", "heading": "Setup > Install > Linux"}, &d)
	if d.Text != "### Linux\n\nUse the package manager.\n" {
		t.Errorf("section by trail = %q", d.Text)
	}
	// The last section runs to the end of the file.
	call(t, cs, "get_section", map[string]any{"package": "guide", "path": "docs/setup.md", "heading": "appendix"}, &d)
	if d.Text != "# Appendix\n\nExtra notes.\n" {
		t.Errorf("section Appendix = %q", d.Text)
	}
	wantError(t, call(t, cs, "get_section", map[string]any{"package": "guide", "path": "docs/setup.md", "heading": "Configur"}, nil), "no heading", `"Configure"`)
	wantError(t, call(t, cs, "get_section", map[string]any{"package": "guide", "path": "docs/setup.md", "heading": ""}, nil), "empty heading")
	wantError(t, call(t, cs, "get_section", map[string]any{"package": "guide", "path": "../x.md", "heading": "x"}, nil), "refused")
}

func TestGetOverview(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	want, err := os.ReadFile(filepath.Join(p.ctxDir, "INDEX.md"))
	if err != nil {
		t.Fatal(err)
	}
	// With maxTokens, the catalogue from the top (with no argument, one
	// this large comes as its outline: TestOverviewFirstAnswerSmall).
	var d DocumentOut
	res := call(t, cs, "get_overview", map[string]any{"maxTokens": DefaultMaxTokens}, &d)
	if res.IsError {
		t.Fatal(text(res))
	}
	if d.Text != string(want) || d.URI != "ctx://index" || len(want) == 0 {
		t.Errorf("overview = %+v", d)
	}
}

func TestResources(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	ctx := context.Background()
	rl, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	uris := map[string]bool{}
	for _, r := range rl.Resources {
		uris[r.URI] = true
	}
	if !uris["ctx://index"] || !uris["ctx://manifest"] {
		t.Errorf("resources = %v", uris)
	}
	tl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.ResourceTemplates) != 2 || tl.ResourceTemplates[0].URITemplate != manifestTemplate || tl.ResourceTemplates[1].URITemplate != docTemplate {
		t.Errorf("templates = %+v", tl.ResourceTemplates)
	}

	idx, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ctx://index"})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(p.ctxDir, "INDEX.md"))
	if idx.Contents[0].Text != string(want) || idx.Contents[0].MIMEType != "text/markdown" {
		t.Errorf("ctx://index = %+v", idx.Contents[0])
	}

	mr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ctx://manifest"})
	if err != nil {
		t.Fatal(err)
	}
	var m Manifest
	if err := json.Unmarshal([]byte(mr.Contents[0].Text), &m); err != nil {
		t.Fatalf("manifest is not JSON: %v", err)
	}
	if m.Lock != "ok" || len(m.Packages) != 4 || m.Packages[2].Alias != "guide" || m.Packages[2].Tree != strings.Repeat("b2", 20) ||
		!m.Packages[2].Installed || !m.Index.Fresh || m.Index.BuiltAt.IsZero() {
		t.Errorf("manifest = %+v", m)
	}

	dr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ctx://packages/guide/docs/setup.md"})
	if err != nil {
		t.Fatal(err)
	}
	if dr.Contents[0].Text != setupDoc {
		t.Errorf("document resource = %q", dr.Contents[0].Text)
	}
	// A document over the cap is cut as get_document cuts it, and says how to read on.
	br, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ctx://packages/big/long.md"})
	if err != nil {
		t.Fatal(err)
	}
	if bt := br.Contents[0].Text; len(bt) > MaxTextBytes+300 || len(bt) >= len(longDoc(3000)) ||
		!strings.HasPrefix(bt, "## Part 1\n") || !strings.Contains(bt, "read on with the get_document tool") || !strings.Contains(bt, "offset ") {
		t.Errorf("long document resource: %d bytes, ends %q", len(bt), bt[max(0, len(bt)-200):])
	}
	for _, uri := range []string{
		"ctx://packages/guide/docs/nope.md",
		"ctx://packages/guide/%2e%2e/%2e%2e/secret.md",
		"ctx://packages/guide/../../secret.md",
		"ctx://packages/guide/escape.md",
		"ctx://packages/guide/.git/config",
		"ctx://packages/nope/README.md",
		"ctx://packages/guide/docs/notes.html",
	} {
		r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err == nil {
			t.Errorf("%s: read %q", uri, r.Contents[0].Text)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%s: error leaks the secret", uri)
		}
	}
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ctx://packages/guide/docs/setpu.md"})
	if err == nil || !strings.Contains(err.Error(), "docs/setup.md") {
		t.Errorf("not found resource: %v (want a did-you-mean)", err)
	}
}

// TestContainment is the matrix of hostile paths: every one is refused with
// isError, and no answer carries a byte of the files outside.
func TestContainment(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	hostile := []string{
		"../x.md",
		"../../secret.md",
		"../api/reference.md",
		"%2e%2e/%2e%2e/secret.md",
		"%2e%2e/trick.md",
		"%252e%252e/secret.md",
		"docs/%2e%2e/%2e%2e/%2e%2e/secret.md",
		"docs/..%2f..%2fsecret.md",
		"/etc/passwd",
		p.outside + "/secret.md",
		"a/../../b.md",
		"docs/../../secret.md",
		"./docs/setup.md",
		"docs//setup.md",
		".git/config",
		".git/../docs/setup.md",
		".hidden/doc.md",
		"escape.md",            // symlink to a file outside
		"outdir/secret.md",     // symlink to a folder outside
		"up.md",                // relative symlink up and out
		"passwd.md",            // symlink to /etc/passwd
		"docs/setup.md\x00.md", // NUL
		"docs/notes.html",      // not a document
		`..\..\secret.md`,      // backslash
		`docs\setup.md`,
		"C:/Windows/win.ini",
		"",
		"docs",
	}
	if len(hostile) < 20 {
		t.Fatal("matrix too small")
	}
	for _, h := range hostile {
		for _, tool := range []string{"get_document", "get_section"} {
			args := map[string]any{"package": "guide", "path": h}
			if tool == "get_section" {
				args["heading"] = "Secret"
			}
			res := call(t, cs, tool, args, nil)
			if !res.IsError {
				t.Errorf("%s %q: not refused: %.200q", tool, h, text(res))
				continue
			}
			if strings.Contains(text(res), secret) || strings.Contains(text(res), "root:") {
				t.Errorf("%s %q: answer leaks outside content: %q", tool, h, text(res))
			}
		}
	}
	// Hostile package aliases.
	for _, a := range []string{"..", "../guide", ".", "guide/../api", "/etc", "guide\x00"} {
		wantError(t, call(t, cs, "get_document", map[string]any{"package": a, "path": "README.md"}, nil))
	}
	// Sanity: the matrix is not refusing everything.
	if res := call(t, cs, "get_document", map[string]any{"package": "guide", "path": "docs/setup.md"}, nil); res.IsError {
		t.Fatal(text(res))
	}
}

func TestPanicBecomesErrorResult(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir, func(s *Server) {
		mcp.AddTool(s.MCP(), &mcp.Tool{Name: "boom", Description: "panics"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			panic("kaboom")
		})
	})
	wantError(t, call(t, cs, "boom", nil, nil), "internal error", "kaboom", "still running")
	if res := call(t, cs, "list_contexts", nil, nil); res.IsError {
		t.Fatalf("server did not survive the panic: %s", text(res))
	}
}

// TestFreshness: a package changed on disk after the index was built (an
// install in another terminal) is re-indexed before the next answer.
func TestFreshness(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	cs := connect(t, p.dir)
	var out SearchOut
	call(t, cs, "search", map[string]any{"query": "okapi"}, &out)
	if len(out.Hits) != 0 {
		t.Fatalf("okapi already there: %+v", out.Hits)
	}
	writeFile(t, filepath.Join(p.ctxDir, "packages", "api", "new.md"), "# New\n\nThe okapi lives here.\n")
	res := call(t, cs, "search", map[string]any{"query": "okapi"}, &out)
	if res.IsError {
		t.Fatal(text(res))
	}
	if len(out.Hits) != 1 || out.Hits[0].Path != "new.md" || out.Warning != "" {
		t.Fatalf("after adding a file: hits %+v, warning %q", out.Hits, out.Warning)
	}
}

// TestFreshnessInPlaceEdit: a file edited in place (no install, so the cheap
// sentinel does not change) is picked up through the background check.
func TestFreshnessInPlaceEdit(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	var srv *Server
	cs := connect(t, p.dir, func(s *Server) { srv = s })
	var out SearchOut
	call(t, cs, "search", map[string]any{"query": "okapi"}, &out) // a full check
	if len(out.Hits) != 0 {
		t.Fatalf("okapi already there: %+v", out.Hits)
	}
	doc := filepath.Join(p.ctxDir, "packages", "guide", "docs", "setup.md")
	fi, err := os.Stat(filepath.Dir(doc))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, doc, setupDoc+"\nThe okapi moved in.\n")
	// Make the last full check old, as if the previous call was a while ago.
	srv.mu.Lock()
	srv.fresh.checkedAt = srv.fresh.checkedAt.Add(-time.Hour)
	srv.mu.Unlock()
	if fi2, _ := os.Stat(filepath.Dir(doc)); !fi2.ModTime().Equal(fi.ModTime()) {
		t.Fatal("editing in place changed the folder")
	}
	// The edit reaches the server through the watch (an event, delivered
	// asynchronously) or, without one, through the background check the
	// first call starts: either way a later call finds it, with no command
	// run. Ask until it does, for a bounded time.
	var res *mcp.CallToolResult
	for deadline := time.Now().Add(10 * time.Second); ; {
		res = call(t, cs, "search", map[string]any{"query": "okapi"}, &out)
		srv.bg.Wait()
		if res.IsError || len(out.Hits) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if res.IsError || len(out.Hits) != 1 || out.Hits[0].Path != "docs/setup.md" {
		t.Fatalf("after an in-place edit: %+v %s", out.Hits, text(res))
	}
}

// TestStaleWarning: when re-indexing fails, answers say they may be stale.
func TestStaleWarning(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	cs := connect(t, p.dir, func(s *Server) {
		s.sync = func(context.Context, string, []indexer.Package, indexer.Options) (*indexer.SyncReport, error) {
			return nil, errors.New("disk full")
		}
	})
	writeFile(t, filepath.Join(p.ctxDir, "packages", "api", "new.md"), "# New\n\nThe okapi lives here.\n")
	var out SearchOut
	res := call(t, cs, "search", map[string]any{"query": "widgets"}, &out)
	if res.IsError {
		t.Fatal(text(res))
	}
	if !strings.Contains(out.Warning, "stale") || !strings.Contains(out.Warning, "api") || !strings.Contains(out.Warning, "disk full") {
		t.Errorf("warning = %q", out.Warning)
	}
	var lc ListContextsOut
	call(t, cs, "list_contexts", nil, &lc)
	if lc.IndexFresh || !lc.Packages[0].Stale || lc.Packages[2].Stale || !strings.Contains(lc.Warning, "stale") {
		t.Errorf("list_contexts freshness = %+v", lc)
	}
}

func TestEmptyProject(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cs := connect(t, dir)
	var lc ListContextsOut
	res := call(t, cs, "list_contexts", nil, &lc)
	if res.IsError || len(lc.Packages) != 0 || !strings.Contains(lc.Warning, "ctx add") {
		t.Errorf("list_contexts on an empty project: %+v %s", lc, text(res))
	}
	wantError(t, call(t, cs, "search", map[string]any{"query": "x"}, nil), "ctx add")
	wantError(t, call(t, cs, "get_overview", nil, nil), "INDEX.md")
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "a", "path": "b.md"}, nil), "ctx add")
	if _, err := os.Stat(filepath.Join(dir, ".context")); !os.IsNotExist(err) {
		t.Errorf("the server created .context in an empty project: %v", err)
	}
}

// TestConcurrentCalls runs calls in parallel while a package changes on
// disk (run with -race).
func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	cs := connect(t, p.dir)
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 5 {
				var res *mcp.CallToolResult
				var err error
				switch (i + j) % 3 {
				case 0:
					res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "quokka"}})
				case 1:
					res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_section", Arguments: map[string]any{"package": "guide", "path": "docs/setup.md", "heading": "install"}})
				default:
					res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_contexts"})
				}
				if err != nil {
					errs <- err.Error()
				} else if res.IsError {
					errs <- text(res)
				}
			}
		}()
	}
	writeFile(t, filepath.Join(p.ctxDir, "packages", "many", "extra.md"), "# Extra\n\nquokka again\n")
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	var out SearchOut
	call(t, cs, "search", map[string]any{"query": "quokka", "limit": 50}, &out)
	found := false
	for _, h := range out.Hits {
		found = found || h.Path == "extra.md"
	}
	if !found {
		t.Errorf("extra.md not found after the concurrent calls: %d hits", len(out.Hits))
	}
}
