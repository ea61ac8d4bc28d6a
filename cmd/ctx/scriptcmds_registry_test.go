package main

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ctx-dev/ctx/demo"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/wizard"
	"github.com/ctx-dev/ctx/workspace"
	"github.com/rogpeppe/go-internal/testscript"
)

// httpServers holds each script's static file server.
var httpServers sync.Map // *testscript.TestScript → *staticServer

type staticServer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

// registryScriptCmds are script commands for registry and setup scripts:
//
//	serve-http ROOT [-auth user:pass]
//	    serve the files under ROOT over plain HTTP on 127.0.0.1 and set
//	    $HTTPURL (ROOT/x.json is $HTTPURL/x.json); with -auth, every request
//	    without those basic-auth credentials gets 401. Closed when the
//	    script ends.
//	http-hits PATH N
//	    assert the serve-http server was asked for PATH exactly N times.
//	expand FILE...
//	    replace $VAR and ${VAR} in each file with the script's environment
//	    (registries that must name $GITURL or $HTTPURL).
func registryScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"serve-http": cmdServeHTTP,
		"http-hits":  cmdHTTPHits,
		"expand":     cmdExpand,
	}
}

func cmdServeHTTP(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: serve-http ROOT [-auth user:pass]"
	if neg {
		ts.Fatalf("serve-http does not support !")
	}
	var root, auth string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-auth":
			if i+1 >= len(args) {
				ts.Fatalf(usage)
			}
			i++
			auth = args[i]
		default:
			if root != "" {
				ts.Fatalf(usage)
			}
			root = args[i]
		}
	}
	if root == "" {
		ts.Fatalf(usage)
	}
	if _, ok := httpServers.Load(ts); ok {
		ts.Fatalf("serve-http: a server is already running in this script")
	}
	s := &staticServer{hits: map[string]int{}}
	files := http.FileServer(http.Dir(ts.MkAbs(root)))
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		if auth != "" {
			user, pass, ok := r.BasicAuth()
			if !ok || subtle.ConstantTimeCompare([]byte(user+":"+pass), []byte(auth)) != 1 {
				w.Header().Set("WWW-Authenticate", `Basic realm="ctx test"`)
				http.Error(w, "credentials required", http.StatusUnauthorized)
				return
			}
		}
		files.ServeHTTP(w, r)
	}))
	httpServers.Store(ts, s)
	ts.Defer(func() {
		httpServers.Delete(ts)
		s.srv.Close()
	})
	ts.Setenv("HTTPURL", s.srv.URL)
}

func cmdHTTPHits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: http-hits PATH N")
	}
	v, ok := httpServers.Load(ts)
	if !ok {
		ts.Fatalf("no http server: run serve-http first")
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	s := v.(*staticServer)
	s.mu.Lock()
	got := s.hits[args[0]]
	var all []string
	for p, n := range s.hits {
		all = append(all, fmt.Sprintf("%s=%d", p, n))
	}
	s.mu.Unlock()
	if got != want {
		ts.Fatalf("http-hits %s: got %d, want %d (all: %s)", args[0], got, want, strings.Join(all, " "))
	}
}

func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: expand FILE...")
	}
	for _, f := range args {
		path := ts.MkAbs(f)
		data, err := os.ReadFile(path)
		ts.Check(err)
		ts.Check(os.WriteFile(path, []byte(os.Expand(string(data), ts.Getenv)), 0o644))
	}
}

