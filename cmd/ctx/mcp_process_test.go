package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"
	"github.com/ctx-dev/ctx/mcpserver"
	"github.com/ctx-dev/ctx/project"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tests here run `ctx mcp` as a process: this test binary, which is ctx
// when started by that name (TestMain; ctxExe), so no second ctx binary is
// built. They prove what only a process shows: the stdio framing on the
// real file descriptors with the stdout guard, SIGTERM's clean exit of the
// HTTP server, the exit status, and the path of the running binary in a
// client's configuration. The protocol itself is mcpserver's tests'.

// strayPrintsEnv set to 1 makes ctx mcp print to os.Stdout and to file
// descriptor 1 right after it has guarded stdout (TestMain sets
// afterStdoutGuard to strayPrints): TestRealBinaryOverStdio only.
const strayPrintsEnv = "CTX_TEST_STRAY_PRINTS"

// mcpTestToken is the bearer token of TestRealBinaryHTTP's server.
const mcpTestToken = "test-token-0123456789abcdef"

// mcpSecret is in a file outside the packages; no answer may contain it.
const mcpSecret = "TOPSECRET-7f3a"

// mcpSetupDoc is the guide package's docs/setup.md.
const mcpSetupDoc = `---
title: Setup guide
tags: [onboarding]
---
# Setup

Install the tools first.

## Install

Run the installer. The word zanzibar is only here.

## Configure

Edit the config file.
`

// mcpProject writes a project with an installed, indexed package "guide"
// (docs/setup.md, and escape.md: a link to a secret outside the project)
// and returns its folder.
func mcpProject(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "proj")
	ctxDir := filepath.Join(dir, ".context")
	pk := filepath.Join(ctxDir, "packages")
	for path, content := range map[string]string{
		filepath.Join(pk, "guide", "README.md"):        "# Guide\n\nThe guide package. Start with docs/setup.md.\n",
		filepath.Join(pk, "guide", "docs", "setup.md"): mcpSetupDoc,
		filepath.Join(pk, "api", "reference.md"):       "# API\n\nThe zanzibar endpoint returns widgets.\n",
		filepath.Join(root, "outside", "secret.md"):    "# Secret\n" + mcpSecret + "\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "outside", "secret.md"), filepath.Join(pk, "guide", "escape.md")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	lock := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{}}
	for _, a := range []string{"guide", "api"} {
		lock.Packages[a] = lockfile.Entry{
			Source: "https://example.com/" + a + ".git", Path: "docs", Ref: "main",
			Rev: strings.Repeat("a1", 20), Tree: strings.Repeat("b2", 20),
			Hash: "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", Updated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		}
	}
	if err := lockfiletest.WriteInstalled(ctxDir, lock); err != nil {
		t.Fatal(err)
	}
	proj, err := project.At(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Sync(context.Background(), ctxDir, proj.Installed(nil, lock), indexer.Options{}); err != nil {
		t.Fatalf("indexer.Sync: %v", err)
	}
	return dir
}

// mcpProcessEnv is the environment of a ctx process: this one's, with a
// HOME, a config folder and a cache of the test's own.
func mcpProcessEnv(t *testing.T) (env []string, home string) {
	home = t.TempDir()
	return append(os.Environ(),
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"CTX_CACHE="+filepath.Join(home, "cache"),
	), home
}

// mcpCall calls a tool and decodes its answer into out (when not nil and
// the call succeeded): the structured content, or for a document tool its
// _meta and, as Text, its first content.
func mcpCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", name, args, err)
	}
	if out == nil || res.IsError {
		return res
	}
	v := res.StructuredContent
	if d, ok := out.(*mcpserver.DocumentOut); ok {
		v = res.Meta
		if len(res.Content) > 0 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				d.Text = tc.Text
			}
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("%s: decoding %s: %v", name, data, err)
	}
	return res
}

