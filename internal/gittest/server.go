package gittest

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ServeOptions configure Serve.
type ServeOptions struct {
	// BasicAuth, "user:pass", makes every request without these credentials
	// get 401 with a WWW-Authenticate: Basic challenge.
	BasicAuth string
	// DisableFilter makes the server not advertise `filter`
	// (uploadpack.allowFilter=false) and not allow any SHA-1 in want.
	DisableFilter bool
	// NoAnySHA1InWant keeps filter support but leaves
	// uploadpack.allowAnySHA1InWant off, as git's default is: protocol v0
	// clients then cannot ask for blobs by id.
	NoAnySHA1InWant bool
	// ReceivePack enables pushes (http.receivepack), which git
	// http-backend otherwise refuses to anonymous clients.
	ReceivePack bool
	// PushAuth, "user:pass", makes every receive-pack request (a push)
	// without these credentials get 401, as a forge does for a public
	// repository: reads stay anonymous.
	PushAuth string
	// Stderr receives git http-backend's error output; nil discards it.
	Stderr io.Writer
	// Latency delays every response by this much before it starts, as a
	// network round trip would (benchmarks: loopback has none).
	Latency time.Duration
	// Replay keeps the response to each smart-HTTP request (an
	// advertisement, an upload-pack) in memory, and answers the same
	// request (method, URL and body) again from there, faults included
	// (SetFault), without starting git http-backend. A test that times
	// how long a server is silent primes it with a healthy fetch: then no
	// wait for git under the machine's load counts as the server's
	// silence. The repositories must not change while it is on.
	Replay bool
	// Memo answers an upload-pack request (an advertisement, a pack) from
	// memory when git http-backend has answered the same request before,
	// under the same settings, from a repository holding the same bytes
	// (every file read and hashed per request: a copy of a fixture
	// elsewhere, in another test of the process, counts as the same). A
	// kept answer is one native git gave, whole; pushes, static files and
	// repositories with borrowed objects always reach git. The same
	// request arriving while git answers it (parallel fetches) waits for
	// that answer.
	Memo bool
}

// Server is a smart-HTTP git server on 127.0.0.1: `git http-backend` behind
// net/http/cgi. The repository ROOT/NAME is served at URL+"/"+NAME; any other
// path under ROOT that is a plain file is served as a static file (registry
// JSON over http, say). It counts the response bytes it sends.
type Server struct {
	URL string

	root     string
	opts     ServeOptions
	backend  *cgi.Handler
	srv      *http.Server
	ln       net.Listener
	bytes    atomic.Int64
	requests atomic.Int64
	conns    atomic.Int64
	done     chan struct{}
	fault    atomic.Pointer[faultState]
	faulted  atomic.Int64
	replay   sync.Map // replayKey → *recorded (ServeOptions.Replay)
	// viaBackend sends every request through git http-backend, the
	// fetches too (serveUploadPack): the reference a test compares with.
	viaBackend bool
	// backendRuns counts the requests git ran for (http-backend, or
	// upload-pack alone for a fetch: serveUploadPack).
	backendRuns atomic.Int64
	// memoWait, when set (a test), is called each time a request waits
	// for the same request's answer from git (ServeOptions.Memo).
	memoWait atomic.Pointer[func()]
	// beforeBackend, when set (a test), is called before each run of git
	// http-backend.
	beforeBackend atomic.Pointer[func()]
}

// recorded is a response kept for ServeOptions.Replay.
type recorded struct {
	status int
	header http.Header
	body   []byte
}

// FaultMode is how a server fails mid-response (see SetFault).
type FaultMode int

const (
	// FaultNone serves normally.
	FaultNone FaultMode = iota
	// FaultStall stops sending, keeping the connection open, as a server
	// whose process was stopped (SIGSTOP) does; it sends nothing more until
	// the client hangs up or the server is closed.
	FaultStall
	// FaultClose closes the connection (FIN) without ending the response.
	FaultClose
	// FaultKill resets the connection (RST), as the kernel does when the
	// server process is killed.
	FaultKill
	// FaultDrip sends the rest one byte every Fault.Every, as a server on
	// a link too slow to use does: the idle timeout never trips on it.
	FaultDrip
)

// Fault makes git-upload-pack responses (the ones that carry packs) fail
// after After bytes of the response body.
type Fault struct {
	Mode  FaultMode
	After int64
	Every time.Duration // FaultDrip: the time between two bytes
	// Reached, when set, is called each time a response reaches the fault
	// (its After bytes sent and flushed), before it fails: a test whose
	// client times the server's silence starts that client's clock there,
	// so that no wait before the fault counts, however loaded the machine.
	Reached func()
}

type faultState struct {
	Fault
	stop    chan struct{} // closed when the fault is cleared or the server closed
	faulted *atomic.Int64 // the server's count of responses the fault hit
}

// SetFault makes every later git-upload-pack response fail as f says;
// SetFault(Fault{}) serves normally again and lets stalled responses end
// (their connections are then closed).
func (s *Server) SetFault(f Fault) {
	var next *faultState
	if f.Mode != FaultNone {
		next = &faultState{Fault: f, stop: make(chan struct{}), faulted: &s.faulted}
	}
	if old := s.fault.Swap(next); old != nil {
		close(old.stop)
	}
}

