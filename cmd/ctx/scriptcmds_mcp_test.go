package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// mcpScriptCmds are the script commands that talk to a running `ctx mcp`:
//
//	mcp-start DIR
//	    start `ctx -C DIR mcp` in the background (in this process, as the
//	    scripts' ctx; a process with CTX_SCRIPT_EXEC=1) and initialize a
//	    session over its stdin and stdout (stopped when the script ends).
//	mcp-call TOOL ARGS-JSON
//	    call a tool and print the JSON-RPC response on stdout.
//	mcp-poll TOOL ARGS-JSON REGEXP
//	    call a tool until its response matches REGEXP (within a minute: a
//	    bound on a hang, not a speed check) and print the last response.
func mcpScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"mcp-start": cmdMCPStart,
		"mcp-call":  cmdMCPCall,
		"mcp-poll":  cmdMCPPoll,
	}
}

var liveMCPs sync.Map // *testscript.TestScript → *liveMCP

// mcpWait bounds how long a script waits for the server.
const mcpWait = time.Minute

type liveMCP struct {
	in    io.WriteCloser
	lines chan string // the server's stdout, line by line; closed at its end
	id    int
}

func cmdMCPStart(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "mcp-start")
	if len(args) != 1 {
		ts.Fatalf("usage: mcp-start DIR")
	}
	if _, ok := liveMCPs.Load(ts); ok {
		ts.Fatalf("mcp-start: a server is already running in this script")
	}
	in, out, stop := startMCP(ts, ts.MkAbs(args[0]))
	s := &liveMCP{in: in, lines: make(chan string, 16)}
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	liveMCPs.Store(ts, s)
	ts.Defer(func() {
		in.Close()  // end of input: the server ends
		go func() { // what it still says, unread, must not hold it
			for range s.lines {
			}
		}()
		ts.Logf("ctx mcp stderr:\n%s", stop())
		liveMCPs.Delete(ts)
	})
	s.request(ts, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "script", "version": "1"}})
	s.send(ts, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
}

// startMCP starts `ctx -C dir mcp` for a script: in this process, on a
// goroutine of its own, over pipes, with the script's environment and
// folder, as the scripts' `ctx` runs (scriptcmds_ctx_test.go: a process
// start saved); with CTX_SCRIPT_EXEC=1 a process, as before. It returns
// the server's stdin and stdout, and stop, which waits for the server to
// end once its stdin is closed (a process that does not within mcpWait is
// killed) and returns its stderr.
func startMCP(ts *testscript.TestScript, dir string) (io.WriteCloser, io.Reader, func() string) {
	var stderr lockedBuffer
	if !scriptExec {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		wd := ts.MkAbs(".")
		env := append(scriptEnv(ts), "PWD="+wd)
		done := make(chan struct{})
		go func() {
			defer close(done)
			code := run(scriptContext(), []string{"-C", dir, "mcp"}, &IOStreams{In: inR, Out: outW, ErrOut: &stderr}, env, wd)
			inR.Close()
			outW.CloseWithError(fmt.Errorf("ctx mcp ended with exit code %d", code))
		}()
		return inW, outR, func() string {
			select {
			case <-done:
			case <-time.After(mcpWait): // a bound on a hang
				deferredFatal(ts, "ctx mcp did not end within %v of its stdin's end; its stderr:\n%s\nthe goroutines of this process (the server's among them):\n%s", mcpWait, stderr.String(), allStacks())
			}
			return stderr.String()
		}
	}
	bin, err := lookPathIn("ctx", ts.Getenv("PATH"))
	ts.Check(err)
	cmd := exec.Command(bin, "-C", dir, "mcp")
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = os.Environ() // then the script's own settings, which win
	for _, k := range []string{"PATH", "WORK", "TMPDIR", "HOME", "XDG_CONFIG_HOME", "CTX_CACHE", "GIT_CONFIG_NOSYSTEM", "GIT_TERMINAL_PROMPT"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	in, err := cmd.StdinPipe()
	ts.Check(err)
	out, err := cmd.StdoutPipe()
	ts.Check(err)
	cmd.Stderr = &stderr
	ts.Check(cmd.Start())
	return in, out, func() string {
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(mcpWait):
			cmd.Process.Kill()
			<-done
			deferredFatal(ts, "ctx mcp did not end within %v of its stdin's end (killed); its stderr:\n%s", mcpWait, stderr.String())
		}
		return stderr.String()
	}
}

