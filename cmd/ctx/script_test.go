package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/testtmp"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary double as the ctx command: started as
// "ctx" (from the folder it puts on PATH), it is ctx. testscript.Main
// would do the same, but it also makes `ctx` in a script a process,
// where the scripts' `ctx` runs in this one (scriptcmds_ctx_test.go) and
// only `exec ctx` starts a process. With CTX_TEST_STRAY_PRINTS=1 (set by
// TestRealBinaryOverStdio only), ctx mcp prints to stdout once it has
// guarded it (mcp_process_test.go).
func TestMain(m *testing.M) {
	if strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") == "ctx" {
		if os.Getenv(strayPrintsEnv) == "1" {
			afterStdoutGuard = strayPrints
		}
		os.Exit(Main())
	}
	// Its tests mostly wait (on git and ctx processes, servers, the
	// network tests' windows): two at once per core, unless -parallel is
	// given (internal/testtmp).
	testtmp.SetWaitingParallel()
	os.Exit(testtmp.Run(testsRun{m}, testtmp.Root))
}

// testsRun is runTests as testtmp's M: the tests' temporary files on tmpfs
// when the machine has one (internal/testtmp), the scripts' work folders and
// the ctx processes they start included.
type testsRun struct{ m *testing.M }

func (r testsRun) Run() int { return runTests(r.m) }

// ctxExe is the test binary as ctx: the link runTests puts on PATH.
var ctxExe string

// testEnv is the environment of the commands the tests run in process
// outside scripts (runCtx): the process's PATH, and a HOME and a cache in
// runTests's folder, so that no test writes into the user's. Set once,
// before the tests run.
var testEnv environment

// runTests puts a copy of the test binary named ctx on PATH, sets testEnv
// and runs the tests.
func runTests(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "ctx-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	testEnv = environment{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(tmp, "home"),
		"CTX_CACHE=" + filepath.Join(tmp, "cache"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
	}
	name := "ctx"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	ctxExe = filepath.Join(tmp, name)
	if err := linkOrCopy(ctxExe); err != nil {
		fmt.Fprintf(os.Stderr, "ctx on PATH for the scripts: %v\n", err)
		return 1
	}
	os.Setenv("PATH", tmp+string(filepath.ListSeparator)+os.Getenv("PATH"))
	return m.Run()
}

// linkOrCopy makes to a hard link to the test binary, else a copy.
func linkOrCopy(to string) error {
	from, err := os.Executable()
	if err != nil {
		return err
	}
	if os.Link(from, to) == nil {
		return nil
	}
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// TestScript runs the end-to-end scripts in testdata/script at the repository
// root. Each runs in its own $WORK with its own HOME, cache and git identity,
// and builds the git repositories it needs there.
func TestScript(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "script"),
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Values[scriptTKey{}] = env.T() // deferredFatal's
			work := env.WorkDir
			home := filepath.Join(work, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			for k, v := range map[string]string{
				"HOME":            home,
				"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
				"CTX_CACHE":       filepath.Join(work, ".cache"),
				// The search for the project stops at $WORK: a stray
				// manifest above it (in /tmp) is not the scripts' business.
				"CTX_CEILING_DIRECTORIES": filepath.Dir(work),
				"GIT_CONFIG_NOSYSTEM":     "1",
				"GIT_AUTHOR_NAME":         "ctx test",
				"GIT_AUTHOR_EMAIL":        "test@ctx.invalid",
				"GIT_COMMITTER_NAME":      "ctx test",
				"GIT_COMMITTER_EMAIL":     "test@ctx.invalid",
				// Fixed dates keep commit ids stable across runs.
				"GIT_AUTHOR_DATE":     "2026-01-01T00:00:00Z",
				"GIT_COMMITTER_DATE":  "2026-01-01T00:00:00Z",
				"GIT_TERMINAL_PROMPT": "0",
				// A UTF-8 locale, as most users': ctx's marks (→ …) are
				// its (termenv.Symbols); `env LANG=C` gives ASCII's
				// (cli21_ascii.txtar).
				"LANG": "C.UTF-8",
				// No `git gc --auto` after a push (receive-pack's) or a
				// commit, and no `git maintenance run --auto`: processes
				// that find nothing to do in a fixture this small.
				"GIT_CONFIG_COUNT":   "3",
				"GIT_CONFIG_KEY_0":   "gc.auto",
				"GIT_CONFIG_VALUE_0": "0",
				"GIT_CONFIG_KEY_1":   "maintenance.auto",
				"GIT_CONFIG_VALUE_1": "false",
				"GIT_CONFIG_KEY_2":   "receive.autogc",
				"GIT_CONFIG_VALUE_2": "false",
				// Each ctx process here is short-lived, and with the default
				// GOGC its start-up alone collects (a fifth of `ctx version`'s
				// CPU; the scripts' CPU drops by about a tenth with 400). The
				// scripts' processes only; the product's default is untouched.
				"GOGC": "400",
			} {
				env.Setenv(k, v)
			}
			return nil
		},
		Cmds: scriptCmds(),
		// [root]: running as root, whom chmod does not stop from writing.
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// scriptCmds merges the custom script commands of each area.
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	cmds := map[string]func(ts *testscript.TestScript, neg bool, args []string){}
	for _, m := range []map[string]func(ts *testscript.TestScript, neg bool, args []string){
		gitScriptCmds(),
		fixtureScriptCmds(),
		registryScriptCmds(),
		textsafeScriptCmds(),
		httpsScriptCmds(),
		mcpScriptCmds(),
		cacheScriptCmds(),
		searchScriptCmds(),
		embedScriptCmds(),
		ctxScriptCmds(),
	} {
		for k, v := range m {
			cmds[k] = v
		}
	}
	return cmds
}
