package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/tokens"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tiktoken-go/tokenizer"
)

// adversarialDocs are documents that are expensive in tokens: emoji and
// CJK (several tokens a character), JSON and HTML (punctuation, and < > &
// that json.Marshal would escape), a 1 MB single line, a long table, a
// huge front matter and heading, thousands of links. Every one holds the
// word zebra, so that one search finds them all.
func adversarialDocs() map[string]string {
	var emoji, cjk, js, html, table, links strings.Builder
	emoji.WriteString("# Emoji 🦓 zebra\n\n")
	cjk.WriteString("# 中文文档 zebra\n\n")
	js.WriteString("# JSON zebra\n\n```json\n[\n")
	html.WriteString("# HTML zebra\n\n")
	table.WriteString("# Table zebra\n\n| zebra | html | emoji |\n|---|---|---|\n")
	links.WriteString("# Links zebra\n\n")
	for i := range 2000 {
		if i%100 == 0 {
			fmt.Fprintf(&emoji, "## Part %d 🦓🎉\n\n", i/100)
			fmt.Fprintf(&cjk, "## 第%d部分\n\n", i/100)
			fmt.Fprintf(&html, "## <Part %d> & more\n\n", i/100)
		}
		emoji.WriteString("zebra " + strings.Repeat("👩‍👩‍👧‍👦🏳️‍🌈🧑🏽‍💻🎉", 8) + "\n")
		cjk.WriteString("斑马在草原上奔跑，它们的条纹独一无二。研究人员认为条纹可以驱赶蚊虫。zebra\n")
		fmt.Fprintf(&js, `  {"id": %d, "name": "zebra <%d> & \"stripes\"", "html": "<b>bold</b> &amp; <i>it</i>", "nested": {"a": [1, 2, 3], "b": null}},`+"\n", i, i)
		fmt.Fprintf(&html, `<div class="row-%d"><a href="/zebra?a=1&b=2">zebra &amp; &lt;tag&gt;</a><span data-x='{"k":"<v>"}'>%d</span></div>`+"\n", i, i)
		fmt.Fprintf(&table, "| zebra %d | <b>x</b> & <i>y</i> | 🦓🎉 |\n", i)
		fmt.Fprintf(&links, "See [emoji %d](emoji.md), [[cjk]], [the table](table.md#zebra-%d) and [gone](missing-%d.md).\n", i, i, i)
	}
	js.WriteString("  {}\n]\n```\n")
	one := strings.Repeat(`zebra {"k":"<v>"} & 斑马 🦓 `, 1<<20/40)
	var tags []string
	for i := range 3000 {
		tags = append(tags, fmt.Sprintf("tag-%d-<zebra>", i))
	}
	meta := "---\ntitle: \"" + strings.Repeat("Zebra <title> & ", 200) + "\"\ntags: [" + strings.Join(tags, ", ") + "]\nnotes: \"" +
		strings.Repeat("a long note <with> & markup ", 8000) + "\"\n---\n# " + strings.Repeat("Zebra heading <h> & ", 300) + "\n\nzebra body.\n"
	return map[string]string{
		"adv/emoji.md":   emoji.String(),
		"adv/cjk.md":     cjk.String(),
		"adv/json.md":    js.String(),
		"adv/html.md":    html.String(),
		"adv/oneline.md": "# One line zebra\n\n" + one + "\n",
		"adv/table.md":   table.String(),
		"adv/meta.md":    meta,
		"adv/links.md":   links.String(),
	}
}

// adversarialProject is a project whose one package, adv, holds
// adversarialDocs: one for the package, built once, which its tests only
// read (checkShared).
func adversarialProject(t *testing.T) string {
	t.Helper()
	return sharedDir(t, &adversarialShared, adversarialProjectIn)
}

// adversarialShared is adversarialProject's project, built once: the
// tests that use it only read it (checked at the end: checkShared).
var adversarialShared = sharedFixture[string]{name: "adversarialProject"}

// adversarialProjectIn writes adversarialProject's project at dir.
func adversarialProjectIn(t testing.TB, dir string) {
	t.Helper()
	ctxDir := filepath.Join(dir, ".context")
	docs := adversarialDocs()
	for rel, content := range docs {
		writeFile(t, filepath.Join(ctxDir, "packages", filepath.FromSlash(rel)), content)
	}
	lock := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{"adv": {
		Source: "https://example.com/adv.git", Path: "docs", Ref: "main",
		Rev: strings.Repeat("c3", 20), Tree: strings.Repeat("d4", 20),
		Hash: "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", Updated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	}}}
	if err := lockfiletest.WriteInstalled(ctxDir, lock); err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Sync(context.Background(), ctxDir, lockPackages(ctxDir, lock), indexer.Options{}); err != nil {
		t.Fatal(err)
	}
}

