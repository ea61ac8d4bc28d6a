package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/bench/internal/benchmcp"
	"github.com/ctx-dev/ctx/bench/internal/stat"
	"github.com/ctx-dev/ctx/mcpserver"
	"github.com/ctx-dev/ctx/mcpserver/mcpview"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tiktoken-go/tokenizer"
)

// oneCall measures the one-call answer rate (issue 14): for each query, one
// read_relevant call with maxTokens, through an MCP client session of the
// server of project proj (in-memory transport). A query is answered when
// one of the answer's sections is a passage of one of its wanted
// documents. It prints the rate and the tokens per answer: what a client
// is shown (mcpview.ClientView), counted with o200k.
func oneCall(ctx context.Context, proj string, qs []query, maxTokens int, verbose bool) error {
	srv, err := mcpserver.New(mcpserver.Options{ProjectDir: proj, Log: io.Discard})
	if err != nil {
		return err
	}
	defer srv.Close()
	cs, closeSession, err := benchmcp.InMemory(ctx, srv, "relevance-bench")
	if err != nil {
		return err
	}
	defer closeSession()
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return err
	}
	count := func(s string) int {
		n, _ := codec.Count(s)
		return n
	}
	answered := 0
	cpu0 := stat.CPU(stat.Process)
	var tokens []int
	var took []time.Duration
	var lines []string
	for _, q := range qs {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_relevant",
			Arguments: map[string]any{"query": q.Q, "maxTokens": maxTokens}})
		took = append(took, time.Since(start))
		if err != nil {
			return fmt.Errorf("%q: %w", q.Q, err)
		}
		if res.IsError {
			var msg []string
			for _, c := range res.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					msg = append(msg, t.Text)
				}
			}
			return fmt.Errorf("%q: %s", q.Q, strings.Join(msg, " "))
		}
		n, err := shown(res, count)
		if err != nil {
			return err
		}
		var out mcpserver.ReadRelevantOut
		b, _ := json.Marshal(res.Meta) // read_relevant's sections are in _meta
		if err := json.Unmarshal(b, &out); err != nil {
			return fmt.Errorf("%q: _meta: %w", q.Q, err)
		}
		tokens = append(tokens, n)
		at := 0
		var got []string
		for i, s := range out.Sections {
			doc := s.Package + "/" + s.Path
			if at == 0 && slices.Contains(q.Want, doc) {
				at = i + 1
			}
			got = append(got, fmt.Sprintf("%s:%d-%d", doc, s.Lines[0], s.Lines[1]))
		}
		if at > 0 {
			answered++
		}
		if verbose || at == 0 {
			lines = append(lines, fmt.Sprintf("section %2d  %5d tokens  %-48q got: %s", at, n, q.Q, strings.Join(got, " ")))
		}
	}
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	sorted := slices.Clone(tokens)
	slices.Sort(sorted)
	median := sorted[len(sorted)/2]
	if len(sorted)%2 == 0 {
		median = (sorted[len(sorted)/2-1] + sorted[len(sorted)/2]) / 2
	}
	over := 0
	for _, t := range tokens {
		if t > maxTokens {
			over++
		}
	}
	cpu := (stat.CPU(stat.Process) - cpu0) / time.Duration(len(qs))
	slices.Sort(took)
	fmt.Printf("one-call answers, read_relevant maxTokens %d: %d/%d answered (rate %.3f); tokens per answer (o200k, as shown) median %d, max %d; over maxTokens: %d; call time p50 %v, max %v; CPU per call (client and server) %v\n",
		maxTokens, answered, len(qs), float64(answered)/float64(len(qs)), median, sorted[len(sorted)-1], over,
		took[len(took)/2].Round(100*time.Microsecond), took[len(took)-1].Round(100*time.Microsecond), cpu.Round(100*time.Microsecond))
	return nil
}

// shown counts what a client is shown of res (mcpview.ClientView).
func shown(res *mcp.CallToolResult, count func(string) int) (int, error) {
	return count(mcpview.ClientView(res)), nil
}
