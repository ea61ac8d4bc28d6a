package main

import (
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// textsafeScriptCmds are the script commands of the hostile-text scripts.
func textsafeScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"setenv-go": cmdSetenvGo,
	}
}

// cmdSetenvGo sets NAME to TEXT with Go escapes (\x1b, \u202e, \n) decoded,
// repeated COUNT times (default 1): scripts cannot write control bytes or
// 100,000-byte arguments themselves.
func cmdSetenvGo(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "setenv-go")
	if len(args) != 2 && len(args) != 3 {
		ts.Fatalf("usage: setenv-go NAME TEXT [COUNT]")
	}
	v, err := strconv.Unquote(`"` + args[1] + `"`)
	ts.Check(err)
	n := 1
	if len(args) == 3 {
		n, err = strconv.Atoi(args[2])
		ts.Check(err)
	}
	ts.Setenv(args[0], strings.Repeat(v, n))
}