// wireTokens counts, with its own o200k tokenizer, what a client shows
// of an answer as it arrived: the text contents, the resource links' JSON,
// the structured content's JSON (without HTML escaping, as a client
// prints it); not _meta, which no client shows the model (round 21).
func wireTokens(t *testing.T, enc tokenizer.Codec, res *mcp.CallToolResult) int {
	t.Helper()
	count := func(v any) int {
		s, ok := v.(string)
		if !ok {
			b, err := marshalJSON(v)
			if err != nil {
				t.Fatal(err)
			}
			s = string(b)
		}
		n, err := enc.Count(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	n := 0
	if res.StructuredContent != nil {
		// Its JSON is the only text (jsonAnswer): counted once.
		n += count(res.StructuredContent)
		var v any
		if len(res.Content) == 1 {
			_ = json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &v)
		}
		if a, b := count(v), count(res.StructuredContent); a != b {
			t.Errorf("structured answer whose content is not its JSON (%d and %d tokens): %+v", a, b, res.Content)
		}
	}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			if res.StructuredContent == nil {
				n += count(c.Text)
			}
		case *mcp.ResourceLink:
			n += count(c)
		default:
			t.Errorf("unexpected content %T", c)
		}
	}
	return n
}

// TestAnswerSizes: no answer of any tool passes its budget, counted on
// what the client receives, over documents built to be expensive: by
// default 10,000 tokens (8,000 counted with o200k), with maxTokens 20,000
// (16,000). Every call here is valid, so every answer must be a success
// (a tool that cannot fit is refused with an error, which would pass the
// size check but not this one).
func TestAnswerSizes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a 3 MB index")
	}
	cs := connect(t, adversarialProject(t))
	enc := tokens.Codec()
	if enc == nil {
		t.Fatal("the o200k codec did not load")
	}
	budget := map[int]int{0: DefaultMaxTokens * 4 / 5, MaxMaxTokens: MaxMaxTokens * 4 / 5}
	withMax := func(args map[string]any, maxTokens int) map[string]any {
		a := maps.Clone(args)
		if a == nil {
			a = map[string]any{}
		}
		if maxTokens != 0 {
			a["maxTokens"] = maxTokens
		}
		return a
	}
	called := map[string]bool{}
	check := func(tool string, args map[string]any, maxTokens int) *mcp.CallToolResult {
		t.Helper()
		called[tool] = true
		res := call(t, cs, tool, args, nil)
		if res.IsError {
			t.Errorf("%s %s: %.500s", tool, argText(args), text(res))
			return res
		}
		if n := wireTokens(t, enc, res); n > budget[maxTokens] {
			t.Errorf("%s %s: %d tokens, over %d", tool, argText(args), n, budget[maxTokens])
		} else {
			t.Logf("%s %s: %d tokens", tool, argText(args), n)
		}
		return res
	}
	docs := adversarialDocs()
	paths := []string{}
	for rel := range docs {
		paths = append(paths, strings.TrimPrefix(rel, "adv/"))
	}
	// The tools without maxTokens: the default budget.
	check("list_contexts", nil, 0)
	check("list_contexts", map[string]any{"package": "adv"}, 0)
	check("list_contexts", map[string]any{"package": "adv", "tree": true}, 0)
	check("list_tags", nil, 0)
	check("find_documents", map[string]any{"package": "adv"}, 0)
	check("find_documents", map[string]any{"where": map[string]any{"tags": map[string]any{"$exists": true}}}, 0)
	for _, p := range paths {
		check("get_links", map[string]any{"package": "adv", "path": p}, 0)
		check("get_metadata", map[string]any{"package": "adv", "path": p}, 0)
	}
	for _, m := range []int{0, MaxMaxTokens} {
		check("get_overview", withMax(nil, m), m)
		for _, q := range []map[string]any{
			{"query": "zebra", "limit": MaxSearchLimit, "allPassages": true},
			{"query": "zebra stripes tag", "limit": MaxSearchLimit},
			{"query": "zebra", "path": "meta"},
		} {
			var out SearchOut
			res := check("search", withMax(q, m), m)
			if !res.IsError {
				decodeResult(t, res, &out)
				if len(out.Hits) == 0 {
					t.Errorf("search %v: no hits", q)
				}
			}
		}
		check("read_relevant", withMax(map[string]any{"query": "zebra"}, m), m)
		check("read_relevant", withMax(map[string]any{"query": "zebra stripes 斑马"}, m), m)
		check("list_tags", withMax(nil, m), m)
		check("related", withMax(map[string]any{"package": "adv", "path": "links.md"}, m), m)
		check("related", withMax(map[string]any{"package": "adv", "path": "meta.md"}, m), m) // a 3,600-byte title at the start
		check("related", withMax(map[string]any{"query": "zebra"}, m), m)
		check("what_changed", withMax(nil, m), m)
		for _, p := range paths {
			args := map[string]any{"package": "adv", "path": p}
			var d DocumentOut
			res := check("get_document", withMax(args, m), m)
			if res.IsError {
				continue
			}
			decodeResult(t, res, &d)
			if d.Text == "" {
				t.Errorf("get_document %s: no text", p)
			}
			if d.Truncated {
				next := withMax(args, m)
				next["offset"] = d.NextOffset
				check("get_document", next, m)
			}
			check("get_section", withMax(map[string]any{"package": "adv", "path": p, "heading": firstHeading(docs["adv/"+p])}, m), m)
			check("get_outline", withMax(map[string]any{"package": "adv", "path": p}, m), m)
		}
	}
	// Every tool the server lists was asked: a new tool must join this test.
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if !called[tool.Name] {
			t.Errorf("tool %s is not exercised by TestAnswerSizes: add its calls", tool.Name)
		}
	}
}

