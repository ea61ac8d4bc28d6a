package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The HTTP transport's defaults.
const (
	// DefaultHTTPAddr is where `ctx mcp --http` listens without an ADDR.
	DefaultHTTPAddr = "127.0.0.1:7420"
	// HTTPPath is the MCP endpoint: http://ADDR/mcp.
	HTTPPath = "/mcp"
	// HealthPath answers a liveness probe (a container's health check)
	// with "ok" and no token: it tells nothing of the project or its
	// documents, and only GET and HEAD are served.
	HealthPath = "/healthz"
	// DefaultMaxSessions caps the session-based clients connected at once.
	DefaultMaxSessions = 64
	// DefaultSessionTimeout closes a session that sent no request for so long.
	DefaultSessionTimeout = 15 * time.Minute
	// DefaultEvictIdle: at the session cap, a new session takes the place
	// of the least recently used one idle for at least so long with no GET
	// stream open (issue 26: short-lived clients that never send DELETE
	// must not lock agents out until DefaultSessionTimeout).
	DefaultEvictIdle = 30 * time.Second
	// DefaultMaxBodyBytes bounds a request body (a search query is at most
	// 8 KB; the SDK's own default is 4 MiB).
	DefaultMaxBodyBytes = 1 << 20
	// ShutdownTimeout bounds how long in-flight requests may run on after
	// the server is told to stop.
	ShutdownTimeout = 5 * time.Second

	// readTimeout bounds reading a request's headers and body; writeTimeout
	// writing a response (a call that re-indexes waits for it). Neither
	// applies to a session's GET stream of notifications, which lasts as long
	// as the session.
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 2 * time.Minute
	idleTimeout       = 2 * time.Minute
	maxHeaderBytes    = 64 << 10

	// statelessVersion is the first protocol revision without sessions
	// (SEP-2575): requests that name it, or a later one, in
	// MCP-Protocol-Version are served statelessly.
	statelessVersion = "2026-07-28"
)

// HTTPOptions configure the HTTP transport.
type HTTPOptions struct {
	// Token is the bearer token every request must carry (required; see
	// CheckToken).
	Token string
	// MaxSessions caps the sessions open at once (0: DefaultMaxSessions).
	// At the cap, a new session closes the least recently used one idle
	// for EvictIdle with no GET stream open, or gets 503 with Retry-After
	// when none is. Stateless requests are not sessions.
	MaxSessions int
	// EvictIdle is how long a session must have been idle to make room
	// at the cap (0: DefaultEvictIdle).
	EvictIdle time.Duration
	// SessionTimeout closes idle sessions (0: DefaultSessionTimeout).
	SessionTimeout time.Duration
	// MaxBodyBytes bounds a request body (0: DefaultMaxBodyBytes); a larger
	// one gets 413.
	MaxBodyBytes int64
}

// CheckHTTPAddr checks where `ctx mcp --http` is asked to listen and
// returns the address to bind: "" is DefaultHTTPAddr, an empty host (":0",
// ":7420") is 127.0.0.1. A host that is not loopback (an IP address, or a
// name other than localhost) needs allowRemote.
func CheckHTTPAddr(addr string, allowRemote bool) (string, error) {
	if addr == "" {
		return DefaultHTTPAddr, nil
	}
	return checkHTTPAddr(addr, allowRemote, "0-65535", "like "+DefaultHTTPAddr+", or :0 for a free port")
}

// HTTPClientURL is the URL a client is given (`ctx mcp config --http`)
// for a server started with `ctx mcp --http addr`: CheckHTTPAddr's host,
// and its port as a number, a service name read as the server's
// net.Listen reads it (":http" is 80: a URL cannot name a service). Port
// 0 is refused: it is the free port a server picks when it starts, which
// no client can be given; so are the errors' examples. "" is
// DefaultHTTPAddr.
func HTTPClientURL(addr string) (string, error) {
	if addr == "" {
		addr = DefaultHTTPAddr
	}
	a, err := checkHTTPAddr(addr, true, "1-65535", "like "+DefaultHTTPAddr)
	if err != nil {
		return "", err
	}
	host, port, _ := net.SplitHostPort(a)
	n, err := net.LookupPort("tcp", port) // a number, or /etc/services (and Go's own table)
	if err != nil {
		return "", fmt.Errorf("--http %q: %q is not a port number or a service name this machine knows (like %s)", addr, port, DefaultHTTPAddr)
	}
	if n == 0 {
		return "", fmt.Errorf("--http %q: port 0 is the free port 'ctx mcp --http :0' picks when it starts; give the address it printed (ctx mcp: serving MCP at http://ADDR/mcp)", addr)
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(n)) + HTTPPath, nil
}

