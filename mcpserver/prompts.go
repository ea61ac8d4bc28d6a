package mcpserver

import (
	"context"
	"errors"
	"strings"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The prompts of the server (issue 14): ask-docs walks an agent through
// answering a question from the installed documentation.

// askDocsSteps is ask-docs' message after the question.
const askDocsSteps = `Answer it from the documentation this project installed with ctx, through the ctx MCP server's tools:

1. get_overview: see which packages and documents there are (skip it if you have read it in this conversation).
2. read_relevant with query set to the question, or to its key words (add packages to keep to some packages): it returns the best sections (best document first, a document's sections in its order), whole where they fit, each with a header line naming its package, path, lines, heading trail and revision.
3. When a section you need came only in part (its header says "part of lines A-B"), or the answer needs more, read on with get_section (package, path and the heading from the header) or get_document (offset = a line number). search lists more passages.
4. Answer from what you read, and cite each fact as package/path:lines. If the documentation does not say, say so; do not guess.`

func (s *Server) addPrompts() {
	s.srv.AddPrompt(&mcp.Prompt{
		Name:  "ask-docs",
		Title: "Ask the documentation",
		Description: "Answer a question from the installed documentation: get_overview for what exists, read_relevant " +
			"for the best sections in one call, get_section for more of a section.",
		Arguments: []*mcp.PromptArgument{{
			Name: "question", Title: "Question", Required: true,
			Description: "what to find out, in plain words, for example \"how do I rotate the API keys?\"",
		}},
	}, s.askDocs)
}

func (s *Server) askDocs(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	q := strings.TrimSpace(req.Params.Arguments["question"])
	if q == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: `ask-docs needs the argument "question": what to find out, for example "how do I rotate the API keys?"`}
	}
	// The question's length is a query's (the model searches with it); a
	// word like kind:Deployment is its own, not a qualifier to refuse.
	if err := indexer.CheckQuery(q); err != nil && !errors.Is(err, indexer.ErrUnknownKind) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "ask-docs: " + err.Error()}
	}
	return &mcp.GetPromptResult{
		Description: "Answer a question from the installed documentation",
		Messages: []*mcp.PromptMessage{{
			Role:    "user",
			Content: &mcp.TextContent{Text: "Question: " + q + "\n\n" + askDocsSteps},
		}},
	}, nil
}
