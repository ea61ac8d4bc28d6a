package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Optional arguments sent as null (issue 26). Models in strict
// function-calling modes send null for every parameter they do not use,
// and MCP Inspector's --tool-arg does for a value it cannot parse; the
// input schemas say "array" or "integer" (a type list would cost every
// tool list tokens, and single-type dialects such as Gemini's cannot read
// it), so the SDK's validation would refuse the call. dropNulls takes such
// an argument as absent before validation: the one rule for null, for every
// tool. A required argument sent as null is left for validation to refuse.

// optionalProps are the properties of a tool's input schema that are not
// required (addTool records them per tool).
func optionalProps(schema any) map[string]bool {
	js, ok := schema.(*jsonschema.Schema)
	if !ok || js == nil {
		return nil
	}
	opt := map[string]bool{}
	for name := range js.Properties {
		if !slices.Contains(js.Required, name) {
			opt[name] = true
		}
	}
	return opt
}

// dropNulls is a receiving middleware: a tools/call whose arguments give
// an optional property of the tool's input as null is called without it.
func (s *Server) dropNulls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		raw := call.Params.Arguments
		if !bytes.Contains(raw, []byte("null")) {
			return next(ctx, method, req)
		}
		opt := s.optional[call.Params.Name]
		var args map[string]json.RawMessage
		if len(opt) == 0 || json.Unmarshal(raw, &args) != nil {
			return next(ctx, method, req) // not an object: validation says so
		}
		dropped := false
		for k, v := range args {
			if opt[k] && string(bytes.TrimSpace(v)) == "null" {
				delete(args, k)
				dropped = true
			}
		}
		if dropped {
			b, err := json.Marshal(args)
			if err != nil {
				return next(ctx, method, req)
			}
			call.Params.Arguments = json.RawMessage(b)
		}
		return next(ctx, method, req)
	}
}