// checkHTTPAddr checks addr (not empty) as CheckHTTPAddr does, with the
// ports allowed and the examples its errors give (a server's or a
// client's).
func checkHTTPAddr(addr string, allowRemote bool, ports, like string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--http %q: want HOST:PORT or :PORT (%s): %w", addr, like, err)
	}
	// A port is a number of 0-65535 or a service name (net.Listen's
	// rule); one out of range is what was typed wrong, not a port in use.
	// The message is ASCII: it reaches a terminal in any locale, and
	// Symbols.Marks maps only … and →.
	if n, err := strconv.Atoi(port); err == nil && (n < 0 || n > 65535) {
		return "", fmt.Errorf("--http %q: the port must be %s (%s)", addr, ports, like)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if host == "localhost" {
		return net.JoinHostPort(host, port), nil
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	if (ip == nil || !ip.IsLoopback()) && !allowRemote {
		return "", fmt.Errorf("--http %q: %s is not a loopback address; the server would be reachable from other machines: add --allow-remote to mean it, behind a TLS-terminating proxy", addr, host)
	}
	return net.JoinHostPort(host, port), nil
}

// IsLoopbackAddr reports whether a bound address (host:port) is on loopback.
func IsLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// httpHandler serves one Server over streamable HTTP: session-based
// clients (protocol revisions 2025-03-26 to 2025-11-25) on the SDK's
// stateful handler, and stateless ones (2026-07-28 and later) on its
// stateless handler. Both hand every request to the same mcp.Server, so
// the index reader, the project state and re-indexes are shared.
type httpHandler struct {
	s         *Server
	tokenSum  [sha256.Size]byte
	max       int
	stateful  http.Handler
	stateless http.Handler
	maxBody   int64

	// crossOrigin is net/http's protection against cross-origin browser
	// requests.
	crossOrigin *http.CrossOriginProtection

	evictIdle time.Duration

	mu       sync.Mutex
	sessions int                                  // open and starting sessions
	open     map[string]*sessionUse               // the open sessions, by id
	streams  map[*http.Request]context.CancelFunc // GET streams, ended at shutdown
	inflight int                                  // other requests being served
	watchers sync.WaitGroup                       // goroutines waiting for sessions to end
}

func (s *Server) newHTTPHandler(o HTTPOptions) (*httpHandler, error) {
	if err := CheckToken(o.Token, "the MCP token"); err != nil {
		return nil, err
	}
	if o.MaxSessions == 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.MaxSessions < 0 {
		return nil, fmt.Errorf("--max-sessions %d: want at least 1", o.MaxSessions)
	}
	if o.SessionTimeout == 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.EvictIdle == 0 {
		o.EvictIdle = DefaultEvictIdle
	}
	sdkLog := slog.New(slog.NewTextHandler(s.logOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	get := func(*http.Request) *mcp.Server { return s.srv }
	h := &httpHandler{
		s:         s,
		tokenSum:  sha256.Sum256([]byte(o.Token)),
		max:       o.MaxSessions,
		evictIdle: o.EvictIdle,
		maxBody:   o.MaxBodyBytes,
		open:      map[string]*sessionUse{},
		streams:   map[*http.Request]context.CancelFunc{},
		// Against DNS rebinding, the SDK refuses a non-loopback Host on a
		// loopback connection (403); net/http's cross-origin protection
		// refuses a browser's cross-origin request of any method (an Origin
		// that is not the Host, or Sec-Fetch-Site other than same-origin;
		// ServeHTTP asks it as for a POST, so that a GET is checked too).
		crossOrigin: http.NewCrossOriginProtection(),
		stateful: mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
			SessionTimeout:      o.SessionTimeout,
			MaxRequestBodyBytes: o.MaxBodyBytes,
			Logger:              sdkLog,
		}),
		stateless: mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
			Stateless:           true,
			MaxRequestBodyBytes: o.MaxBodyBytes,
			Logger:              sdkLog,
		}),
	}
	return h, nil
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == HealthPath {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = io.WriteString(w, "ok\n")
		return
	}
	if r.URL.Path != HTTPPath {
		http.Error(w, fmt.Sprintf("not found: the MCP endpoint is %s", HTTPPath), http.StatusNotFound)
		return
	}
	// The Origin check on every method (a GET stream too): net/http's
	// check passes safe methods, so it is asked as for a POST.
	asPost := *r
	asPost.Method = http.MethodPost
	if err := h.crossOrigin.Check(&asPost); err != nil {
		http.Error(w, "forbidden: a cross-origin request (Origin "+safetext.Quote(r.Header.Get("Origin"))+"): ctx serves MCP clients, not web pages", http.StatusForbidden)
		return
	}
	if !h.authorized(w, r) {
		return
	}
	rc := http.NewResponseController(w)
	if r.Method == http.MethodGet {
		// A session's stream of notifications: no deadline, ended by the
		// session's end or by shutdown.
		_ = rc.SetReadDeadline(time.Time{})
		_ = rc.SetWriteDeadline(time.Time{})
		ctx, cancel := context.WithCancel(r.Context())
		h.mu.Lock()
		h.streams[r] = cancel
		h.mu.Unlock()
		defer func() {
			h.mu.Lock()
			delete(h.streams, r)
			h.mu.Unlock()
			cancel()
		}()
		r = r.WithContext(ctx)
	} else {
		h.mu.Lock()
		h.inflight++
		h.mu.Unlock()
		defer func() {
			h.mu.Lock()
			h.inflight--
			h.mu.Unlock()
		}()
		if r.Body != nil {
			// The read deadline bounds the body; once it is read, the
			// request may take as long as the write deadline allows
			// without net/http cancelling it when the read deadline passes.
			r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
		}
	}
	sid := r.Header.Get("Mcp-Session-Id")
	if sid != "" {
		defer h.use(sid, r.Method == http.MethodGet)()
	}
	switch {
	case sid == "" && r.Header.Get("Mcp-Protocol-Version") >= statelessVersion:
		h.stateless.ServeHTTP(w, r)
	case sid == "" && r.Method == http.MethodPost:
		h.newSession(w, r)
	default:
		h.stateful.ServeHTTP(w, r)
	}
}