// TestDemoWithoutGit runs `ctx demo` with no git binary on PATH and checks it
// leaves a working .context/: the lock, INDEX.md and a search index that
// answers.
//
// Not parallel: it empties the process's PATH too, so that no git is
// found whatever looks for one (the command's own environment, which it
// is given, has no git either).
func TestDemoWithoutGit(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("PATH", filepath.Join(tmp, "empty-path"))
	env := []string{
		"PATH=" + filepath.Join(tmp, "empty-path"),
		"HOME=" + filepath.Join(tmp, "home"),
		"CTX_CACHE=" + filepath.Join(tmp, "cache"),
		"TMPDIR=" + tmp,
	}
	dir := filepath.Join(tmp, "demo")
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"demo", "--dir", dir}, &IOStreams{In: bytes.NewReader(nil), Out: &out, ErrOut: &errOut}, env, tmp)
	if code != ExitOK {
		t.Fatalf("ctx demo exited %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	ctxDir := filepath.Join(dir, "project", ".context")
	lock, err := lockfiletest.Read(filepath.Join(ctxDir, project.LockName))
	if err != nil {
		t.Fatal(err)
	}
	if len(lock.Packages) != 4 {
		t.Errorf("lock has %d packages, want the demo's 4", len(lock.Packages))
	}
	index, err := os.ReadFile(filepath.Join(ctxDir, "INDEX.md"))
	if err != nil {
		t.Fatal(err)
	}
	for alias := range lock.Packages {
		if !bytes.Contains(index, []byte(alias)) {
			t.Errorf("INDEX.md does not mention %s", alias)
		}
	}
	r, err := indexer.OpenReader(ctxDir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hits, err := r.Search(context.Background(), indexer.Query{Text: "idempotency key retry", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Package != "api-guidelines" || hits[0].Path != "errors.md" {
		t.Errorf("search hits %+v, want api-guidelines/errors.md first", hits)
	}
	if !strings.Contains(out.String(), "ctx -C "+filepath.Join(dir, "project")+" mcp") {
		t.Errorf("the demo does not say how to start the MCP server:\n%s", out.String())
	}
}

// scriptedPrompter answers the wizard from a list of picks (by name).
type scriptedPrompter struct {
	pick     []string // names to leave checked; nil with cancel
	cancel   bool
	shown    []wizard.Choice
	checked  []string // names pre-checked when shown
	deny     bool     // answer no to every Confirm
	stop     bool     // Ctrl-C at every Confirm
	confirms []string // the questions Confirm was asked
}

func (p *scriptedPrompter) MultiSelect(msg string, choices []wizard.Choice, selected []int) ([]int, error) {
	p.shown = choices
	for _, i := range selected {
		p.checked = append(p.checked, choices[i].Name)
	}
	if p.cancel {
		return nil, wizard.ErrInterrupted
	}
	var out []int
	for i, c := range choices {
		for _, n := range p.pick {
			if c.Name == n {
				out = append(out, i)
			}
		}
	}
	return out, nil
}
func (p *scriptedPrompter) Confirm(msg string, _ bool) (bool, error) {
	p.confirms = append(p.confirms, msg)
	if p.stop {
		return false, wizard.ErrInterrupted
	}
	return !p.deny, nil
}
func (p *scriptedPrompter) Spinner(string) func(bool, string) { return func(bool, string) {} }

// TestSetupInteractive runs ctx setup's interactive path with a scripted
// prompter over the demo hub plus a context whose repository does not exist:
// cancel leaves nothing behind; a pick installs; a second setup pre-checks
// what is installed and applies additions and removals.
//
// The command runs in an environment of its own (HOME and CTX_CACHE in
// the test's folder), so the test runs in parallel.
func TestSetupInteractive(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	env := environment{"HOME=" + filepath.Join(tmp, "home"), "CTX_CACHE=" + filepath.Join(tmp, "cache")}
	if _, err := demo.Write(tmp); err != nil {
		t.Fatal(err)
	}
	reg := filepath.Join(tmp, "reg.json")
	regJSON := `{"name": "t", "contexts": [
	  {"name": "runbooks", "description": "Runbooks", "repo": "./hub/repos/platform-handbook", "path": "runbooks"},
	  {"name": "api", "description": "API", "repo": "./hub/repos/api-guidelines", "tags": ["api"]},
	  {"name": "ghost", "description": "Gone", "repo": "./hub/repos/ghost"},
	  {"name": "practices", "description": "Practices", "repo": "./hub/repos/engineering-practices", "path": "docs"}
	]}`
	if err := os.WriteFile(reg, []byte(regJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(tmp, "project")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	setup := func(o *setupOptions) (int, string) {
		var out, errOut bytes.Buffer
		g := &globalOptions{IO: &IOStreams{In: bytes.NewReader(nil), Out: &out, ErrOut: &errOut}, Env: env, Wd: tmp, Dir: proj}
		o.globalOptions = g
		err := runSetup(context.Background(), o)
		code := ExitOK
		if err != nil {
			code = ExitError
			var ee *exitError
			if errors.As(err, &ee) {
				code = ee.code
			}
		}
		return code, out.String() + errOut.String()
	}

	// Cancel: exit 130 and no .context/ at all.
	p := &scriptedPrompter{cancel: true}
	if code, log := setup(&setupOptions{registry: reg, prompter: p}); code != ExitInterrupted {
		t.Fatalf("cancel: exit %d, want %d\n%s", code, ExitInterrupted, log)
	}
	if _, err := os.Stat(filepath.Join(proj, project.DirName)); !os.IsNotExist(err) {
		t.Fatalf("cancel left %s behind (%v)", project.DirName, err)
	}
	for _, c := range p.shown {
		if (c.Name == "ghost") != (c.Disabled != "") {
			t.Errorf("choice %s disabled=%q: only ghost (no repository) should be", c.Name, c.Disabled)
		}
	}

	// Pick two: installed, registry saved.
	p = &scriptedPrompter{pick: []string{"runbooks", "api"}}
	if code, log := setup(&setupOptions{registry: reg, prompter: p}); code != ExitOK {
		t.Fatalf("first setup: exit %d\n%s", code, log)
	}
	ws, err := workspace.Open(proj, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	man := ws.Manifest()
	ws.Close()
	if man.Registry != reg || len(man.Packages) != 2 {
		t.Fatalf("manifest after the first setup: %+v", man)
	}

	// Again, from the manifest's registry, which the user named (recorded
	// in context.local.json: netguard18): installed ones pre-checked; drop
	// api, add practices, a repository outside the project, allowed for
	// the user as when they name the registry. (A registry the manifest
	// names otherwise, a teammate's, is refused: reg_file.txtar, refs.txtar,
	// workspace's TestManifestRegistryOutsidePath.)
	p = &scriptedPrompter{pick: []string{"runbooks", "practices"}}
	code, log := setup(&setupOptions{prompter: p})
	if code != ExitOK {
		t.Fatalf("second setup: exit %d\n%s", code, log)
	}
	for _, want := range []string{"api removed", "practices installed"} {
		if !strings.Contains(log, want) {
			t.Errorf("output lacks %q:\n%s", want, log)
		}
	}
	if strings.Join(p.checked, ",") != "runbooks,api" {
		t.Errorf("pre-checked %v, want runbooks,api", p.checked)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, project.DirName, "context.local.json")); !strings.Contains(string(b), "engineering-practices") {
		t.Errorf("context.local.json does not allow what the user's registry named:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(proj, project.DirName, "packages", "api")); !os.IsNotExist(err) {
		t.Errorf("api still on disk: %v", err)
	}
	if _, err := os.Stat(filepath.Join(proj, project.DirName, "packages", "practices", "testing.md")); err != nil {
		t.Errorf("practices not installed: %v", err)
	}
}

// TestSetupDumbTerminalNoPrompts: at a terminal with TERM=dumb (an Emacs
// shell), setup does not prompt (survey's list moves the cursor and
// colours), says why, and goes on as without a terminal: exit 2 naming the
// flags.
func TestSetupDumbTerminalNoPrompts(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	reg := filepath.Join(tmp, "reg.json")
	if err := os.WriteFile(reg, []byte(`{"name": "t", "contexts": [{"name": "a", "description": "A", "repo": "./a"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := environment{"HOME=" + filepath.Join(tmp, "home"), "CTX_CACHE=" + filepath.Join(tmp, "cache"), "TERM=dumb"}
	var out, errOut bytes.Buffer
	yes := true
	g := &globalOptions{IO: &IOStreams{In: bytes.NewReader(nil), Out: &out, ErrOut: &errOut, InTTY: true, ErrTTY: true}, Env: env, Wd: tmp, Dir: tmp}
	err := runSetup(context.Background(), &setupOptions{globalOptions: g, registry: reg, interactive: &yes})
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != ExitUsage || !strings.Contains(errOut.String(), "TERM=dumb: no prompts") {
		t.Errorf("err %v, stderr:\n%s\nwant exit %d and a note on TERM=dumb", err, errOut.String(), ExitUsage)
	}
}

// TestTerminalPrompterWhere: setup asks when stdin is a terminal and the
// prompts can draw on stderr or, with stderr redirected (`ctx setup
// 2>log`), on stdout; it said "no terminal" then (wiz20). A terminal
// that does not move the cursor gets no prompts: TERM=dumb, or TERM unset
// outside Windows (termenv.Env.Dumb), each named in the note.
func TestTerminalPrompterWhere(t *testing.T) {
	t.Parallel()
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type tc struct {
		name            string
		in, out, errTTY bool
		env             environment
		prompts         bool
		note            string
	}
	cases := []tc{
		{"all three", true, true, true, environment{"TERM=xterm"}, true, ""},
		{"stderr redirected", true, true, false, environment{"TERM=xterm"}, true, ""},
		{"stdout redirected", true, false, true, environment{"TERM=xterm"}, true, ""},
		{"both redirected", true, false, false, environment{"TERM=xterm"}, false, ""},
		{"stdin redirected", false, true, true, environment{"TERM=xterm"}, false, ""},
		{"dumb", true, true, true, environment{"TERM=dumb"}, false, "note: TERM=dumb: no prompts"},
	}
	if runtime.GOOS != "windows" {
		cases = append(cases, tc{"TERM unset", true, true, true, environment{}, false, "note: TERM is not set: no prompts"})
	}
	for _, c := range cases {
		errOut, err := os.CreateTemp(t.TempDir(), "stderr")
		if err != nil {
			t.Fatal(err)
		}
		g := &globalOptions{IO: &IOStreams{In: f, Out: f, ErrOut: errOut, InTTY: c.in, OutTTY: c.out, ErrTTY: c.errTTY}, Env: c.env}
		p := terminalPrompter(g, nil)
		errOut.Close()
		note, _ := os.ReadFile(errOut.Name())
		if (p != nil) != c.prompts || !strings.Contains(string(note), c.note) {
			t.Errorf("%s: prompter %v, stderr %q; want prompts %v, note %q", c.name, p != nil, note, c.prompts, c.note)
		}
	}
}
