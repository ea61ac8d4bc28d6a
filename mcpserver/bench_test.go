package mcpserver

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkNewAndInitialize measures what ctx mcp does before it answers
// initialize: build the server (tool schemas by reflection) and answer the
// handshake, in memory. Process start-up is measured by bench/mcp.
func BenchmarkNewAndInitialize(b *testing.B) {
	dir := b.TempDir()
	ctx := context.Background()
	for b.Loop() {
		s, err := New(Options{ProjectDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		ct, st := mcp.NewInMemoryTransports()
		ss, err := s.MCP().Connect(ctx, st, nil)
		if err != nil {
			b.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		cs.Close()
		ss.Wait()
		s.Close()
	}
}

// BenchmarkToolCalls measures calls over an in-memory session on the test
// fixture: a search of 10 hits (its answer is measured against the
// budget: over 8,000 bytes, so its tokens are counted) and a first page of
// a 3,000-line document (cut at the budget, counted line by line).
func BenchmarkToolCalls(b *testing.B) {
	p := newProject(b)
	cs := connect(b, p.dir)
	for _, c := range []struct {
		name string
		tool string
		args map[string]any
	}{
		{"search", "search", map[string]any{"query": "quokka common word"}},
		{"search-50", "search", map[string]any{"query": "quokka common word", "limit": 50}},
		{"get_document-long", "get_document", map[string]any{"package": "big", "path": "long.md"}},
		{"get_section", "get_section", map[string]any{"package": "guide", "path": "docs/setup.md", "heading": "Install"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}