// authorized checks the bearer token in constant time, answering 401 with
// WWW-Authenticate when it is missing or wrong, or when a token is sent in
// the URL (where proxies and logs keep it). The token is never logged.
func (h *httpHandler) authorized(w http.ResponseWriter, r *http.Request) bool {
	deny := func(params, msg string) bool {
		w.Header().Set("WWW-Authenticate", `Bearer realm="ctx"`+params)
		http.Error(w, msg, http.StatusUnauthorized)
		return false
	}
	q := r.URL.Query()
	if q.Has("access_token") || q.Has("token") {
		return deny(`, error="invalid_request"`, "unauthorized: a token in the URL is refused (URLs end up in logs): send it in the header Authorization: Bearer <token>, and run 'ctx mcp token --rotate' if it was a real one")
	}
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return deny("", "unauthorized: missing the header Authorization: Bearer <token>; 'ctx mcp token' prints the token, 'ctx mcp config --client NAME --http' a client's configuration")
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	if subtle.ConstantTimeCompare(sum[:], h.tokenSum[:]) != 1 {
		return deny(`, error="invalid_token"`, "unauthorized: wrong token; 'ctx mcp token' prints the current one (a rotated token needs a restarted server)")
	}
	return true
}

// sessionUse is what the cap's eviction knows of an open session.
type sessionUse struct {
	ss       *mcp.ServerSession
	last     time.Time // when its last request ended (or began, while busy)
	busy     int       // its requests being served, GET streams excluded
	streams  int       // its GET streams open
	released bool      // its slot is free (evicted, or ended)
}

// use notes a request of session sid, a GET stream or not; the function
// it returns notes its end.
func (h *httpHandler) use(sid string, stream bool) func() {
	h.mu.Lock()
	defer h.mu.Unlock()
	u := h.open[sid]
	if u == nil {
		return func() {}
	}
	u.last = time.Now()
	if stream {
		u.streams++
	} else {
		u.busy++
	}
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		u.last = time.Now()
		if stream {
			u.streams--
		} else {
			u.busy--
		}
	}
}

// evictable returns the least recently used open session that is idle (no
// request, no GET stream) since at least h.evictIdle before now, or nil;
// and, when there is none, how long until one may be (0: none idle).
// h.mu is held.
func (h *httpHandler) evictable(now time.Time) (string, *sessionUse, time.Duration) {
	var id string
	var lru *sessionUse
	var soonest time.Duration
	for sid, u := range h.open {
		if u.busy > 0 || u.streams > 0 || u.released {
			continue
		}
		if wait := h.evictIdle - now.Sub(u.last); wait > 0 {
			if soonest == 0 || wait < soonest {
				soonest = wait
			}
			continue
		}
		if lru == nil || u.last.Before(lru.last) {
			id, lru = sid, u
		}
	}
	return id, lru, soonest
}

