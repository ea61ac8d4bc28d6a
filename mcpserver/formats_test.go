package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const formatsKEP = `title: Graceful node shutdown
kep-number: 2000
authors:
  - "@bobbypage"
  - "@mrunalp"
  - "@wzshiming"
  - "@kwilczynski"
feature-gates:
  - name: GracefulNodeShutdown
    components:
      - kubelet
milestone:
  alpha: "v1.20"
  beta: "v1.21"
  stable: "v1.28"
`

const formatsRST = `=====
Guide
=====

Install
=======

Run the installer.

Configure
=========

Edit the file.
`

// TestServeFormats: documents of every format are served read-only by
// get_document, get_section (an rst title, an AsciiDoc title, a YAML key)
// and the resource template, with their media type; search hits in them
// name lines that get_document serves.
func TestServeFormats(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "proj")
	ctxDir := filepath.Join(dir, ".context")
	files := map[string]string{
		"README.md":             "# Specs\n\nThe specs package.\n",
		"keps/2000/kep.yaml":    formatsKEP,
		"api/openapi.json":      "{\n  \"openapi\": \"3.1.0\",\n  \"info\": {\"title\": \"Pets\"},\n  \"paths\": {\n    \"/pets\": {\"get\": {\"operationId\": \"listPets\"}}\n  }\n}\n",
		"guide.rst":             formatsRST,
		"manual.adoc":           "= Manual\n\n== Backups\n\nNightly snapshots.\n\n== Restore\n\nFrom the latest snapshot.\n",
		"Cargo.toml":            "[package]\nname = \"demo\"\n\n[dependencies]\nserde = \"1\"\n",
		"notes.txt":             "Plain notes.\n",
		"page.html":             "<p>not a document " + secret + "</p>\n",
		".github/workflows.yml": "name: " + secret + "\n",
	}
	for rel, content := range files {
		writeFile(t, filepath.Join(ctxDir, "packages", "specs", filepath.FromSlash(rel)), content)
	}
	lock := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{"specs": {
		Source: "https://example.com/specs.git", Path: "docs", Ref: "main",
		Rev: strings.Repeat("a1", 20), Tree: strings.Repeat("b2", 20),
		Hash: "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", Updated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	}}}
	if err := lockfiletest.WriteInstalled(ctxDir, lock); err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Sync(context.Background(), ctxDir, lockPackages(ctxDir, lock), indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, dir)

	// Whole documents.
	for _, p := range []string{"keps/2000/kep.yaml", "api/openapi.json", "guide.rst", "manual.adoc", "Cargo.toml", "notes.txt"} {
		var d DocumentOut
		res := call(t, cs, "get_document", map[string]any{"package": "specs", "path": p}, &d)
		if res.IsError || d.Text != files[p] || d.TotalLines != strings.Count(files[p], "\n") {
			t.Errorf("get_document %s: %q (%+v)", p, text(res), d)
		}
	}
	// Sections by rst title, AsciiDoc title, YAML key, JSON key, TOML table.
	for _, c := range []struct{ path, heading, want string }{
		{"guide.rst", "Guide > Install", "Install\n=======\n\nRun the installer.\n"},
		{"manual.adoc", "backups", "== Backups\n\nNightly snapshots.\n"},
		{"keps/2000/kep.yaml", "feature-gates", "feature-gates:\n  - name: GracefulNodeShutdown\n    components:\n      - kubelet\n"},
		{"api/openapi.json", "info", "  \"info\": {\"title\": \"Pets\"},\n"},
		{"Cargo.toml", "dependencies", "[dependencies]\nserde = \"1\"\n"},
	} {
		var d DocumentOut
		res := call(t, cs, "get_section", map[string]any{"package": "specs", "path": c.path, "heading": c.heading}, &d)
		if res.IsError || d.Text != c.want {
			t.Errorf("get_section %s %q = %q, want %q", c.path, c.heading, text(res), c.want)
		}
	}
	wantError(t, call(t, cs, "get_section", map[string]any{"package": "specs", "path": "keps/2000/kep.yaml", "heading": "milestones"}, nil), "no heading", `"milestone"`)

	// A search hit's lines are served by get_document: a kep.yaml's short
	// keys are one chunk, named for its first key.
	var out SearchOut
	if res := call(t, cs, "search", map[string]any{"query": "GracefulNodeShutdown kubelet feature gate"}, &out); res.IsError || len(out.Hits) == 0 {
		t.Fatalf("search: %s", text(res))
	}
	h := out.Hits[0]
	if h.Path != "keps/2000/kep.yaml" || h.Heading != "title" || h.Lines != [2]int{1, 15} {
		t.Errorf("search hit = %+v, want kep.yaml title lines 1-15", h)
	}
	var d DocumentOut
	call(t, cs, "get_document", map[string]any{"package": "specs", "path": h.Path, "offset": h.Lines[0], "limit": h.Lines[1] - h.Lines[0] + 1}, &d)
	if d.Text != formatsKEP {
		t.Errorf("the hit's lines = %q, want the whole kep.yaml", d.Text)
	}

	// get_outline lists an rst file's titles and a YAML file's keys, with
	// the lines get_section serves.
	var ol GetOutlineOut
	if res := call(t, cs, "get_outline", map[string]any{"package": "specs", "path": "guide.rst"}, &ol); res.IsError {
		t.Fatalf("get_outline: %s", text(res))
	}
	var got []string
	for _, h := range ol.Headings {
		got = append(got, fmt.Sprintf("%d %s %d-%d", h.Level, h.Heading, h.Line, h.EndLine))
	}
	if want := "1 Guide 1-13|2 Install 5-8|2 Configure 10-13"; strings.Join(got, "|") != want {
		t.Errorf("get_outline guide.rst = %q, want %q", strings.Join(got, "|"), want)
	}
	call(t, cs, "get_outline", map[string]any{"package": "specs", "path": "keps/2000/kep.yaml"}, &ol)
	if len(ol.Headings) != 5 || ol.Headings[3].Heading != "feature-gates" || ol.Headings[3].Line != 8 || ol.Headings[3].EndLine != 11 {
		t.Errorf("get_outline kep.yaml = %+v, want its 5 keys, feature-gates at lines 8-11", ol.Headings)
	}

	// The tools' resource links carry the format's media type too.
	res := call(t, cs, "get_document", map[string]any{"package": "specs", "path": "Cargo.toml"}, nil)
	links := 0
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			links++
			if l.MIMEType != "application/toml" {
				t.Errorf("get_document Cargo.toml links %s as %q, want application/toml", l.URI, l.MIMEType)
			}
		}
	}
	if links == 0 {
		t.Error("get_document Cargo.toml: no resource link")
	}

	// resources/list gives each document its format's media type.
	rl, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	mimes := map[string]string{}
	for _, r := range rl.Resources {
		mimes[r.URI] = r.MIMEType
	}
	if m := mimes["ctx://packages/specs/keps/2000/kep.yaml"]; m != "application/yaml" {
		t.Errorf("resources/list: kep.yaml is %q, want application/yaml", m)
	}
	if _, ok := mimes["ctx://packages/specs/page.html"]; ok {
		t.Error("resources/list lists page.html, which is not a document")
	}

	// Resources carry the format's media type.
	for p, mime := range map[string]string{
		"keps/2000/kep.yaml": "application/yaml", "api/openapi.json": "application/json", "Cargo.toml": "application/toml",
		"guide.rst": "text/x-rst", "manual.adoc": "text/asciidoc", "notes.txt": "text/plain", "README.md": "text/markdown",
	} {
		r, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "ctx://packages/specs/" + p})
		if err != nil {
			t.Errorf("resource %s: %v", p, err)
			continue
		}
		if c := r.Contents[0]; c.MIMEType != mime || c.Text != files[p] {
			t.Errorf("resource %s: %s %q, want %s and the file", p, c.MIMEType, c.Text, mime)
		}
	}

	// Other extensions and hidden files stay refused.
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "specs", "path": "page.html"}, nil),
		`"page.html" is not a document: only .md, .markdown, .mdx, .txt, .rst, .adoc, .yaml, .yml, .json and .toml files are served`)
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "specs", "path": ".github/workflows.yml"}, nil))
	var ov DocumentOut
	call(t, cs, "get_overview", nil, &ov)
	for _, want := range []string{"`keps/2000/kep.yaml`", "`api/openapi.json`", "`guide.rst`", "`manual.adoc`", "`Cargo.toml`", "`notes.txt`"} {
		if !strings.Contains(ov.Text, want) {
			t.Errorf("overview lacks %s:\n%s", want, ov.Text)
		}
	}
	if strings.Contains(ov.Text, "page.html") || strings.Contains(ov.Text, "workflows.yml") {
		t.Errorf("overview lists a file that is not a document:\n%s", ov.Text)
	}
}
