package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/webfetch"
	"github.com/rogpeppe/go-internal/testscript"
)

// In the scripts, `ctx ARGS` runs ctx in this process: run with the
// script's environment, working directory and buffers, as Main runs it
// with the process's. It saves a process start (~80 ms of CPU each, the
// most of the scripts' time) per command. `ctx ARGS &NAME&` runs it in
// the background, in this process too, and `wait-ctx` waits for the
// script's background ctx commands (testscript's own `wait` knows only
// its exec's). `exec ctx ARGS` still starts a process, for what needs
// one: `ctx mcp` over stdio, a command given stdin (testscript's stdin is
// for exec only), one the script kills or signals.
//
// CTX_SCRIPT_EXEC=1 in the test's environment makes `ctx` start a process
// too: every script passes both ways (the proof that in-process runs are
// the same as processes).
var scriptExec = os.Getenv("CTX_SCRIPT_EXEC") == "1"

func ctxScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"ctx":      cmdCtx,
		"wait-ctx": cmdWaitCtx,
	}
}

// cmdCtx: ctx ARGS... runs ctx; ! ctx wants it to fail (any exit code but
// 0; `exits N ctx` checks the code). With a last argument &NAME& (or &)
// it runs in the background: wait-ctx waits for it and checks its code.
func cmdCtx(ts *testscript.TestScript, neg bool, args []string) {
	if n := len(args); n > 0 && isBackground(args[n-1]) {
		startBackgroundCtx(ts, neg, args[:n-1])
		return
	}
	for _, a := range args {
		if isBackground(a) {
			ts.Fatalf("ctx: %s: a background mark must be the last argument", a)
		}
	}
	code, err := runScriptCtx(ts, args)
	if err != nil {
		ts.Fatalf("ctx: %v", err)
	}
	switch {
	case neg && code == 0:
		ts.Fatalf("unexpected command success")
	case !neg && code != 0:
		ts.Fatalf("ctx exited with status %d", code)
	}
}

// isBackground reports whether a is testscript's background mark: & or
// &NAME&.
func isBackground(a string) bool {
	return a == "&" || len(a) > 2 && strings.HasPrefix(a, "&") && strings.HasSuffix(a, "&")
}

// bgCtx holds each script's background ctx commands, in start order.
var bgCtx sync.Map // *testscript.TestScript → *[]*bgRun

// bgRun is one background ctx command: its output, kept apart from the
// script's until wait-ctx, and its exit code once done is closed.
type bgRun struct {
	args           []string
	neg            bool
	stdout, stderr bytes.Buffer
	done           chan struct{}
	code           int
	err            error
}

// startBackgroundCtx starts `ctx args` on its own goroutine: in process
// (run, with the script's environment and folder, read here, on the
// script's goroutine) or, with CTX_SCRIPT_EXEC=1, as a process. The
// script's end cancels what is still running and waits for it.
func startBackgroundCtx(ts *testscript.TestScript, neg bool, args []string) {
	b := &bgRun{args: args, neg: neg, done: make(chan struct{})}
	wd := ts.MkAbs(".")
	env := append(scriptEnv(ts), "PWD="+wd)
	ctx, cancel := context.WithCancel(scriptContext())
	v, loaded := bgCtx.LoadOrStore(ts, &[]*bgRun{})
	runs := v.(*[]*bgRun)
	*runs = append(*runs, b)
	if !loaded {
		ts.Defer(func() {
			if v, ok := bgCtx.LoadAndDelete(ts); ok {
				for _, b := range *v.(*[]*bgRun) {
					<-b.done
				}
			}
		})
	}
	ts.Defer(cancel)
	go func() {
		defer close(b.done)
		if !scriptExec {
			b.code = run(ctx, args, &IOStreams{In: strings.NewReader(""), Out: &b.stdout, ErrOut: &b.stderr}, env, wd)
			return
		}
		cmd := exec.CommandContext(ctx, ctxExe, args...)
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = wd, env, &b.stdout, &b.stderr
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee) && ee.ExitCode() >= 0:
			b.code = ee.ExitCode()
		default:
			b.code, b.err = -1, err
		}
	}()
}

