package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"reflect"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// In the scripts, `ctx ARGS` runs ctx in this process: run with the
// script's environment, working directory and buffers, as Main runs it
// with the process's. It saves a process start (~80 ms of CPU each, the
// most of the scripts' time) per command. `exec ctx ARGS` still starts a
// process, for what needs one: `ctx mcp` over stdio, a command given
// stdin (testscript's stdin is for exec only), one in the background (&)
// that the script waits for or kills.
//
// CTX_SCRIPT_EXEC=1 in the test's environment makes `ctx` start a process
// too: every script passes both ways (the proof that in-process runs are
// the same as processes).
var scriptExec = os.Getenv("CTX_SCRIPT_EXEC") == "1"

func ctxScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"ctx": cmdCtx,
	}
}

// cmdCtx: ctx ARGS... runs ctx; ! ctx wants it to fail (any exit code but
// 0; `exits N ctx` checks the code).
func cmdCtx(ts *testscript.TestScript, neg bool, args []string) {
	for _, a := range args {
		if strings.HasPrefix(a, "&") && strings.HasSuffix(a, "&") {
			ts.Fatalf("ctx: no background (&) in process: use exec ctx ... %s", a)
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
	return run(context.Background(), args, io, env, wd), nil
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