// newSession serves a POST without a session id, which must be an
// initialize (else 400, as the spec says), on the stateful handler, if the
// cap allows one more session: at the cap, the least recently used session
// idle for evictIdle with no GET stream is closed to make room, and when
// none is, the answer is 503 with Retry-After. The slot is kept until the
// session it opened ends (DELETE, idle timeout, eviction, shutdown).
func (h *httpHandler) newSession(w http.ResponseWriter, r *http.Request) {
	if !h.isInitialize(w, r) {
		return
	}
	h.mu.Lock()
	if h.sessions >= h.max {
		id, u, wait := h.evictable(time.Now())
		if u == nil {
			h.mu.Unlock()
			retry := 10
			if wait > 0 {
				retry = int((wait + time.Second - 1) / time.Second)
			}
			w.Header().Set("Retry-After", strconv.Itoa(retry))
			http.Error(w, fmt.Sprintf("service unavailable: %d MCP sessions are open and in use, the most this server takes (--max-sessions); a session idle for %v with no open stream makes room: try again after %d s, close an idle agent, or restart ctx mcp --http with a higher --max-sessions", h.max, h.evictIdle, retry), http.StatusServiceUnavailable)
			return
		}
		u.released = true
		delete(h.open, id)
		h.sessions--
		h.s.log.Info("session cap reached: closing the least recently used idle session", "idle", time.Since(u.last).Round(time.Millisecond), "max", h.max)
		defer func() { _ = u.ss.Close() }() // after this one's slot is taken
	}
	h.sessions++
	h.mu.Unlock()
	release := func(u *sessionUse) {
		h.mu.Lock()
		defer h.mu.Unlock()
		if u == nil || !u.released {
			h.sessions--
		}
		if u != nil {
			u.released = true
		}
	}
	h.stateful.ServeHTTP(w, r)
	id := w.Header().Get("Mcp-Session-Id")
	if id == "" {
		release(nil)
		return
	}
	for ss := range h.s.srv.Sessions() {
		if ss.ID() == id {
			u := &sessionUse{ss: ss, last: time.Now()}
			h.mu.Lock()
			h.open[id] = u
			h.mu.Unlock()
			h.watchers.Add(1)
			go func() {
				defer h.watchers.Done()
				_ = ss.Wait()
				h.mu.Lock()
				if h.open[id] == u {
					delete(h.open, id)
				}
				h.mu.Unlock()
				release(u)
			}()
			return
		}
	}
	release(nil) // it failed to initialize and is closed already
}

// isInitialize reports whether r's body (a JSON-RPC message or batch) holds
// an initialize request, leaving the body to be read again. When it holds
// only other messages, it answers 400 with a JSON-RPC error: a session id
// is required for them. A body it cannot read is left to the SDK to refuse.
func (h *httpHandler) isInitialize(w http.ResponseWriter, r *http.Request) bool {
	if r.Body == nil {
		return true
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, h.maxBody+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(data), r.Body), r.Body}
	if err != nil || int64(len(data)) > h.maxBody {
		return true
	}
	type message struct {
		ID     json.RawMessage `json:"id,omitempty"`
		Method string          `json:"method"`
	}
	var msgs []message
	var one message
	if json.Unmarshal(data, &one) == nil {
		msgs = []message{one}
	} else if json.Unmarshal(data, &msgs) != nil {
		return true
	}
	for _, m := range msgs {
		if m.Method == "initialize" {
			return true
		}
	}
	id := json.RawMessage("null")
	if len(msgs) == 1 && len(msgs[0].ID) > 0 {
		id = msgs[0].ID
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
		"code":    jsonrpc.CodeInvalidRequest,
		"message": "bad request: a request without the header Mcp-Session-Id must be an initialize; send the Mcp-Session-Id that initialize answered with",
	}})
	_, _ = w.Write(b)
	return false
}

// awaitRequests waits until no request but the GET streams is being served,
// or ctx is done.
func (h *httpHandler) awaitRequests(ctx context.Context) {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		h.mu.Lock()
		n := h.inflight
		h.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// endStreams ends the GET streams, which never finish on their own.
func (h *httpHandler) endStreams() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, cancel := range h.streams {
		cancel()
	}
}

// closeSessions closes every session of the HTTP handlers and waits until
// their slots are released.
func (h *httpHandler) closeSessions() {
	for ss := range h.s.srv.Sessions() {
		if ss.ID() != "" {
			_ = ss.Close()
		}
	}
	h.watchers.Wait()
}

// deadlineBody lifts the connection's read deadline once the body is read.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// RunHTTP serves MCP over streamable HTTP on ln until ctx is done, then
// shuts down: no new connection is accepted, requests in flight get up to
// ShutdownTimeout to finish (a session's GET stream stays open meanwhile,
// since clients drop a session whose stream fails), then the GET streams
// end and every session is closed. It returns nil
// after a shutdown, and the error that stopped it otherwise.
func (s *Server) RunHTTP(ctx context.Context, ln net.Listener, o HTTPOptions) error {
	s.snapshot() // says at once on stderr which dir sources are refused
	h, err := s.newHTTPHandler(o)
	if err != nil {
		ln.Close()
		return err
	}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          log.New(s.logOut, "ctx mcp: http: ", 0),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		h.closeSessions()
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- hs.Shutdown(sctx) }()
	h.awaitRequests(sctx)
	h.endStreams()
	h.closeSessions()
	if err := <-shut; err != nil {
		s.log.Warn("requests still running after the shutdown timeout were cut", "timeout", ShutdownTimeout)
		hs.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