// faultWriter passes After bytes on, then fails as its mode says.
type faultWriter struct {
	http.ResponseWriter
	raw  http.ResponseWriter // the server's own writer, for Hijack
	f    *faultState
	done <-chan struct{} // the request's context
	n    int64
}

var errFault = errors.New("gittest: injected fault")

func (w *faultWriter) Write(p []byte) (int, error) {
	if w.n+int64(len(p)) <= w.f.After {
		n, err := w.ResponseWriter.Write(p)
		w.n += int64(n)
		return n, err
	}
	if w.f.Mode == FaultDrip && w.n > w.f.After { // dripping already
		return w.drip(p)
	}
	head := p[:w.f.After-w.n]
	n, err := w.ResponseWriter.Write(head)
	w.n += int64(n)
	if err != nil {
		return n, err
	}
	w.Flush()
	w.f.faulted.Add(1)
	if w.f.Reached != nil {
		w.f.Reached()
	}
	switch w.f.Mode {
	case FaultDrip:
		m, err := w.drip(p[n:])
		return n + m, err
	case FaultStall:
		select {
		case <-w.f.stop:
		case <-w.done:
		}
		w.hangUp(false)
	case FaultClose:
		w.hangUp(false)
	case FaultKill:
		w.hangUp(true)
	}
	return n, errFault
}

// drip writes p one byte every Fault.Every, until the client hangs up or
// the fault is cleared (then the connection is closed).
func (w *faultWriter) drip(p []byte) (int, error) {
	t := time.NewTicker(max(w.f.Every, time.Millisecond))
	defer t.Stop()
	for i := range p {
		select {
		case <-w.f.stop:
			w.hangUp(false)
			return i, errFault
		case <-w.done:
			return i, errFault
		case <-t.C:
		}
		if _, err := w.ResponseWriter.Write(p[i : i+1]); err != nil {
			return i, err
		}
		w.n++
		w.Flush()
	}
	return len(p), nil
}

// hangUp closes the connection under the response, with a reset if rst.
func (w *faultWriter) hangUp(rst bool) {
	conn, _, err := http.NewResponseController(w.raw).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok && rst {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

func (w *faultWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// execPath is git's exec path, asked once a process (a `git --exec-path`
// for every server was a process each).
var execPath = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		return "", fmt.Errorf("find git exec path (is git installed?): %w", err)
	}
	return strings.TrimSpace(string(out)), nil
})

// gitProgram is the path of one of git's programs (git-http-backend,
// git-daemon) in its exec path.
func gitProgram(name string) (string, error) {
	dir, err := execPath()
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s not found: %w", name, err)
	}
	return p, nil
}

// Serve starts a server for the repositories under root. Close it when done.
func Serve(root string, o ServeOptions) (*Server, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	backend, err := gitProgram("git-http-backend")
	if err != nil {
		return nil, err
	}
	filter, anySHA := "true", "true"
	if o.DisableFilter {
		filter, anySHA = "false", "false"
	}
	if o.NoAnySHA1InWant {
		anySHA = "false"
	}
	env := []string{
		"GIT_PROJECT_ROOT=" + root,
		"GIT_HTTP_EXPORT_ALL=1",
		"GIT_CONFIG_NOSYSTEM=1",
		"HOME=" + noHome(),
		"XDG_CONFIG_HOME=" + filepath.Join(noHome(), ".config"),
		"GIT_CONFIG_COUNT=4",
		"GIT_CONFIG_KEY_0=uploadpack.allowFilter",
		"GIT_CONFIG_VALUE_0=" + filter,
		"GIT_CONFIG_KEY_1=uploadpack.allowAnySHA1InWant",
		"GIT_CONFIG_VALUE_1=" + anySHA,
		// Repositories in t.TempDir() may be owned by another uid in containers.
		"GIT_CONFIG_KEY_2=safe.directory",
		"GIT_CONFIG_VALUE_2=*",
		"GIT_CONFIG_KEY_3=http.receivepack",
		"GIT_CONFIG_VALUE_3=" + fmt.Sprint(o.ReceivePack),
	}
	// The test process's malloc setting (testtmp.GlibcTunables) reaches
	// the git it starts here too: this environment is not inherited.
	if v := processEnv("GLIBC_TUNABLES"); v != "" {
		env = append(env, "GLIBC_TUNABLES="+v)
	}
	stderr := o.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	s := &Server{
		root: root,
		opts: o,
		backend: &cgi.Handler{
			Path:       backend,
			Root:       "/",
			Env:        env,
			InheritEnv: []string{"PATH"},
			Stderr:     stderr,
			Logger:     log.New(stderr, "", 0),
		},
		done: make(chan struct{}),
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on 127.0.0.1: %w", err)
	}
	s.ln = ln
	s.URL = "http://" + ln.Addr().String()
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serveHTTP), ConnState: func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// BytesSent returns the response body bytes written so far.
func (s *Server) BytesSent() int64 { return s.bytes.Load() }

