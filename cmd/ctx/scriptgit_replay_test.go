package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// scriptServer is a script's git server (serve-git): gittest's smart-HTTP
// server (a git http-backend process per request, and upload-pack and
// pack-objects behind it) with a replay in front. A fetch-side request
// (a ref advertisement or an upload-pack) that the script has sent before,
// byte for byte, to a repository whose files are the same as then, gets
// the answer git gave then, without a process: what git would answer again
// (the same repository and the same request), and a third of the scripts'
// requests are such repeats (installs from an emptied cache, projects
// that install the same package, the advertisements of every check for
// updates). Pushes, other files and any answer but 200 always go to git.
// It counts the requests and bytes, as gittest's server does, for
// git-requests. CTX_SCRIPT_GIT=1 turns the replay off.
type scriptServer struct {
	URL string

	git      *gittest.Server
	root     string
	srv      *http.Server
	done     chan struct{}
	requests atomic.Int64
	bytes    atomic.Int64
	replays  atomic.Int64
	kept     sync.Map // key → *keptAnswer
}

type keptAnswer struct {
	header http.Header
	body   []byte
}

func serveScriptGit(root string, o gittest.ServeOptions) (*scriptServer, error) {
	g, err := gittest.Serve(root, o)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		g.Close()
		return nil, fmt.Errorf("listen on 127.0.0.1: %w", err)
	}
	s := &scriptServer{URL: "http://" + ln.Addr().String(), git: g, root: root, done: make(chan struct{})}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serveHTTP)}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// Requests, BytesSent and ResetCounters are gittest.Server's, counted here.
func (s *scriptServer) Requests() int    { return int(s.requests.Load()) }
func (s *scriptServer) BytesSent() int64 { return s.bytes.Load() }
func (s *scriptServer) ResetCounters() {
	s.requests.Store(0)
	s.bytes.Store(0)
}

// Close stops the replay, then git's server.
func (s *scriptServer) Close() error {
	err := s.srv.Close()
	<-s.done
	if gerr := s.git.Close(); err == nil || err == http.ErrServerClosed {
		err = gerr
	}
	return err
}

func (s *scriptServer) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	cw := countingWriter{ResponseWriter: w, n: &s.bytes}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(cw, err.Error(), http.StatusBadRequest)
		return
	}
	repo, ok := fetchRepo(r)
	key := ""
	if ok && !scriptGitExec {
		key, ok = s.answerKey(r, repo, body)
	}
	if ok && key != "" {
		if v, hit := s.kept.Load(key); hit {
			s.replays.Add(1)
			a := v.(*keptAnswer)
			for k, vs := range a.header {
				cw.Header()[k] = vs
			}
			cw.WriteHeader(http.StatusOK)
			_, _ = cw.Write(a.body)
			return
		}
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, s.git.URL+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(cw, err.Error(), http.StatusInternalServerError)
		return
	}
	req.Header = r.Header.Clone()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		http.Error(cw, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	h := resp.Header.Clone()
	h.Del("Content-Length")
	h.Del("Date")
	for k, vs := range h {
		cw.Header()[k] = vs
	}
	cw.WriteHeader(resp.StatusCode)
	// Passed on as git sends it (a client's idle timeout sees git's
	// first bytes when git sends them), and kept when it is whole.
	flusher, _ := w.(http.Flusher)
	var out bytes.Buffer
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			out.Write(buf[:n])
			if _, werr := cw.Write(buf[:n]); werr != nil {
				return // the client hung up: nothing kept
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(http.ErrAbortHandler) // git's answer broke off: so does this one
		}
	}
	if key != "" && resp.StatusCode == http.StatusOK {
		s.kept.LoadOrStore(key, &keptAnswer{header: h, body: out.Bytes()})
	}
}

// fetchRepo is the repository folder (relative to the served root) a
// fetch-side smart-HTTP request is for: a ref advertisement of
// git-upload-pack or an upload-pack POST; false for anything else.
func fetchRepo(r *http.Request) (string, bool) {
	p := path.Clean("/" + r.URL.Path)
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/info/refs") && r.URL.Query().Get("service") == "git-upload-pack":
		return strings.TrimSuffix(p, "/info/refs"), true
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/git-upload-pack"):
		return strings.TrimSuffix(p, "/git-upload-pack"), true
	}
	return "", false
}

// answerKey names a request and the state of its repository: the
// method, URL, the headers git's answer depends on, the body, and every
// file of the repository folder (name, mode, content). false when the
// folder cannot be read (git answers).
func (s *scriptServer) answerKey(r *http.Request, repo string, body []byte) (string, bool) {
	h := sha256.New()
	fmt.Fprintf(h, "%s %s\n", r.Method, r.URL.RequestURI())
	for _, k := range []string{"Content-Type", "Content-Encoding", "Git-Protocol", "Authorization", "Accept"} {
		fmt.Fprintf(h, "%s: %q\n", k, r.Header.Values(k))
	}
	fmt.Fprintf(h, "%d:", len(body))
	h.Write(body)
	dir := filepath.Join(s.root, filepath.FromSlash(repo))
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "\n%q %v ", rel, fi.Mode())
		switch {
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%d:", len(b))
			h.Write(b)
		case fi.Mode()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "-> %q", t)
		}
		return nil
	})
	if err != nil {
		return "", false
	}
	return string(h.Sum(nil)), true
}

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (w countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.n.Add(int64(n))
	return n, err
}
