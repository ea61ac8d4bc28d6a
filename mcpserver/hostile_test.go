package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lineClient runs the server for dir as `ctx mcp` does, over LineTransport
// on a pair of pipes, and connects an SDK client to the other ends. The
// returned channel receives Run's result when the server stops.
func lineClient(t testing.TB, dir string, setup ...func(*Server)) (*mcp.ClientSession, <-chan error) {
	t.Helper()
	s, err := New(Options{ProjectDir: dir, Log: testLog{t}})
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
	go func() {
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
	p := newProject(t)
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
	p := newProject(t)
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
		{"ctx://packages/guide/docs/notes.txt", jsonrpc.CodeInvalidParams},
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
