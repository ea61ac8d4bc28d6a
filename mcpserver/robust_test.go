package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

// randomFrames returns n malformed or random JSON-RPC frames, one per line,
// from a fixed seed.
func randomFrames(n int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	methods := []string{"tools/call", "tools/list", "resources/read", "resources/list", "initialize",
		"ping", "notifications/initialized", "notifications/cancelled", "prompts/get", "nope", "", "completion/complete"}
	ids := []string{`1`, `"a"`, `null`, `{}`, `[]`, `true`, `1.5`, `-3`, `"` + strings.Repeat("x", 300) + `"`, `99999999999999999999999`}
	params := []string{`null`, `{}`, `[]`, `"x"`, `{"name":"search","arguments":{"query":7}}`,
		`{"name":"get_document","arguments":{"package":"guide","path":"../../etc/passwd"}}`,
		`{"name":"get_document","arguments":"not an object"}`, `{"name":"nope"}`, `{"uri":"ctx://packages/guide/%2e%2e/x"}`,
		`{"uri":42}`, `{"name":"search","arguments":{"query":"zanzibar","limit":-5,"packages":[1,2]}}`,
		`{"name":"get_document","arguments":{"package":"big","path":"long.md","offset":-1}}`,
		`{"protocolVersion":12,"capabilities":"no"}`, `{"name":"list_contexts","arguments":{"package":null}}`}
	var out []string
	for i := range n {
		var f string
		switch r.IntN(10) {
		case 0: // random bytes without newlines
			b := make([]byte, r.IntN(200)+1)
			for j := range b {
				b[j] = byte(r.IntN(256))
				if b[j] == '\n' {
					b[j] = ' '
				}
			}
			f = string(b)
		case 1: // JSON that is not a message
			f = []string{`42`, `"hello"`, `null`, `true`, `[]`, `[1,2]`, `{}`, `[[[[[[[[[[]]]]]]]]]]`, `{"a":{"b":{"c":[]}}}`}[r.IntN(9)]
		case 2: // a truncated request
			full := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":"x"}}}`, i)
			f = full[:r.IntN(len(full)-1)+1]
		case 3: // a batch
			f = fmt.Sprintf(`[{"jsonrpc":"2.0","id":%d,"method":"ping"},{"jsonrpc":"2.0","method":"nope"}]`, i)
		case 4: // wrong version or types
			f = []string{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"method":5}`,
				`{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":2,"method":"ping"}`, `{"id":1,"method":"ping"}`,
				`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`}[r.IntN(6)]
		case 5: // a response to nothing
			f = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"x":1}}`, ids[r.IntN(len(ids))])
		default: // a request or notification with random parts
			id := ids[r.IntN(len(ids))]
			m := methods[r.IntN(len(methods))]
			p := params[r.IntN(len(params))]
			if r.IntN(3) == 0 {
				f = fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, m, p)
			} else {
				f = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, m, p)
			}
		}
		out = append(out, f)
	}
	return out
}

// TestRobustness sends 1,000 malformed or random frames over a pipe, then a
// valid tools/call, which must still be answered; every line the server
// writes must be JSON.
func TestRobustness(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	s, err := New(Options{ProjectDir: p.dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, &LineTransport{In: inR, Out: outW}); outW.Close() }()

	final := make(chan json.RawMessage, 1)
	bad := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				select {
				case bad <- sc.Text():
				default:
				}
				continue
			}
			if string(m.ID) == `"final"` {
				final <- m.Result
			}
		}
	}()
	send := func(line string) {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("write: %v", err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	frames := randomFrames(1000)
	for _, f := range frames {
		send(f)
	}
	send(`{"jsonrpc":"2.0","id":"final","method":"tools/call","params":{"name":"get_document","arguments":{"package":"guide","path":"docs/setup.md","limit":1}}}`)
	select {
	case res := <-final:
		var r struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if err := json.Unmarshal(res, &r); err != nil || r.IsError || len(r.Content) == 0 || r.Content[0].Text != "---\n" {
			t.Fatalf("final tools/call answered %s", res)
		}
	case err := <-done:
		t.Fatalf("the server stopped after the random frames: %v", err)
	case <-time.After(2 * time.Minute): // a hang, not a speed check
		t.Fatal("no answer to the final tools/call")
	}
	select {
	case line := <-bad:
		t.Errorf("the server wrote a line that is not JSON: %.200q", line)
	default:
	}
	// At the end of the input the server answers what it read, then stops.
	inW.Close()
	start := time.Now()
	if err := <-done; err != nil {
		t.Logf("Run: %v", err)
	}
	t.Logf("Run returned %v after the end of the input", time.Since(start))
}

// lockedBuffer is a bytes.Buffer safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestAnswersAfterEndOfInput: a client that writes its requests and closes
// its end (echo ... | ctx mcp) still gets every answer.
func TestAnswersAfterEndOfInput(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	s, err := New(Options{ProjectDir: p.dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"zanzibar"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_document","arguments":{"package":"guide","path":"docs/setup.md"}}}
`
	var out lockedBuffer
	if err := s.Run(context.Background(), &LineTransport{In: io.NopCloser(strings.NewReader(in)), Out: &out}); err != nil {
		t.Logf("Run: %v", err)
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.b.String()), "\n") {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		ids[string(m.ID)] = true
	}
	for _, id := range []string{"1", "2", "3"} {
		if !ids[id] {
			t.Errorf("no answer to request %s; got %s", id, out.b.String())
		}
	}
}
