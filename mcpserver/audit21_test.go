package mcpserver

import (
	"testing"
)

// TestMissingArgumentNamesIt (agent21 audit): a call without an argument
// the tool needs says which, what it is, and what the tool takes; the SDK's
// words (`validating "arguments": validating root: required: missing
// properties: ["path"]`) said neither what it is nor what to do.
func TestMissingArgumentNamesIt(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "hub"}, nil),
		`get_document needs the argument "path" (document path in the package, or @ctx/<alias>/<path> or ctx://packages/<alias>/<path>); it takes package, path, offset, limit, section, maxTokens.`)
	wantError(t, call(t, cs, "get_section", map[string]any{"package": "hub"}, nil),
		`get_section needs the arguments "path" (document path in the package`, `and "heading" (heading text or a search hit's heading trail); it takes package, path, heading, offset, maxTokens.`)
	wantError(t, call(t, cs, "search", map[string]any{}, nil),
		`search needs the argument "query" (words, with the query syntax below); it takes query,`)
}
