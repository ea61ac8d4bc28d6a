package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const testToken = "test-token-0123456789abcdef"

// httpServer is a Server behind RunHTTP on 127.0.0.1.
type httpServer struct {
	s    *Server
	url  string
	stop func() error // cancels RunHTTP and returns what it returned
}

// startHTTP serves dir over HTTP with o (Token defaults to testToken) until
// the test ends.
func startHTTP(t *testing.T, dir string, o HTTPOptions, setup ...func(*Server)) *httpServer {
	t.Helper()
	if o.Token == "" {
		o.Token = testToken
	}
	s, err := New(Options{ProjectDir: dir, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range setup {
		f(s)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.RunHTTP(ctx, ln, o) }()
	var once sync.Once
	var runErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(time.Minute): // a bound on a hang
				runErr = errors.New("RunHTTP did not return within a minute of the shutdown")
			}
		})
		return runErr
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("RunHTTP: %v", err)
		}
		s.Close()
	})
	return &httpServer{s: s, url: "http://" + ln.Addr().String() + HTTPPath, stop: stop}
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// httpClient connects the SDK's client to h at protocol version (a
// session-based revision, or "" for the newest: stateless).
func httpClient(t *testing.T, h *httpServer, version string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{
		Endpoint:   h.url,
		HTTPClient: &http.Client{Transport: bearer{testToken, http.DefaultTransport}},
		MaxRetries: -1,
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).
		Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect at %q: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestHTTPSessionsAndStateless: one process serves session-based clients
// and stateless ones with the same tools, from one index reader.
func TestHTTPSessionsAndStateless(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	h := startHTTP(t, p.dir, HTTPOptions{})
	sessions := map[string]*mcp.ClientSession{
		"2025-03-26": httpClient(t, h, "2025-03-26"),
		"2025-11-25": httpClient(t, h, "2025-11-25"),
		"stateless":  httpClient(t, h, ""),
	}
	var rd any
	for name, cs := range sessions {
		got := cs.InitializeResult().ProtocolVersion
		if stateless := name == "stateless"; stateless != (got >= statelessVersion) || stateless != (cs.ID() == "") {
			t.Errorf("%s: protocol %s, session id %q", name, got, cs.ID())
		}
		var out SearchOut
		res := call(t, cs, "search", map[string]any{"query": "zanzibar", "packages": []string{"guide"}}, &out)
		if res.IsError || len(out.Hits) == 0 || out.Hits[0].Path != "docs/setup.md" {
			t.Errorf("%s: search: %s", name, text(res))
		}
		h.s.mu.Lock()
		if rd == nil {
			rd = h.s.rd
		} else if any(h.s.rd) != rd {
			t.Errorf("%s: the index reader was opened again", name)
		}
		h.s.mu.Unlock()
	}

	// DELETE (what Close sends) ends a session at once and frees its slot.
	id := sessions["2025-11-25"].ID()
	if err := sessions["2025-11-25"].Close(); err != nil {
		t.Logf("close: %v", err)
	}
	for ss := range h.s.srv.Sessions() {
		if ss.ID() == id {
			t.Errorf("session %s still open after DELETE", id)
		}
	}
	resp := post(t, h.url, testToken, map[string]string{"Mcp-Session-Id": id}, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a request in a deleted session: %s, want 404", resp.Status)
	}
	if err := h.stop(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	for ss := range h.s.srv.Sessions() {
		t.Errorf("session %q still open after shutdown", ss.ID())
	}
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// post sends body to url with token (none when "") and extra headers, and
// reads the whole answer.
func post(t *testing.T, url, token string, headers map[string]string, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(strings.NewReader(string(data)))
	return resp
}

// TestHTTPRefusals: what a request without the right token, from a
// browser page or a rebound DNS name, or too big, gets.
func TestHTTPRefusals(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	h := startHTTP(t, p.dir, HTTPOptions{MaxBodyBytes: 64 << 10})
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 100<<10) + `"}}`
	for _, c := range []struct {
		name    string
		url     string
		token   string
		headers map[string]string
		body    string
		status  int
		auth    string // WWW-Authenticate wanted, for 401
		msg     string
	}{
		{"no token", h.url, "", nil, initBody, 401, `Bearer realm="ctx"`, "missing the header Authorization"},
		{"wrong token", h.url, "not-the-token-0123456789", nil, initBody, 401, `Bearer realm="ctx", error="invalid_token"`, "wrong token"},
		{"token in the query string", h.url + "?access_token=" + testToken, "", nil, initBody, 401, `Bearer realm="ctx", error="invalid_request"`, "in the URL is refused"},
		{"token in the query string and the header", h.url + "?token=" + testToken, testToken, nil, initBody, 401, `Bearer realm="ctx", error="invalid_request"`, "in the URL is refused"},
		{"a web page's Origin", h.url, testToken, map[string]string{"Origin": "http://evil.example"}, initBody, 403, "", "cross-origin"},
		{"a browser's cross-site fetch", h.url, testToken, map[string]string{"Sec-Fetch-Site": "cross-site"}, initBody, 403, "", "cross-origin"},
		{"a rebound Host", h.url, testToken, map[string]string{"Host": "evil.example"}, initBody, 403, "", "invalid Host"},
		{"an oversized body", h.url, testToken, nil, big, 413, "", "exceeds"},
		{"an unknown session", h.url, testToken, map[string]string{"Mcp-Session-Id": "NOSUCHSESSION"}, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, 404, "", "session not found"},
		{"another path", strings.TrimSuffix(h.url, HTTPPath) + "/other", testToken, nil, initBody, 404, "", "/mcp"},
	} {
		resp := post(t, c.url, c.token, c.headers, c.body)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.msg) {
			t.Errorf("%s: %s %q, want %d and %q", c.name, resp.Status, body, c.status, c.msg)
		}
		if got := resp.Header.Get("WWW-Authenticate"); got != c.auth {
			t.Errorf("%s: WWW-Authenticate %q, want %q", c.name, got, c.auth)
		}
		if strings.Contains(string(body), testToken) {
			t.Errorf("%s: the answer quotes the token: %q", c.name, body)
		}
	}
	// The same server still answers a good request, with a session.
	if resp := post(t, h.url, testToken, map[string]string{"Origin": strings.TrimSuffix(h.url, HTTPPath)}, initBody); resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Errorf("a good initialize: %s", resp.Status)
	}
}

