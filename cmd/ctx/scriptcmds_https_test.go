package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// httpsScriptCmds are script commands for the https source scripts:
//
//	webserve DIR
//	    serve the files under DIR on 127.0.0.1 and set $WEB to the server's
//	    URL. Files are read at each request, so a script changes the
//	    content by editing them. Every answer has an ETag (of the content)
//	    and a fixed Last-Modified; If-None-Match with that ETag gets 304.
//	    Switches, next to a file F (the request path /F):
//	      F.redirect  holds a Location: 302 there
//	      F.status    holds a status code: answered with it, no body
//	      F.huge      holds a byte count: a body of that many bytes, chunked
//	      F.stall     present: send nothing until the client gives up
//	      F.drip      holds a duration: send a byte every so often, until
//	                  the client gives up
//	    Each request is logged to $WORK/web.log as one line:
//	    "GET /F inm=<If-None-Match> auth=<Authorization> -> CODE".
//	webhits N
//	    assert the server got N requests since the last webhits (or since
//	    it started), then clear web.log.
//	lock-age LOCK ALIAS DURATION
//	    set the "fetched" time of one lock entry DURATION (a Go duration)
//	    into the past, as if its content had been fetched that long ago.
func httpsScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"webserve": cmdWebServe,
		"webhits":  cmdWebHits,
		"webwait":  cmdWebWait,
		"lock-age": cmdLockAge,
		"file-age": cmdFileAge,
	}
}

func cmdLockAge(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: lock-age LOCK ALIAS DURATION")
	}
	d, err := time.ParseDuration(args[2])
	ts.Check(err)
	p := ts.MkAbs(args[0])
	data, err := os.ReadFile(p)
	ts.Check(err)
	var lock map[string]any
	ts.Check(json.Unmarshal(data, &lock))
	pkgs, _ := lock["packages"].(map[string]any)
	e, ok := pkgs[args[1]].(map[string]any)
	if !ok {
		ts.Fatalf("lock-age: no entry %s in %s", args[1], args[0])
	}
	e["fetched"] = time.Now().UTC().Add(-d).Truncate(time.Second).Format(time.RFC3339)
	out, err := json.MarshalIndent(lock, "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(p, append(out, '\n'), 0o644))
}

// cmdFileAge sets the modification time of the files GLOB matches (under
// the work dir, or absolute) to DURATION ago: file-age GLOB DURATION. It
// fails when nothing matches.
func cmdFileAge(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: file-age GLOB DURATION")
	}
	d, err := time.ParseDuration(args[1])
	ts.Check(err)
	ps, err := filepath.Glob(ts.MkAbs(args[0]))
	ts.Check(err)
	if len(ps) == 0 {
		ts.Fatalf("file-age: nothing matches %s", args[0])
	}
	old := time.Now().Add(-d)
	for _, p := range ps {
		ts.Check(os.Chtimes(p, old, old))
	}
}

const webLastModified = "Thu, 01 Jan 2026 00:00:00 GMT"

func cmdWebServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: webserve DIR")
	}
	root := ts.MkAbs(args[0])
	logPath := ts.MkAbs("web.log")
	var mu sync.Mutex
	logf := func(r *http.Request, code int) {
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return
		}
		defer f.Close()
		fmt.Fprintf(f, "%s %s inm=%s auth=%s -> %d\n", r.Method, r.URL.Path, r.Header.Get("If-None-Match"), r.Header.Get("Authorization"), code)
	}
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		file := filepath.Join(root, filepath.FromSlash(path.Clean("/"+r.URL.Path)))
		if b, err := os.ReadFile(file + ".redirect"); err == nil {
			logf(r, http.StatusFound)
			http.Redirect(w, r, os.Expand(strings.TrimSpace(string(b)), ts.Getenv), http.StatusFound)
			return
		}
		if b, err := os.ReadFile(file + ".status"); err == nil {
			code, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			logf(r, code)
			w.WriteHeader(code)
			return
		}
		if b, err := os.ReadFile(file + ".huge"); err == nil {
			n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			logf(r, http.StatusOK)
			w.Header().Set("Content-Type", "text/markdown")
			_, _ = io.CopyN(w, zeros{}, n) // chunked: no Content-Length
			return
		}
		if b, err := os.ReadFile(file + ".drip"); err == nil {
			every, err := time.ParseDuration(strings.TrimSpace(string(b)))
			if err != nil {
				every = time.Second
			}
			logf(r, http.StatusOK)
			w.Header().Set("Content-Type", "text/markdown")
			for {
				_, _ = io.WriteString(w, "x")
				http.NewResponseController(w).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-stop:
					return
				case <-time.After(every):
				}
			}
		}
		if _, err := os.Stat(file + ".stall"); err == nil {
			logf(r, 0)
			select {
			case <-r.Context().Done():
			case <-stop:
			}
			return
		}
		body, err := os.ReadFile(file)
		if err != nil {
			logf(r, http.StatusNotFound)
			http.NotFound(w, r)
			return
		}
		sum := sha256.Sum256(body)
		etag := `"` + hex.EncodeToString(sum[:8]) + `"`
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", webLastModified)
		if r.Header.Get("If-None-Match") == etag {
			logf(r, http.StatusNotModified)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		ct := mime.TypeByExtension(path.Ext(file))
		switch path.Ext(file) {
		case ".md":
			ct = "text/markdown; charset=utf-8"
		case ".txt":
			ct = "text/plain; charset=utf-8"
		case ".gz":
			ct = "application/gzip"
		}
		if ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		logf(r, http.StatusOK)
		_, _ = w.Write(body)
	}))
	ts.Defer(func() {
		close(stop)
		srv.Close()
	})
	ts.Setenv("WEB", srv.URL)
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

func cmdWebHits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: webhits N")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	logPath := ts.MkAbs("web.log")
	data, err := os.ReadFile(logPath)
	if err != nil && !os.IsNotExist(err) {
		ts.Fatalf("webhits: %v", err)
	}
	got := strings.Count(string(data), "\n")
	if got != want {
		ts.Fatalf("webhits: the server got %d requests, want %d:\n%s", got, want, data)
	}
	ts.Check(os.WriteFile(logPath, nil, 0o644))
}

// cmdWebWait waits until webserve has logged at least N requests (a
// request in flight is logged when its answer starts), so that a script
// can act while a fetch is under way. A bound on a hang, not a speed check.
func cmdWebWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: webwait N")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	logPath := ts.MkAbs("web.log")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		data, _ := os.ReadFile(logPath)
		if strings.Count(string(data), "\n") >= want {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("webwait: the server got fewer than %d requests in a minute:\n%s", want, data)
		}
	}
}
