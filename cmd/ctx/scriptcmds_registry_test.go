package main

import "github.com/rogpeppe/go-internal/testscript"

// registryScriptCmds are script commands for registry and setup scripts.
func registryScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){}
}