// TestHTTPSessionCap: 65 clients initializing at once against the default
// cap of 64: 64 sessions, one 503; a DELETE makes room for another.
func TestHTTPSessionCap(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	h := startHTTP(t, p.dir, HTTPOptions{})
	// Before the server stops (cleanups run last first): the client's
	// connections that were dialled for the burst but never sent a request
	// would otherwise hold http.Server.Shutdown for 5 s, as it takes a new
	// connection for idle only after that long.
	t.Cleanup(http.DefaultClient.CloseIdleConnections)
	n := DefaultMaxSessions + 1
	resps := make([]*http.Response, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { resps[i] = post(t, h.url, testToken, nil, initBody) })
	}
	wg.Wait()
	var ids []string
	refused := 0
	for _, r := range resps {
		switch r.StatusCode {
		case 200:
			ids = append(ids, r.Header.Get("Mcp-Session-Id"))
		case 503:
			refused++
			body, _ := io.ReadAll(r.Body)
			if !strings.Contains(string(body), "--max-sessions") {
				t.Errorf("503 says %q", body)
			}
		default:
			t.Errorf("initialize: %s", r.Status)
		}
	}
	if len(ids) != DefaultMaxSessions || refused != 1 {
		t.Fatalf("%d sessions and %d refused, want %d and 1", len(ids), refused, DefaultMaxSessions)
	}
	// A stateless request is not a session: it is served at the cap.
	if r := post(t, h.url, testToken, map[string]string{"Mcp-Protocol-Version": statelessVersion, "Mcp-Method": "tools/list"},
		`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}}}`); r.StatusCode != 200 {
		body, _ := io.ReadAll(r.Body)
		t.Errorf("stateless tools/list at the cap: %s %s", r.Status, body)
	}
	req, _ := http.NewRequest(http.MethodDelete, h.url, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Mcp-Session-Id", ids[0])
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %v %v", err, resp)
	}
	resp.Body.Close()
	// The slot is released when the session's end is noticed: wait for it
	// (a bound on a hang, not a speed check).
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		r := post(t, h.url, testToken, nil, initBody)
		if r.StatusCode == 200 {
			break
		}
		if r.StatusCode != 503 || time.Now().After(deadline) {
			t.Fatalf("initialize after a DELETE: %s", r.Status)
		}
	}
}

