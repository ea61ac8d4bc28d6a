package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lineClient runs the server for dir as `ctx mcp` does, over LineTransport
// on a pair of pipes, and connects an SDK client to the other ends. The
// returned channel receives Run's result when the server stops.
func lineClient(t testing.TB, dir string, setup ...func(*Server)) (*mcp.ClientSession, <-chan error) {
	t.Helper()
	var log io.Writer = testLog{t}
	if _, ok := t.(*testing.F); ok {
		log = nil // a fuzz target may not log through f
	}
	s, err := New(Options{ProjectDir: dir, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range setup {
		f(s)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		err := s.Run(ctx, &LineTransport{In: inR, Out: outW})
		outW.CloseWithError(io.EOF)
		done <- err
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		inW.Close()
		select {
		case <-stopped: // no log line after the test ends
		case <-time.After(time.Minute):
			t.Error("the server did not stop")
		}
		s.Close()
	})
	return cs, done
}

// wireCode is the JSON-RPC error code of a client call's error, or 1 when
// the error carries none.
func wireCode(err error) int64 {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return 1
}

// TestResourceReadControlChars: a resources/read whose URI holds a NUL or
// another control character is answered with an invalid-params error, and
// the session goes on (it used to end the server: the error's data was
// not valid JSON, so the answer could not be written).
func TestResourceReadControlChars(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs, done := lineClient(t, p.dir)
	ctx := context.Background()
	for _, uri := range []string{
		"ctx://packages/docs/a.md\u0000../x",
		"ctx://packages/docs/\u007f.md",
		"ctx://packages/guide/docs/\u0001setup.md",
		"ctx://packages/guide/\u001b[31m.md",
		"ctx://packages/gu\u0000ide/docs/setup.md",
		"ctx://nope/\u0000",
		"ctx://index\u0000",
	} {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err == nil {
			t.Errorf("%q: read, want an error", uri)
		} else if c := wireCode(err); c != jsonrpc.CodeInvalidParams {
			t.Errorf("%q: error code %d, want %d (invalid params): %v", uri, c, jsonrpc.CodeInvalidParams, err)
		}
		select {
		case err := <-done:
			t.Fatalf("%q stopped the server: %v", uri, err)
		default:
		}
		if res := call(t, cs, "get_document", map[string]any{"package": "guide", "path": "docs/setup.md", "limit": 1}, nil); res.IsError {
			t.Fatalf("after %q: %s", uri, text(res))
		}
	}
}

// TestResourceErrorCodes: a refused resources/read carries a real JSON-RPC
// code (it was 0): invalid params for a URI that is malformed or refused,
// resource-not-found for one that names no document; the error's data is
// the URI, as JSON.
func TestResourceErrorCodes(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	for _, tc := range []struct {
		uri  string
		code int64
	}{
		{"ctx://packages/guide/docs/nope.md", codeResourceNotFound},
		{"ctx://packages/guide/docs", jsonrpc.CodeInvalidParams},
		{"ctx://packages/nope/README.md", codeResourceNotFound},
		{"ctx://packages/giude/docs/setup.md", codeResourceNotFound},
		{"ctx://packages/guide/%2e%2e/%2e%2e/secret.md", jsonrpc.CodeInvalidParams},
		{"ctx://packages/guide/../../secret.md", jsonrpc.CodeInvalidParams},
		{"ctx://packages/guide/escape.md", jsonrpc.CodeInvalidParams},
		{"ctx://packages/guide/.git/config", jsonrpc.CodeInvalidParams},
		{"ctx://packages/guide/docs/notes.html", jsonrpc.CodeInvalidParams},
		{"ctx://packages/guide/", jsonrpc.CodeInvalidParams},
		{"ctx://packages/guide/docs/%zz.md", jsonrpc.CodeInvalidParams},
		{"ctx://packages/../guide/docs/setup.md", jsonrpc.CodeInvalidParams},
		{"ctx://packages/guide/docs/\u0001setup.md", jsonrpc.CodeInvalidParams},
	} {
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: tc.uri})
		if err == nil {
			t.Errorf("%q: read, want an error", tc.uri)
			continue
		}
		if c := wireCode(err); c != tc.code {
			t.Errorf("%q: code %d, want %d: %v", tc.uri, c, tc.code, err)
		}
		var we *jsonrpc.Error
		if errors.As(err, &we) && we.Data != nil {
			var d struct{ URI string }
			if json.Unmarshal(we.Data, &d) != nil || d.URI != tc.uri {
				t.Errorf("%q: error data %s, want the URI", tc.uri, we.Data)
			}
		}
	}
}

