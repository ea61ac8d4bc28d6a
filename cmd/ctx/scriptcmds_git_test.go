package main

import "github.com/rogpeppe/go-internal/testscript"

// gitScriptCmds are script commands for serving and changing git fixtures.
func gitScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){}
}