// TestHTTPShutdown: a request in flight when the server is told to stop
// gets its answer, and the open GET streams do not hold the shutdown.
func TestHTTPShutdown(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	entered, release := make(chan struct{}), make(chan struct{})
	h := startHTTP(t, p.dir, HTTPOptions{}, func(s *Server) {
		s.MCP().AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/call" {
					close(entered)
					<-release
				}
				return next(ctx, method, req)
			}
		})
	})
	// A session with its GET stream open; the call in flight is sent raw,
	// so that what is checked is the server's answer, not how the SDK's
	// client (with no retries here) reacts when the stream ends.
	cs := httpClient(t, h, "2025-11-25")
	got := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(
			`{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"list_contexts","arguments":{}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Mcp-Session-Id", cs.ID())
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			got <- "error reading the answer: " + err.Error()
			return
		}
		got <- resp.Status + " " + string(data)
	}()
	<-entered
	stopped := make(chan error, 1)
	go func() { stopped <- h.stop() }()
	// New connections are refused once the shutdown has begun.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		c, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(h.url, HTTPPath), "http://"))
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("still accepting connections a minute after the shutdown began")
		}
	}
	close(release)
	if res := <-got; !strings.HasPrefix(res, "200 ") || !strings.Contains(res, `"id":99,"result"`) || strings.Contains(res, `"isError":true`) {
		t.Errorf("the call in flight did not get its answer: %s", res)
	}
	if err := <-stopped; err != nil {
		t.Errorf("RunHTTP: %v", err)
	}
}

func TestCheckHTTPAddr(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, want string
		remote   bool
		err      string
	}{
		{"", DefaultHTTPAddr, false, ""},
		{":0", "127.0.0.1:0", false, ""},
		{":7420", "127.0.0.1:7420", false, ""},
		{"localhost:9000", "localhost:9000", false, ""},
		{"[::1]:0", "[::1]:0", false, ""},
		{"127.0.0.2:80", "127.0.0.2:80", false, ""},
		{"0.0.0.0:7420", "", false, "--allow-remote"},
		{"0.0.0.0:7420", "0.0.0.0:7420", true, ""},
		{"example.com:80", "", false, "not a loopback"},
		{"7420", "", false, "want HOST:PORT"},
		// cli20: a port out of range is a bad flag, not a port in use.
		{":99999", "", false, "the port must be 0-65535"},
		{"127.0.0.1:-1", "", false, "the port must be 0-65535"},
		{":65535", "127.0.0.1:65535", false, ""},
		{":http", "127.0.0.1:http", false, ""},
	} {
		got, err := CheckHTTPAddr(c.in, c.remote)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %q, %v; want an error with %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// TestHTTPClientURL (polish22b): the URL `ctx mcp config --http` gives a
// client names a port a client can use: a service name as the server's
// net.Listen reads it (":http" is port 80, not "127.0.0.1:http"), never
// port 0; and its errors do not suggest ":0 for a free port", which it
// refuses.
func TestHTTPClientURL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want, err string }{
		{":9000", "http://127.0.0.1:9000/mcp", ""},
		{"localhost:9000", "http://localhost:9000/mcp", ""},
		{"[::1]:9000", "http://[::1]:9000/mcp", ""},
		{"0.0.0.0:7420", "http://0.0.0.0:7420/mcp", ""},
		{":http", "http://127.0.0.1:80/mcp", ""},
		{":0", "", "port 0 is the free port"},
		{":00", "", "port 0 is the free port"},
		{":nosuchservice-ctx", "", `"nosuchservice-ctx" is not a port number or a service name`},
		{":99999", "", "the port must be 1-65535"},
		{"7420", "", "want HOST:PORT or :PORT (like 127.0.0.1:7420)"},
	} {
		got, err := HTTPClientURL(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "free port)") {
				t.Errorf("%q: %q, %v; want an error with %q and no suggestion of :0", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestToken(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cfg", "ctx", "mcp-token")
	tok, created, err := LoadToken(path)
	if err != nil || !created || CheckToken(tok, "new") != nil {
		t.Fatalf("first load: %q %v %v", tok, created, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v, want mode 0600", fi.Mode(), err)
	}
	again, created, err := LoadToken(path)
	if err != nil || created || again != tok {
		t.Fatalf("second load: %q %v %v, want %q", again, created, err, tok)
	}
	rot, err := RotateToken(path)
	if err != nil || rot == tok {
		t.Fatalf("rotate: %q %v", rot, err)
	}
	if got, _, _ := LoadToken(path); got != rot {
		t.Fatalf("after rotate: %q, want %q", got, rot)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("rotated token file mode %v", fi.Mode())
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadToken(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a token file others can read: %v", err)
	}
	os.Chmod(path, 0o600)
	os.WriteFile(path, []byte("short\n"), 0o600)
	if _, _, err := LoadToken(path); err == nil || !strings.Contains(err.Error(), "--rotate") {
		t.Errorf("a short token: %v", err)
	}
	for _, bad := range []string{"", "short", "has a space in it!!", "tab\tin-the-token-xx", strings.Repeat("x", 300), "nön-ascii-token-xxxxx"} {
		if err := CheckToken(bad, "CTX_MCP_TOKEN"); err == nil || !strings.HasPrefix(err.Error(), "CTX_MCP_TOKEN: ") {
			t.Errorf("CheckToken(%q) = %v", bad, err)
		}
	}
	if _, err := newHTTPServerFor(t, "short"); err == nil {
		t.Errorf("a server with a bad token started")
	}
}

func newHTTPServerFor(t *testing.T, token string) (*httpHandler, error) {
	s, err := New(Options{ProjectDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return s.newHTTPHandler(HTTPOptions{Token: token})
}

func TestHTTPConfigFor(t *testing.T) {
	t.Parallel()
	const url = "http://127.0.0.1:7420/mcp"
	for _, client := range Clients {
		cfg, err := HTTPConfigFor(client, url, testToken)
		if err != nil {
			t.Fatalf("%s: %v", client, err)
		}
		if !strings.Contains(cfg.Where, "out of any repository") {
			t.Errorf("%s: where = %q", client, cfg.Where)
		}
		if client == "codex" {
			want := "[mcp_servers.ctx]\nurl = \"" + url + "\"\nhttp_headers = { \"Authorization\" = \"Bearer " + testToken + "\" }\n"
			if cfg.Text != want {
				t.Errorf("codex: %q, want %q", cfg.Text, want)
			}
			continue
		}
		var doc map[string]map[string]struct {
			Type    string            `json:"type"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		}
		if err := json.Unmarshal([]byte(cfg.Text), &doc); err != nil {
			t.Fatalf("%s: %v\n%s", client, err, cfg.Text)
		}
		key := "mcpServers"
		if client == "vscode" {
			key = "servers"
		}
		s := doc[key]["ctx"]
		if s.URL != url || s.Headers["Authorization"] != "Bearer "+testToken || (client != "cursor" && s.Type != "http") {
			t.Errorf("%s: %s", client, cfg.Text)
		}
	}
	if _, err := HTTPConfigFor("emacs", url, testToken); err == nil {
		t.Error("unknown client accepted")
	}
}