// argText is a call's arguments for a message: JSON, cut at 120 bytes.
func argText(args map[string]any) string {
	b, _ := marshalJSON(args)
	return clipText(string(b), 120)
}

// firstHeading is the text of doc's first ATX heading.
func firstHeading(doc string) string {
	for l := range strings.Lines(doc) {
		if strings.HasPrefix(l, "#") {
			return strings.TrimSpace(strings.TrimLeft(l, "#"))
		}
	}
	return ""
}

// TestWireJSONKeepsHTML: the JSON text of an answer keeps <, > and & (no
// \u003c), and the document tools send no structured content (their text
// would be there twice).
func TestWireJSONKeepsHTML(t *testing.T) {
	t.Parallel()
	dir := linkProject(t)
	writeFile(t, filepath.Join(dir, ".context", "packages", "book", "generics.md"),
		"---\ntitle: \"Option<T> & Vec<T>\"\ntags: [a<b]\n---\n# Option<T> & Vec<T>\n\nGenerics: Option<T> & Vec<T> and zebra.\n")
	cs := connect(t, dir)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_metadata", map[string]any{"package": "book", "path": "generics.md"}},
		{"find_documents", map[string]any{"package": "book"}},
		{"get_links", map[string]any{"package": "book", "path": "generics.md"}},
		{"related", map[string]any{"query": "generics option"}},
		{"search", map[string]any{"query": "zebra generics"}},
		{"list_contexts", map[string]any{"package": "book"}},
	} {
		res := call(t, cs, c.tool, c.args, nil)
		if res.IsError {
			t.Fatalf("%s: %s", c.tool, text(res))
		}
		got := text(res)
		if strings.Contains(got, `\u003c`) || strings.Contains(got, `\u0026`) || strings.Contains(got, `\u003e`) {
			t.Errorf("%s: text escapes HTML: %.300s", c.tool, got)
		}
		if c.tool != "related" && c.tool != "get_links" && !strings.Contains(got, "<T> &") && !strings.Contains(got, "Option<T>") {
			t.Errorf("%s: text does not show Option<T>: %.300s", c.tool, got)
		}
	}
	res := call(t, cs, "get_section", map[string]any{"package": "book", "path": "generics.md", "heading": "Option<T> & Vec<T>"}, nil)
	if res.IsError || res.StructuredContent != nil || !strings.Contains(text(res), "Option<T> & Vec<T> and zebra") {
		t.Errorf("get_section: structured %v, text %q", res.StructuredContent, text(res))
	}
	if b, _ := json.Marshal(res.Meta); !strings.Contains(string(b), `"totalLines":7`) {
		t.Errorf("get_section _meta = %s", b)
	}
}
