// Package mcpview is what Claude Code, Codex and OpenCode give the model of
// an MCP tool result, for tests and benchmarks that judge ctx's answers by
// what the model reads. The server's side of the rule (every answer whole
// in that view, counted once) is mcpserver's addTool.
package mcpview

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ClientView is what those clients give the model of res: the JSON of its
// structuredContent when there is one (they drop the text contents then;
// the JSON as JavaScript's JSON.stringify writes it, no HTML escaping),
// else its text contents joined by newlines.
func ClientView(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	if res.StructuredContent != nil {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res.StructuredContent); err != nil {
			return ""
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}