// deferredFatal fails the script from a function it deferred (ts.Defer),
// where ts.Fatalf cannot: its panic is caught only while a line runs, so
// there it crashed the whole test binary ("panic: fail now!"), and every
// later test with it.
func deferredFatal(ts *testscript.TestScript, format string, args ...any) {
	ts.Value(scriptTKey{}).(testscript.T).Fatal("FAIL: " + fmt.Sprintf(format, args...))
}

// scriptTKey keys the script's testscript.T in its Values (TestScript's
// Setup).
type scriptTKey struct{}

// allStacks is every goroutine's stack in this process: what a server
// that hangs in it (the in-process ctx mcp) was doing, for the failure's
// message.
func allStacks() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// hangStacks is allStacks for a bound that ran out, when the server runs
// in this process ("" when it is a process of its own: its stderr is
// logged when the script ends).
func hangStacks() string {
	if scriptExec {
		return ""
	}
	return "\nthe goroutines of this process (the server's among them):\n" + allStacks()
}

// lockedBuffer is a buffer safe for the writes of several goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// lookPathIn finds name in the directories of path (the script's PATH,
// where testscript put the ctx command).
func lookPathIn(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if _, err := exec.LookPath(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found in the script's PATH", name)
}

func (s *liveMCP) send(ts *testscript.TestScript, msg any) {
	data, err := json.Marshal(msg)
	ts.Check(err)
	_, err = s.in.Write(append(data, '\n'))
	ts.Check(err)
}

// request sends a request and returns its response line.
func (s *liveMCP) request(ts *testscript.TestScript, method string, params any) string {
	s.id++
	s.send(ts, map[string]any{"jsonrpc": "2.0", "id": s.id, "method": method, "params": params})
	want := fmt.Sprintf(`"id":%d,`, s.id)
	timeout := time.After(mcpWait)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				ts.Fatalf("ctx mcp ended before answering %s", method)
			}
			if strings.Contains(line, want) {
				return line
			}
		case <-timeout:
			ts.Fatalf("ctx mcp did not answer %s within %v%s", method, mcpWait, hangStacks())
		}
	}
}

func session(ts *testscript.TestScript) *liveMCP {
	s, ok := liveMCPs.Load(ts)
	if !ok {
		ts.Fatalf("no ctx mcp running: use mcp-start first")
	}
	return s.(*liveMCP)
}

func toolCall(ts *testscript.TestScript, tool, args string) string {
	var a map[string]any
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		ts.Fatalf("arguments %s: %v", args, err)
	}
	return session(ts).request(ts, "tools/call", map[string]any{"name": tool, "arguments": a})
}

func cmdMCPCall(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "mcp-call")
	if len(args) != 2 {
		ts.Fatalf("usage: mcp-call TOOL ARGS-JSON")
	}
	fmt.Fprintln(ts.Stdout(), toolCall(ts, args[0], args[1]))
}

func cmdMCPPoll(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "mcp-poll")
	if len(args) != 3 {
		ts.Fatalf("usage: mcp-poll TOOL ARGS-JSON REGEXP")
	}
	re, err := regexp.Compile(args[2])
	ts.Check(err)
	deadline := time.Now().Add(mcpWait)
	for {
		resp := toolCall(ts, args[0], args[1])
		if re.MatchString(resp) {
			fmt.Fprintln(ts.Stdout(), resp)
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s %s: no answer matched %q within %v; the last:\n%s%s", args[0], args[1], args[2], mcpWait, resp, hangStacks())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
