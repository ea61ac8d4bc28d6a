package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Answer budgets (issue 14). An answer's size is what a client shows the
// model: every text content, plus the JSON of structuredContent when there
// is one (Claude Code shows that JSON; it warns past 10,000 tokens and
// fails past 25,000). Sizes are counted with o200k, leaving 20% headroom
// for other tokenizers: an answer asked to stay within N tokens uses at
// most N*4/5 o200k tokens.
const (
	// DefaultMaxTokens is an answer's budget when a call names none.
	DefaultMaxTokens = 10_000
	// MaxMaxTokens is the largest maxTokens a call may ask for.
	MaxMaxTokens = 20_000
	// headroomPercent of a budget is what o200k counting may use.
	headroomPercent = 80
)

// tokenBudget is the number of o200k tokens an answer may use when the
// call asked for maxTokens (0: DefaultMaxTokens). A negative maxTokens or
// one over MaxMaxTokens is an error that says the range.
func tokenBudget(maxTokens int) (int, error) {
	switch {
	case maxTokens == 0:
		maxTokens = DefaultMaxTokens
	case maxTokens < 0 || maxTokens > MaxMaxTokens:
		return 0, fmt.Errorf("maxTokens %d is out of range: give 1 to %d (default %d)", maxTokens, MaxMaxTokens, DefaultMaxTokens)
	}
	return maxTokens * headroomPercent / 100, nil
}

// marshalJSON is encoding/json without HTML escaping: text keeps <, > and &
// as they are (json.Marshal writes \u003c, which a client shows as is when
// the JSON is text content).
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// answerTokens counts, in o200k tokens, what a client shows of res: its
// text contents, and the JSON of structured (the value the handler returns
// as its output, which the SDK puts in structuredContent; nil when the
// answer has none).
func (s *Server) answerTokens(res *mcp.CallToolResult, structured any) int {
	n := 0
	if res != nil {
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				n += s.countTokens(t.Text)
			}
		}
	}
	if structured != nil {
		if b, err := marshalJSON(structured); err == nil {
			n += s.countTokens(string(b))
		}
	}
	return n
}