// cmdWaitCtx: wait-ctx waits for the script's background ctx commands,
// appends their output to the script's stdout and stderr (in start order,
// as testscript's wait does), and fails if one ended as it was not meant
// to (ctx: code 0; ! ctx: any other).
func cmdWaitCtx(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "wait-ctx")
	if len(args) != 0 {
		ts.Fatalf("usage: wait-ctx")
	}
	v, ok := bgCtx.LoadAndDelete(ts)
	if !ok {
		return
	}
	var failed []string
	for _, b := range *v.(*[]*bgRun) {
		<-b.done
		_, _ = ts.Stdout().Write(b.stdout.Bytes())
		_, _ = ts.Stderr().Write(b.stderr.Bytes())
		switch {
		case b.err != nil:
			failed = append(failed, fmt.Sprintf("ctx %s: %v", strings.Join(b.args, " "), b.err))
		case b.neg && b.code == 0:
			failed = append(failed, fmt.Sprintf("ctx %s: unexpected success", strings.Join(b.args, " ")))
		case !b.neg && b.code != 0:
			failed = append(failed, fmt.Sprintf("ctx %s: exit status %d\n%s", strings.Join(b.args, " "), b.code, b.stderr.String()))
		}
	}
	if len(failed) > 0 {
		ts.Fatalf("%s", strings.Join(failed, "\n"))
	}
}

// runScriptCtx runs ctx with args in ts, in process (or as a process with
// CTX_SCRIPT_EXEC=1), and returns its exit code; its stdout and stderr
// become the script's.
func runScriptCtx(ts *testscript.TestScript, args []string) (int, error) {
	if scriptExec {
		err := ts.Exec("ctx", args...)
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0, nil
		case errors.As(err, &ee) && ee.ExitCode() >= 0:
			return ee.ExitCode(), nil
		default:
			return -1, err
		}
	}
	wd := ts.MkAbs(".")
	env := append(scriptEnv(ts), "PWD="+wd)
	io := &IOStreams{In: strings.NewReader(""), Out: ts.Stdout(), ErrOut: ts.Stderr()}
	return run(scriptContext(), args, io, env, wd), nil
}

// scriptRetryDelay is the https retries' first delay in the scripts' ctx
// run in process (webfetch.RetryDelay), for the product's 500 ms: a page
// answering 500 waits 10 + 20 ms instead of 1.5 s. That a retry waits its
// delay is webfetch's TestRetryWaitsItsBackoff; the scripts check which
// pages are retried and what is said. (As a process, with
// CTX_SCRIPT_EXEC=1 or `exec ctx`, ctx waits the product's delay.)
const scriptRetryDelay = 10 * time.Millisecond

// scriptContext is the context of a script's ctx run in process.
func scriptContext() context.Context {
	return context.WithValue(context.Background(), webfetch.RetryDelay{}, scriptRetryDelay)
}

// scriptEnv is the script's environment as its exec commands get it (the
// list testscript keeps, with `env` and Setenv's changes): testscript has
// no accessor for the list, so it is read from its field, and a change of
// testscript that moves it fails here rather than running ctx in the
// wrong environment.
func scriptEnv(ts *testscript.TestScript) []string {
	f := reflect.ValueOf(ts).Elem().FieldByName("env")
	if !f.IsValid() || f.Kind() != reflect.Slice || f.Type().Elem().Kind() != reflect.String {
		ts.Fatalf("testscript.TestScript has no env []string field (go-internal changed?): %v", f.Kind())
	}
	env := make([]string, f.Len())
	for i := range env {
		env[i] = f.Index(i).String()
	}
	return env
}
