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