// Requests returns the number of requests served so far.
func (s *Server) Requests() int { return int(s.requests.Load()) }

// Faulted returns the number of responses a fault (SetFault) has hit so
// far: each is one request the client made after the fault began.
func (s *Server) Faulted() int { return int(s.faulted.Load()) }

// Conns returns the number of TCP connections accepted so far.
func (s *Server) Conns() int { return int(s.conns.Load()) }

// ResetCounters sets BytesSent, Requests, Conns and Faulted back to zero.
func (s *Server) ResetCounters() {
	s.bytes.Store(0)
	s.requests.Store(0)
	s.conns.Store(0)
	s.faulted.Store(0)
}

// Close stops the server and waits for it to finish.
func (s *Server) Close() error {
	s.SetFault(Fault{})
	err := s.srv.Close()
	<-s.done
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

// Write counts p before it is written: once a client has read these bytes
// they are counted (the handler's Write may return after the client has
// read the whole answer and the test has looked at BytesSent); what a
// failed write did not send is taken off again.
func (w countingWriter) Write(p []byte) (int, error) {
	w.n.Add(int64(len(p)))
	n, err := w.ResponseWriter.Write(p)
	if n < len(p) {
		w.n.Add(-int64(len(p) - n))
	}
	return n, err
}

func (w countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	if s.opts.Latency > 0 {
		time.Sleep(s.opts.Latency)
	}
	cw := countingWriter{ResponseWriter: w, n: &s.bytes}
	if s.opts.BasicAuth != "" {
		user, pass, ok := r.BasicAuth()
		if !ok || user+":"+pass != s.opts.BasicAuth {
			w.Header().Set("WWW-Authenticate", `Basic realm="gittest"`)
			http.Error(cw, "authentication required", http.StatusUnauthorized)
			return
		}
	}
	clean := path.Clean("/" + r.URL.Path)
	if s.opts.PushAuth != "" && isReceivePack(clean, r) {
		user, pass, ok := r.BasicAuth()
		if !ok || user+":"+pass != s.opts.PushAuth {
			w.Header().Set("WWW-Authenticate", `Basic realm="gittest push"`)
			http.Error(cw, "authentication required", http.StatusUnauthorized)
			return
		}
	}
	if !isSmartGit(clean, r) {
		p := filepath.Join(s.root, filepath.FromSlash(clean))
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			http.ServeFile(cw, r, p)
			return
		}
	}
	var out http.ResponseWriter = cw
	if f := s.fault.Load(); f != nil && strings.HasSuffix(clean, "/git-upload-pack") {
		out = &faultWriter{ResponseWriter: cw, raw: w, f: f, done: r.Context().Done()}
	}
	switch {
	case s.opts.Replay:
		s.serveReplay(out, r)
	case s.opts.Memo && isUploadPack(clean, r):
		s.serveMemo(out, r, clean)
	default:
		s.runBackend(out, r)
	}
}

// runBackend answers r with git: upload-pack alone for a fetch, as git
// http-backend runs it (serveUploadPack), else git http-backend.
func (s *Server) runBackend(w http.ResponseWriter, r *http.Request) {
	s.backendRuns.Add(1)
	if f := s.beforeBackend.Load(); f != nil {
		(*f)()
	}
	if s.serveUploadPack(w, r) {
		return
	}
	s.backend.ServeHTTP(w, r)
}

// serveReplay answers r from the response kept for the same request, run
// through git http-backend (and kept) the first time (ServeOptions.Replay).
func (s *Server) serveReplay(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s %s %s %s\n", r.Method, r.URL.RequestURI(), r.Header.Get("Content-Type"), r.Header.Get("Content-Encoding"))
	h.Write(body)
	key := string(h.Sum(nil))
	v, ok := s.replay.Load(key)
	if !ok {
		rec := httptest.NewRecorder()
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.runBackend(rec, r)
		v, _ = s.replay.LoadOrStore(key, &recorded{status: rec.Code, header: rec.Header().Clone(), body: rec.Body.Bytes()})
	}
	resp := v.(*recorded)
	for k, vs := range resp.header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.status)
	_, _ = w.Write(resp.body)
}

// isReceivePack reports whether the request is part of a push.
func isReceivePack(p string, r *http.Request) bool {
	return strings.HasSuffix(p, "/git-receive-pack") || r.URL.Query().Get("service") == "git-receive-pack"
}

// isUploadPack reports whether the request is part of a fetch: an
// upload-pack advertisement or exchange.
func isUploadPack(p string, r *http.Request) bool {
	return strings.HasSuffix(p, "/git-upload-pack") || strings.HasSuffix(p, "/info/refs") && r.URL.Query().Get("service") == "git-upload-pack"
}

// isSmartGit reports whether the request is for the smart HTTP protocol.
func isSmartGit(p string, r *http.Request) bool {
	switch {
	case strings.HasSuffix(p, "/info/refs") && r.URL.Query().Get("service") != "":
		return true
	case strings.HasSuffix(p, "/git-upload-pack"), strings.HasSuffix(p, "/git-receive-pack"):
		return true
	}
	return false
}
