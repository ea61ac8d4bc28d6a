package mcpserver

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestTokenBudget(t *testing.T) {
	for _, c := range []struct {
		in, want int
		err      bool
	}{
		{0, DefaultMaxTokens * 4 / 5, false},
		{1000, 800, false},
		{MaxMaxTokens, MaxMaxTokens * 4 / 5, false},
		{MaxMaxTokens + 1, 0, true},
		{-1, 0, true},
	} {
		got, err := tokenBudget(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("tokenBudget(%d) = %d, %v; want %d, error %v", c.in, got, err, c.want, c.err)
		}
		if err != nil && !strings.Contains(err.Error(), "20000") {
			t.Errorf("tokenBudget(%d) error %q does not say the range", c.in, err)
		}
	}
}

func TestMarshalJSONKeepsHTML(t *testing.T) {
	b, err := marshalJSON(map[string]string{"h": "Option<T> & <Vec>"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"h":"Option<T> & <Vec>"}`; got != want {
		t.Errorf("marshalJSON = %s, want %s", got, want)
	}
}

func TestAnswerTokensCountsTextAndStructured(t *testing.T) {
	s, err := New(Options{ProjectDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	text := strings.Repeat("word ", 100)
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	onlyText := s.answerTokens(res, nil)
	both := s.answerTokens(res, map[string]string{"text": text})
	if onlyText < 90 || both < 2*onlyText-10 {
		t.Errorf("answerTokens: text alone %d, text and the same text as JSON %d; want the JSON counted too", onlyText, both)
	}
}
