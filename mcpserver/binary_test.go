package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ctxBinary is the ctx binary the tests below share: built once, on first
// use, into binDir.
var ctxBinary struct {
	once sync.Once
	path string
	err  error
}

// binDir is where buildCtx puts the binary: a folder of the user's cache
// named after this checkout, kept between runs as go's own build cache
// is, so that `go build` finds the binary up to date and does not link it
// again (5.8 s of CPU a run; 1 s to find it current). Each checkout has
// its own, so two worktrees never run each other's build.
func binDir() (string, error) {
	root, err := filepath.Abs("..")
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(cache, "ctx-test-bin", hex.EncodeToString(sum[:8]))
	return dir, os.MkdirAll(dir, 0o755)
}

// buildCtx builds the real ctx binary, once for all the tests that call it.
func buildCtx(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the ctx binary")
	}
	ctxBinary.once.Do(func() {
		goBin := "go" // go test puts its own GOROOT/bin first on PATH
		dir, err := binDir()
		if err != nil {
			ctxBinary.err = fmt.Errorf("ctx binary folder: %v", err)
			return
		}
		bin := filepath.Join(dir, "ctx")
		cmd := exec.Command(goBin, "build", "-tags", "ctxstraytest", "-o", bin, "github.com/ctx-dev/ctx/cmd/ctx")
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			ctxBinary.err = fmt.Errorf("go build ctx: %v\n%s", err, out)
			return
		}
		ctxBinary.path = bin
	})
	if ctxBinary.err != nil {
		t.Fatal(ctxBinary.err)
	}
	return ctxBinary.path
}

// TestRealBinaryOverStdio runs `ctx mcp -C <project>` and talks to it with the
// SDK's client. The binary is built with -tags ctxstraytest, which makes it
// print to os.Stdout and to file descriptor 1 after guarding them: any of that on the
// protocol stream would break the client's decoding, so the session working
// proves the guard, and the text must show up on stderr instead.
func TestRealBinaryOverStdio(t *testing.T) {
	t.Parallel()
	bin := buildCtx(t)
	p := newProject(t)
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "mcp", "-C", p.dir)
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
	var out SearchOut
	res := call(t, cs, "search", map[string]any{"query": "zanzibar", "packages": []string{"guide"}}, &out)
	if res.IsError || len(out.Hits) == 0 || out.Hits[0].Path != "docs/setup.md" {
		t.Errorf("search: %s", text(res))
	}
	var d DocumentOut
	res = call(t, cs, "get_document", map[string]any{"package": "guide", "path": "docs/setup.md"}, &d)
	if res.IsError || d.Text != setupDoc {
		t.Errorf("get_document: %s", text(res))
	}
	wantError(t, call(t, cs, "get_document", map[string]any{"package": "guide", "path": "escape.md"}, nil), "outside")
	r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ctx://index"})
	if err != nil || len(r.Contents) == 0 || r.Contents[0].Text == "" {
		t.Errorf("ctx://index: %v", err)
	}
	// A URI with a NUL or a control character is refused, and the session
	// goes on (such a read used to end the server).
	for _, uri := range []string{"ctx://packages/docs/a.md\u0000../x", "ctx://packages/docs/\u007f.md", "ctx://nope/\u0000"} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil || wireCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("%q: %v, want an invalid-params error", uri, err)
		}
		if res := call(t, cs, "get_document", map[string]any{"package": "guide", "path": "docs/setup.md", "limit": 1}, nil); res.IsError {
			t.Fatalf("after %q: %s", uri, text(res))
		}
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if !strings.Contains(stderr.String(), "stray print to os.Stdout") || !strings.Contains(stderr.String(), "stray write to fd 1") {
		t.Errorf("the stray prints did not reach stderr:\n%s", stderr.String())
	}
}

// TestRealBinaryConfig checks `ctx mcp config` prints a config with the
// binary's absolute path and the project.
func TestRealBinaryConfig(t *testing.T) {
	t.Parallel()
	bin := buildCtx(t)
	dir := t.TempDir()
	out, err := exec.Command(bin, "-C", dir, "mcp", "config", "--client", "claude").Output()
	if err != nil {
		t.Fatal(err)
	}
	realBin, _ := filepath.EvalSymlinks(bin)
	realDir, _ := filepath.Abs(dir)
	// Claude Code's is committed with the project: ctx on PATH, no
	// absolute path; Codex's is the user's own: this binary, this project.
	if !strings.Contains(string(out), `"command": "ctx"`) || strings.Contains(string(out), realDir) || strings.Contains(string(out), realBin) {
		t.Errorf("claude config = %s", out)
	}
	out, err = exec.Command(bin, "-C", dir, "mcp", "config", "--client", "codex").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `command = "`+realBin+`"`) || !strings.Contains(string(out), realDir) {
		t.Errorf("codex config = %s", out)
	}
	err = exec.Command(bin, "mcp", "config", "--client", "emacs").Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Errorf("unknown client: %v, want exit 2", err)
	}
}
