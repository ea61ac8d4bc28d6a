package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// left19 item 2: no tool call had a time bound, so an input the one-by-one
// bounds miss kept the server busy for as long as it cost. Every call now
// runs under Server.callTimeout: the tools that search or read the index
// stop when it ends, and the answer is a tool error the model can act on.
// The bound here is a nanosecond, so no call can finish in time however
// fast the machine: no timing is measured.
func TestToolCallHasATimeBound(t *testing.T) {
	t.Parallel()
	cs := connect(t, sharedProject(t).dir, func(s *Server) { s.callTimeout = time.Nanosecond })
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"search", map[string]any{"query": "zanzibar widgets"}},
		{"read_relevant", map[string]any{"query": "zanzibar widgets"}},
		{"get_links", map[string]any{"package": "guide", "path": "README.md"}},
		{"related", map[string]any{"package": "guide", "path": "README.md"}},
		{"find_documents", map[string]any{"where": map[string]any{"tags": "api"}}},
		{"list_tags", map[string]any{}},
	} {
		wantError(t, call(t, cs, c.tool, c.args, nil), c.tool+": stopped after 1ns, the most one call may take", "narrow the query")
	}
	// list_contexts walked every package's files in the foreground,
	// whatever its bound (own20): it stops with it too.
	wantError(t, call(t, cs, "list_contexts", map[string]any{}, nil), "list_contexts: stopped after 1ns, the most one call may take")
}

// The bound ends the handler's context: a handler that works until its
// context ends (as Search does, through bleve) has returned when the
// answer is sent, so no goroutine of the call runs on.
func TestToolCallBoundEndsTheWork(t *testing.T) {
	t.Parallel()
	s, err := New(Options{ProjectDir: sharedProject(t).dir, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.callTimeout = time.Millisecond
	ended := make(chan struct{})
	type in struct {
		Q string `json:"q"`
	}
	addTool(s, &mcp.Tool{Name: "spin", Description: "spins until its context ends"}, nil,
		func(ctx context.Context, _ *mcp.CallToolRequest, _ in) (*mcp.CallToolResult, any, error) {
			defer close(ended)
			<-ctx.Done()
			return nil, nil, context.Cause(ctx)
		})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	wantError(t, call(t, cs, "spin", map[string]any{"q": "x"}, nil), "spin: stopped after 1ms")
	select {
	case <-ended:
	default:
		t.Fatal("the answer was sent while the handler still ran")
	}
}

// own20: the call bound is set by Options.CallTimeout (ctx mcp
// --call-timeout); 0 is DefaultCallTimeout; a negative or too long one is
// refused by New.
func TestCallTimeoutOption(t *testing.T) {
	t.Parallel()
	dir := sharedProject(t).dir
	s, err := New(Options{ProjectDir: dir, CallTimeout: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if s.callBound() != time.Nanosecond {
		t.Errorf("callBound = %s, want 1ns", s.callBound())
	}
	d, err := New(Options{ProjectDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if d.callBound() != DefaultCallTimeout {
		t.Errorf("callBound = %s, want the default", d.callBound())
	}
	for _, bad := range []time.Duration{-time.Second, MaxCallTimeout + time.Second} {
		if _, err := New(Options{ProjectDir: dir, CallTimeout: bad}); err == nil {
			t.Errorf("New with a call timeout of %s: no error", bad)
		}
	}
}