// mcpText joins an answer's text contents.
func mcpText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestRealBinaryOverStdio runs `ctx mcp -C <project>` and talks to it with
// the SDK's client over the process's stdin and stdout. The process prints
// to os.Stdout and to file descriptor 1 right after guarding them
// (strayPrintsEnv): any of that on the protocol stream would break the
// client's decoding, so the session working proves the guard, and the text
// must show up on stderr instead.
func TestRealBinaryOverStdio(t *testing.T) {
	t.Parallel()
	dir := mcpProject(t)
	env, _ := mcpProcessEnv(t)
	var stderr bytes.Buffer
	cmd := exec.Command(ctxExe, "mcp", "-C", dir)
	cmd.Env = append(env, strayPrintsEnv+"=1")
	cmd.Stderr = &stderr
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr.String())
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	for _, name := range []string{"search", "get_document", "read_relevant", "get_outline", "list_tags"} {
		if !slices.ContainsFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == name }) {
			t.Errorf("tools/list: no %s among %d tools", name, len(tools.Tools))
		}
	}
	var out mcpserver.SearchOut
	res := mcpCall(t, cs, "search", map[string]any{"query": "zanzibar", "packages": []string{"guide"}}, &out)
	if res.IsError || len(out.Hits) == 0 || out.Hits[0].Path != "docs/setup.md" {
		t.Errorf("search: %s", mcpText(res))
	}
	var d mcpserver.DocumentOut
	res = mcpCall(t, cs, "get_document", map[string]any{"package": "guide", "path": "docs/setup.md"}, &d)
	if res.IsError || d.Text != mcpSetupDoc {
		t.Errorf("get_document: %s", mcpText(res))
	}
	res = mcpCall(t, cs, "get_document", map[string]any{"package": "guide", "path": "escape.md"}, nil)
	if got := mcpText(res); !res.IsError || !strings.Contains(got, "outside") || strings.Contains(got, mcpSecret) {
		t.Errorf("get_document of a link out of the package: %s, want an error naming it outside, without the secret", got)
	}
	r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ctx://index"})
	if err != nil || len(r.Contents) == 0 || r.Contents[0].Text == "" {
		t.Errorf("ctx://index: %v", err)
	}
	// A URI with a NUL or a control character is refused, and the session
	// goes on (such a read used to end the server).
	for _, uri := range []string{"ctx://packages/docs/a.md\u0000../x", "ctx://packages/docs/\u007f.md", "ctx://nope/\u0000"} {
		var we *jsonrpc.Error
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%q: %v, want an invalid-params error", uri, err)
		}
		if res := mcpCall(t, cs, "get_document", map[string]any{"package": "guide", "path": "docs/setup.md", "limit": 1}, nil); res.IsError {
			t.Fatalf("after %q: %s", uri, mcpText(res))
		}
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if !strings.Contains(stderr.String(), "stray print to os.Stdout") {
		t.Errorf("the stray print to os.Stdout did not reach stderr:\n%s", stderr.String())
	}
	if runtime.GOOS != "windows" && !strings.Contains(stderr.String(), "stray write to fd 1") {
		t.Errorf("the stray write to fd 1 did not reach stderr:\n%s", stderr.String())
	}
}

// bearerAuth adds an Authorization header to every request.
type bearerAuth struct {
	token string
	next  http.RoundTripper
}

func (b bearerAuth) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestRealBinaryHTTP runs `ctx mcp --http :0` with CTX_MCP_TOKEN: it prints
// its URL on stderr, serves a client, and exits 0 on SIGTERM.
func TestRealBinaryHTTP(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("SIGTERM")
	}
	dir := mcpProject(t)
	env, home := mcpProcessEnv(t)
	cmd := exec.Command(ctxExe, "-C", dir, "mcp", "--http", ":0")
	cmd.Env = append(env, "CTX_MCP_TOKEN="+mcpTestToken)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	var log strings.Builder // written by the goroutine below until it sends on exited
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if m := regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp`).FindString(sc.Text()); m != "" {
				select {
				case urls <- m:
				default:
				}
			}
		}
		exited <- cmd.Wait()
	}()
	var url string
	select {
	case url = <-urls:
	case err := <-exited:
		t.Fatalf("ctx mcp --http exited: %v\n%s", err, log.String())
	case <-time.After(time.Minute): // a bound on a hang
		cmd.Process.Kill()
		<-exited
		t.Fatal("no URL on stderr within a minute")
	}
	tr := &mcp.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: bearerAuth{mcpTestToken, http.DefaultTransport}},
		MaxRetries: -1,
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).
		Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		cmd.Process.Kill()
		<-exited
		t.Fatalf("connect: %v", err)
	}
	var out mcpserver.SearchOut
	if res := mcpCall(t, cs, "search", map[string]any{"query": "zanzibar"}, &out); res.IsError || len(out.Hits) == 0 {
		t.Errorf("search: %s", mcpText(res))
	}
	// SIGTERM with the session still open: the server ends it and exits 0.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("after SIGTERM: %v, want exit 0\n%s", err, log.String())
		}
	case <-time.After(time.Minute): // a bound on a hang
		cmd.Process.Kill()
		<-exited
		t.Fatalf("still running a minute after SIGTERM\n%s", log.String())
	}
	cs.Close() // the server is gone: whatever the client says of it is not the test's
	if strings.Contains(log.String(), mcpTestToken) {
		t.Errorf("the token is in the log:\n%s", log.String())
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "ctx", "mcp-token")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("with CTX_MCP_TOKEN set, a token file was written: %v", err)
	}
}

// TestRealBinaryConfig checks `ctx mcp config` as a process: Claude Code's
// configuration names ctx on PATH, Codex's this binary's absolute path and
// the project; an unknown client exits 2.
func TestRealBinaryConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env, _ := mcpProcessEnv(t)
	run := func(args ...string) ([]byte, error) {
		cmd := exec.Command(ctxExe, args...)
		cmd.Env = env
		return cmd.Output()
	}
	out, err := run("-C", dir, "mcp", "config", "--client", "claude")
	if err != nil {
		t.Fatal(err)
	}
	realBin, _ := filepath.EvalSymlinks(ctxExe)
	realDir, _ := filepath.Abs(dir)
	// Claude Code's is committed with the project: ctx on PATH, no
	// absolute path; Codex's is the user's own: this binary, this project.
	if !strings.Contains(string(out), `"command": "ctx"`) || strings.Contains(string(out), realDir) || strings.Contains(string(out), realBin) {
		t.Errorf("claude config = %s", out)
	}
	out, err = run("-C", dir, "mcp", "config", "--client", "codex")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `command = "`+realBin+`"`) || !strings.Contains(string(out), realDir) {
		t.Errorf("codex config = %s", out)
	}
	_, err = run("mcp", "config", "--client", "emacs")
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Errorf("unknown client: %v, want exit 2", err)
	}
}