// FuzzServerLoop sends fuzzed resource URIs and tool arguments to the real
// server loop (LineTransport over pipes, the handlers `ctx mcp` uses), one
// request per input, and checks after each that the server still answers a
// valid call. A request may fail; it may not stop the server or make it
// write something the client cannot read.
func FuzzServerLoop(f *testing.F) {
	for _, s := range []struct {
		kind uint8
		a, b string
	}{
		{0, "ctx://packages/docs/a.md\u0000../x", ""},
		{0, "ctx://packages/docs/\u007f.md", ""},
		{0, "ctx://packages/guide/docs/setup.md", ""},
		{0, "ctx://packages/guide/%00.md", ""},
		{0, "ctx://packages/guide/%2e%2e/%2e%2e/secret.md", ""},
		{0, "ctx://index", ""},
		{0, "ctx://manifest\u001b[2J", ""},
		{0, "\xff\xfe", ""},
		{1, "guide", "docs/setup.md\u0000.md"},
		{1, "guide\u007f", "docs/\u0085setup.md"},
		{1, "guide", "../../secret.md"},
		{2, "guide", "Install\u0000"},
		{3, "zanzibar\u0000\u001b", "guide"},
		{3, "\"quoted\" AND +must -not field:x ~2 ^3 /re.*/", ""},
		{4, "gu\u0000ide", ""},
		{5, `{"package":"guide","path":"docs/setup.md","offset":1e99}`, "get_document"},
		{5, `{"query":["not","a","string"]}`, "search"},
		{5, `{"package":{"x":1}}`, "list_contexts"},
	} {
		f.Add(s.kind, s.a, s.b)
	}
	p := newProject(f)
	cs, done := lineClient(f, p.dir)
	f.Fuzz(func(t *testing.T, kind uint8, a, b string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // bounds a hang
		defer cancel()
		var err error
		switch kind % 6 {
		case 0:
			_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: a})
		case 1:
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_document", Arguments: map[string]any{"package": a, "path": b}})
		case 2:
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_section", Arguments: map[string]any{"package": "guide", "path": "docs/setup.md", "heading": a + b}})
		case 3:
			args := map[string]any{"query": a}
			if b != "" {
				args["packages"] = []string{b}
			}
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: args})
		case 4:
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_contexts", Arguments: map[string]any{"package": a}})
		case 5:
			var args any = a
			if json.Valid([]byte(a)) {
				args = json.RawMessage(a)
			}
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: b, Arguments: args})
		}
		if ctx.Err() != nil {
			t.Fatalf("no answer within a minute: %v", err)
		}
		select {
		case err := <-done:
			t.Fatalf("the request stopped the server: %v", err)
		default:
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_document", Arguments: map[string]any{"package": "guide", "path": "docs/setup.md", "limit": 1}})
		if err != nil || res.IsError {
			t.Fatalf("a valid call failed after the request: %v %v", err, res)
		}
	})
}

// TestSearchQueryCap: the search tool refuses a query over the caps
// (indexer.CheckQuery) before any work, with a message that says what to
// do, and keeps serving.
func TestSearchQueryCap(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	huge := strings.Repeat("zanzibar ", 100_000)
	res := call(t, cs, "search", map[string]any{"query": huge}, nil)
	wantError(t, res, "more than the 8192 (8 KB) a search takes", "distinctive words")
	if !strings.HasPrefix(text(res), "query too long:") {
		t.Errorf("refused by the index, not by the tool: %.200s", text(res))
	}
	wantError(t, call(t, cs, "search", map[string]any{"query": strings.Repeat("a ", 1001)}, nil), "1001 words, more than the 1000")
	var out SearchOut
	if res := call(t, cs, "search", map[string]any{"query": "zanzibar" + strings.Repeat(" a", 999)}, &out); res.IsError || len(out.Hits) == 0 {
		t.Errorf("a query at the cap: %s", text(res))
	}
}