// rawInit initializes a session with a raw POST and returns its id.
func rawInit(t *testing.T, h *httpServer) string {
	t.Helper()
	r := post(t, h.url, testToken, nil, initBody)
	id := r.Header.Get("Mcp-Session-Id")
	if r.StatusCode != 200 || id == "" {
		body, _ := io.ReadAll(r.Body)
		t.Fatalf("initialize: %s %s", r.Status, body)
	}
	post(t, h.url, testToken, map[string]string{"Mcp-Session-Id": id}, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return id
}

// rpcErrorCode is the JSON-RPC error code in an answer (a JSON body or an
// SSE event), and whether there is one.
func rpcErrorCode(t *testing.T, body []byte) (int, bool) {
	t.Helper()
	s := string(body)
	if i := strings.Index(s, "data: "); i >= 0 {
		s = strings.TrimSpace(strings.SplitN(s[i+len("data: "):], "\n", 2)[0])
	}
	var msg struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(s), &msg); err != nil || msg.Error == nil {
		return 0, false
	}
	return msg.Error.Code, true
}

// TestHTTPToTheLetter: a request without a session id where one is needed
// gets 400, a second initialize a JSON-RPC error with a code, and a GET
// from a web page's Origin 403.
func TestHTTPToTheLetter(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	h := startHTTP(t, p.dir, HTTPOptions{})
	r := post(t, h.url, testToken, nil, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	body, _ := io.ReadAll(r.Body)
	if code, ok := rpcErrorCode(t, body); r.StatusCode != http.StatusBadRequest || !ok || code == 0 || !strings.Contains(string(body), "Mcp-Session-Id") {
		t.Errorf("tools/list without a session id: %s %s, want 400 with a JSON-RPC error naming Mcp-Session-Id", r.Status, body)
	}
	id := rawInit(t, h)
	r = post(t, h.url, testToken, map[string]string{"Mcp-Session-Id": id}, initBody)
	body, _ = io.ReadAll(r.Body)
	if code, ok := rpcErrorCode(t, body); !ok || code == 0 {
		t.Errorf("a second initialize: %s %s, want a JSON-RPC error with a code", r.Status, body)
	}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(method, h.url, nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Origin", "http://evil.example")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s with Origin http://evil.example: %s, want 403", method, resp.Status)
		}
	}
	// The session is still there.
	if r := post(t, h.url, testToken, map[string]string{"Mcp-Session-Id": id}, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); r.StatusCode != 200 {
		t.Errorf("tools/list in the session: %s", r.Status)
	}
}

