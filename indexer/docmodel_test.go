package indexer_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"
	"github.com/ctx-dev/ctx/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzChunksAgreeWithServer: for any document, the indexer's chunks (what
// search hits cite: a line range and a heading trail) and what the MCP
// server returns for them agree. get_document for a chunk's line range
// returns exactly the chunk's text, and get_section for its heading trail
// returns a section that holds the chunk (duplicate headings, headings
// holding ">", merged near-empty sections included), with the same text
// on the lines they share.
func FuzzChunksAgreeWithServer(f *testing.F) {
	for _, s := range []string{
		"a\rb\r# H\r\rThe zebra crossing is painted white on black asphalt roads.\r\r## Sub\r\rMore.\r",
		"\xef\xbb\xbf---\r\ntitle: x\r\n---\r\n# T\r\n\r\ntext\r\n",
		"# Linux\n\nwords words words words words words words words words words\n\n## Install\n\napt-get install the tool on linux systems\n\n# Mac\n\nwords about mac machines and homebrew and the rest\n\n## Install\n\nbrew install\n",
		"# [Link](x) heading\n\nbody text that is long enough to be its own chunk, surely\n\n## **Bold** `code`\n\nmore body\n",
		"Title\n=====\n\nSetext body that is long enough to be a chunk of its own.\n\nSub\n---\n\ntext\n",
		"# KEP-1: Thing\n\n## Summary\n\nShort.\n\n## Motivation\n\n" + strings.Repeat("Because reasons. ", 20) + "\n\n## Drawbacks\n\n<!--\nTemplate text.\n-->\n",
		"# Big\n\n" + strings.Repeat(strings.Repeat("lorem ipsum dolor ", 8)+"\n\n", 40),
		"```\n# not a heading\n```\n# Real\n\x00\n",
		"\xff\xfe# bad\r\n\r\nbytes \xc3\x28 here\n",
		"# A\n\n## Example\n\nthe first example, with words enough to be a chunk\n\n## Example\n\nthe second example, with words enough to be a chunk\n",
		"# The `Option<T>` `match` Pattern\n\nmatching on Option<T> values, with words enough to be a chunk\n\n## a > b\n\nx\n\n# a\n\n## b\n\ny\n",
		"# T\n\n## Empty\n\n<!--\n" + strings.Repeat("template comment text\n", 300) + "-->\n\n## Filled\n\nsome text here that is long enough\n",
	} {
		f.Add([]byte(s))
	}
	dir := filepath.Join(f.TempDir(), "proj")
	ctxDir := filepath.Join(dir, ".context")
	doc := filepath.Join(ctxDir, "packages", "d", "f.md")
	if err := os.MkdirAll(filepath.Dir(doc), 0o755); err != nil {
		f.Fatal(err)
	}
	lock := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{"d": {
		Source: "https://example.com/d.git", Ref: "main", Rev: strings.Repeat("a1", 20), Tree: strings.Repeat("b2", 20),
		Hash: "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", Updated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	}}}
	if err := lockfiletest.WriteInstalled(ctxDir, lock); err != nil {
		f.Fatal(err)
	}
	srv, err := mcpserver.New(mcpserver.Options{ProjectDir: dir})
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		f.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		cs.Close()
		ss.Wait()
		srv.Close()
	})
	call := func(t *testing.T, tool string, args map[string]any) (mcpserver.DocumentOut, string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s %v: %v", tool, args, err)
		}
		if res.IsError {
			var msg strings.Builder
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					msg.WriteString(tc.Text)
				}
			}
			return mcpserver.DocumentOut{}, msg.String()
		}
		// A document tool's numbers are its _meta; its text the first content.
		var out mcpserver.DocumentOut
		data, _ := json.Marshal(res.Meta)
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			out.Text = tc.Text
		}
		return out, ""
	}

	f.Fuzz(func(t *testing.T, content []byte) {
		if markdown.IsBinary(content) {
			return // neither indexed nor served
		}
		if err := os.WriteFile(doc, content, 0o644); err != nil {
			t.Fatal(err)
		}
		chunks, total := indexer.ChunkLines(content)
		for i, c := range chunks {
			if i == 30 {
				break
			}
			lines := strings.Split(c.Text, "\n")
			d, errText := call(t, "get_document", map[string]any{"package": "d", "path": "f.md", "offset": c.Start, "limit": c.End - c.Start + 1})
			if errText != "" {
				t.Fatalf("get_document lines %d-%d: %s", c.Start, c.End, errText)
			}
			if d.TotalLines != total {
				t.Fatalf("get_document: %d lines, the indexer counts %d", d.TotalLines, total)
			}
			if d.Truncated {
				if !strings.HasPrefix(c.Text+"\n", d.Text) && !strings.Contains(d.Note, "cut") {
					t.Fatalf("get_document lines %d-%d (truncated) = %q, not a prefix of the chunk %q", c.Start, c.End, d.Text, c.Text)
				}
			} else if d.StartLine != c.Start || d.EndLine != c.End || d.Text != c.Text+"\n" {
				t.Fatalf("get_document lines %d-%d = lines %d-%d %q, want the chunk %q", c.Start, c.End, d.StartLine, d.EndLine, d.Text, c.Text)
			}

			trail := strings.Join(c.Trail, markdown.TrailSep)
			if strings.TrimSpace(trail) == "" {
				continue // no heading, or one without text ("#"): the hit is opened by its lines
			}
			s, errText := call(t, "get_section", map[string]any{"package": "d", "path": "f.md", "heading": trail})
			if errText != "" {
				t.Fatalf("get_section %q (chunk lines %d-%d): %s", trail, c.Start, c.End, errText)
			}
			if s.StartLine > c.Start || (s.EndLine < c.End && !s.Truncated) {
				t.Fatalf("get_section %q = lines %d-%d, which do not hold the chunk's lines %d-%d", trail, s.StartLine, s.EndLine, c.Start, c.End)
			}
			got := strings.Split(strings.TrimSuffix(s.Text, "\n"), "\n")
			for n := max(s.StartLine, c.Start); n <= min(s.EndLine, c.End); n++ {
				if got[n-s.StartLine] != lines[n-c.Start] {
					t.Fatalf("get_section %q line %d = %q, the chunk has %q", trail, n, got[n-s.StartLine], lines[n-c.Start])
				}
			}
		}
	})
}
