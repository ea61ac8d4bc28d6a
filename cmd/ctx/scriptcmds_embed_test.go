package main

import (
	"strconv"
	"sync"

	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/rogpeppe/go-internal/testscript"
)

// embedScriptCmds: a loopback stub embedding endpoint (embedtest) per
// script.
//
//	embedstub start VAR      start one; its base URL in $VAR
//	embedstub stop           stop it (a stopped endpoint)
//	embedstub texts N        exactly N texts embedded so far (! for not N)
func embedScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){"embedstub": cmdEmbedStub}
}

var embedStubs sync.Map // *testscript.TestScript → *embedtest.Server

type scriptCleanup struct{ ts *testscript.TestScript }

func (c scriptCleanup) Cleanup(f func()) { c.ts.Defer(f) }

func cmdEmbedStub(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: embedstub start VAR | stop | texts N")
	}
	get := func() *embedtest.Server {
		s, ok := embedStubs.Load(ts)
		if !ok {
			ts.Fatalf("embedstub: none started")
		}
		return s.(*embedtest.Server)
	}
	switch {
	case args[0] == "start" && len(args) == 2 && !neg:
		s := embedtest.Start(scriptCleanup{ts})
		embedStubs.Store(ts, s)
		ts.Defer(func() { embedStubs.Delete(ts) })
		ts.Setenv(args[1], s.BaseURL())
	case args[0] == "stop" && len(args) == 1 && !neg:
		get().Close()
	case args[0] == "texts" && len(args) == 2:
		want, err := strconv.Atoi(args[1])
		ts.Check(err)
		_, n := get().Counts()
		if (n == want) == neg {
			ts.Fatalf("embedstub: %d texts embedded (want %s%d)", n, map[bool]string{true: "not ", false: ""}[neg], want)
		}
	default:
		ts.Fatalf("usage: embedstub start VAR | stop | texts N")
	}
}