// TestHTTPSessionEviction: at the session cap, a new initialize takes the
// place of the least recently used session idle for EvictIdle with no GET
// stream; when none qualifies, 503 with Retry-After.
func TestHTTPSessionEviction(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	t.Cleanup(http.DefaultClient.CloseIdleConnections)
	// None idle long enough: 503.
	busy := startHTTP(t, p.dir, HTTPOptions{MaxSessions: 2, EvictIdle: time.Hour})
	rawInit(t, busy)
	rawInit(t, busy)
	r := post(t, busy.url, testToken, nil, initBody)
	body, _ := io.ReadAll(r.Body)
	if r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "--max-sessions") {
		t.Errorf("a third initialize, none idle: %s (Retry-After %q) %s", r.Status, r.Header.Get("Retry-After"), body)
	}

	// Idle ones (EvictIdle of 1 ns: any session not in a request): the
	// least recently used without a GET stream goes.
	h := startHTTP(t, p.dir, HTTPOptions{MaxSessions: 2, EvictIdle: time.Nanosecond})
	first, second := rawInit(t, h), rawInit(t, h)
	// first is used last, so second is the least recently used...
	if r := post(t, h.url, testToken, map[string]string{"Mcp-Session-Id": first}, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); r.StatusCode != 200 {
		t.Fatalf("tools/list: %s", r.Status)
	}
	// ...but it has a GET stream open, so first goes.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.url, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", second)
	stream, err := http.DefaultClient.Do(req)
	if err != nil || stream.StatusCode != 200 {
		t.Fatalf("GET stream: %v %v", err, stream)
	}
	defer stream.Body.Close()
	third := rawInit(t, h)
	status := func(id string) int {
		return post(t, h.url, testToken, map[string]string{"Mcp-Session-Id": id}, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`).StatusCode
	}
	if s := status(first); s != http.StatusNotFound {
		t.Errorf("the evicted session answers %d, want 404", s)
	}
	if s2, s3 := status(second), status(third); s2 != 200 || s3 != 200 {
		t.Errorf("the session with a stream answers %d, the new one %d; want 200 and 200", s2, s3)
	}
	// Both left have a reason to stay now? second has its stream; third is
	// idle: a fourth initialize evicts third.
	fourth := rawInit(t, h)
	if s := status(third); s != http.StatusNotFound {
		t.Errorf("third after a fourth initialize: %d, want 404", s)
	}
	if s := status(fourth); s != 200 {
		t.Errorf("fourth: %d", s)
	}
}
