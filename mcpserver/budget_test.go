package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

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

// TestAnswerTokensCountsOnce: an answer with structured output is its JSON
// as structuredContent and as text (jsonAnswer), counted once; an answer
// without is its texts.
func TestAnswerTokensCountsOnce(t *testing.T) {
	s, err := New(Options{ProjectDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	text := strings.Repeat("word ", 100)
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	onlyText := s.answerTokens(res, nil)
	out := map[string]string{"text": text}
	jres, err := jsonAnswer(nil, out)
	if err != nil {
		t.Fatal(err)
	}
	structured := s.answerTokens(jres, out)
	if onlyText < 90 || structured < onlyText || structured > onlyText+10 {
		t.Errorf("answerTokens: text alone %d, the same text as JSON (structured and text) %d; want the JSON counted once", onlyText, structured)
	}
}

func TestInputSchema(t *testing.T) {
	s, err := inputSchema[SearchIn](map[string]bound{"limit": {1, 50}})
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Properties["packages"]; p.Type != "array" || p.Types != nil || p.Items.Type != "string" || p.Description == "" {
		t.Errorf("packages = %+v, want a plain array of strings, described", p)
	}
	if p := s.Properties["limit"]; *p.Minimum != 1 || *p.Maximum != 50 {
		t.Errorf("limit = %+v", p)
	}
	if _, err := inputSchema[SearchIn](map[string]bound{"query": {1, 2}}); err == nil {
		t.Error("a bound on a string: no error")
	}
	if _, err := inputSchema[SearchIn](map[string]bound{"nope": {1, 2}}); err == nil {
		t.Error("a bound on no property: no error")
	}
}

// TestCutTokens: a window stays within its token budget, counted on the
// whole text, whatever the text; a line over it is cut and says so.
func TestCutTokens(t *testing.T) {
	t.Parallel()
	s, err := New(Options{ProjectDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	lines := func(l string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = l
		}
		return out
	}
	for name, ls := range map[string][]string{
		"prose":  lines("The quick brown fox jumps over the lazy dog, again and again.", 2000),
		"digits": lines(strings.Repeat("1,2,3,4,5,6,7,8,9,", 10), 2000),
		"emoji":  lines(strings.Repeat("👩‍👩‍👧‍👦🏳️‍🌈🎉", 20), 2000),
		"cjk":    lines("斑马在草原上奔跑，它们的条纹独一无二。", 5000),
		"spaces": lines(strings.Repeat(" ", 3000)+"x", 200),
	} {
		for _, budget := range []int{100, 1000, 8000} {
			w := cutTokens(ls, 1, len(ls), 0, budget, s.countTokens)
			if n := s.countTokens(w.Text); n > budget || w.EndLine < 1 || !w.Truncated || w.NextOffset != w.EndLine+1 {
				t.Errorf("%s, budget %d: %d tokens, lines %d-%d, next %d", name, budget, n, w.StartLine, w.EndLine, w.NextOffset)
			}
			if n := s.countTokens(w.Text); n < budget/2 && !w.CutLine && len(w.Text)+len(ls[0])+1 <= MaxTextBytes {
				t.Errorf("%s, budget %d: only %d tokens used", name, budget, n)
			}
		}
	}
	// One line over the budget: its start, cut at a rune boundary.
	long := []string{strings.Repeat("斑马 zebra 🦓 ", 50_000)}
	w := cutTokens(long, 1, 1, 0, 1000, s.countTokens)
	if n := s.countTokens(w.Text); !w.CutLine || n > 1000 || n < 800 || !utf8.ValidString(w.Text) || w.EndLine != 1 || w.Truncated {
		t.Errorf("a long line: %d tokens, cut %v, valid %v, %+v", n, w.CutLine, utf8.ValidString(w.Text), w.EndLine)
	}
	// limit lines, and an empty range.
	if w := cutTokens(lines("a", 10), 3, 10, 2, 1000, s.countTokens); w.Text != "a\na\n" || w.StartLine != 3 || w.EndLine != 4 || w.NextOffset != 5 {
		t.Errorf("limit 2 from 3: %+v", w)
	}
	if w := cutTokens(lines("a", 10), 11, 10, 0, 1000, s.countTokens); w.StartLine != 0 || w.Text != "" {
		t.Errorf("past the end: %+v", w)
	}
}

// TestSchemasPortable: no tool's input or output schema has a type list
// (["null","array"]), which single-type dialects cannot read and MCP
// Inspector's --strict reports.
func TestSchemasPortable(t *testing.T) {
	t.Parallel()
	cs := connect(t, sharedProject(t).dir)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var walk func(tool, where string, v any)
	walk = func(tool, where string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if _, ok := x["type"].([]any); ok {
				t.Errorf("%s: %s has a type list %v", tool, where, x["type"])
			}
			for k, e := range x {
				walk(tool, where+"/"+k, e)
			}
		case []any:
			for i, e := range x {
				walk(tool, fmt.Sprintf("%s/%d", where, i), e)
			}
		}
	}
	inputs := 0
	for _, tool := range res.Tools {
		for name, s := range map[string]any{"inputSchema": tool.InputSchema, "outputSchema": tool.OutputSchema} {
			if s == nil {
				continue
			}
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			if name == "inputSchema" {
				inputs++
			}
			walk(tool.Name, name, v)
		}
	}
	if inputs == 0 {
		t.Fatal("no tool has an input schema: nothing was checked")
	}
}

type failArgs struct {
	Result    bool `json:"result,omitempty"`
	MaxTokens int  `json:"maxTokens,omitempty"`
}

func (a failArgs) maxTokens() int { return a.MaxTokens }

// TestErrorsWithinBudget: a tool error, returned or built as an error
// result, is cut to the default budget (errors quote what was asked, so a
// hostile argument could make one long).
func TestErrorsWithinBudget(t *testing.T) {
	long := strings.Repeat("🦀 終わり <T> ", 20000) // many tokens per byte range
	var srv *Server
	cs := connect(t, t.TempDir(), func(s *Server) {
		srv = s
		addTool(s, &mcp.Tool{Name: "fail", Description: "fails"}, nil, func(_ context.Context, _ *mcp.CallToolRequest, a failArgs) (*mcp.CallToolResult, any, error) {
			if a.Result {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: long}, &mcp.TextContent{Text: long}}}, nil, nil
			}
			return nil, nil, fmt.Errorf("no such thing: %s", long)
		})
	})
	for _, args := range []map[string]any{{}, {"result": true}, {"maxTokens": 1000}, {"result": true, "maxTokens": 1000}} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fail", Arguments: args})
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		budget := errorBudget // whatever maxTokens says: an error must say what to do
		if !res.IsError || len(res.Content) == 0 {
			t.Fatalf("%v: not an error result: %+v", args, res)
		}
		if n := srv.answerTokens(res, res.StructuredContent); n > budget {
			t.Errorf("%v: error answer %d tokens, budget %d", args, n, budget)
		}
		for _, c := range res.Content {
			if text := c.(*mcp.TextContent).Text; !utf8.ValidString(text) || !strings.HasSuffix(text, "…") && len(text) > budget {
				t.Errorf("%v: error text not cut cleanly: %d bytes, ends %q", args, len(text), text[max(0, len(text)-10):])
			}
		}
	}
}
