package main

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// TestNoEnvironmentBelowCmd: only cmd/ reads the environment (see
// engineenv.go); the packages below take their settings as options, so
// their tests need no t.Setenv and can run in parallel. It parses every
// non-test Go file of the module outside cmd/.
func TestNoEnvironmentBelowCmd(t *testing.T) {
	t.Parallel()
	// The calls of package os that read the environment, or a directory
	// found through it.
	envReaders := map[string]bool{
		"Getenv": true, "LookupEnv": true, "Environ": true, "ExpandEnv": true,
		"UserCacheDir": true, "UserConfigDir": true, "UserHomeDir": true,
		// and the working directory: paths come down absolute
		"Getwd": true, "Chdir": true, "Setenv": true, "Unsetenv": true, "Clearenv": true,
	}
	// Calls allowed below cmd, by file and function, and why.
	allowed := map[string]string{
		"internal/gittest/gittest.go: os.Environ": "test support: the environment of the git processes tests run",
		"internal/testtmp/testtmp.go: os.Getenv":  "test support: CTX_TEST_TMPDIR=default keeps a test binary's temporary folder",
		"internal/testtmp/testtmp.go: os.Setenv":  "test support: a test binary's TestMain points TMPDIR at tmpfs",
		"registry/location.go: os.UserHomeDir":    "expands ~/ in a registry's import (what the user typed comes expanded: ResolveLocal with the command's home)",
		"bench/crash/main.go: os.Environ":         "a benchmark harness: the environment of the ctx and git processes it starts",
		"internal/gcstart/gcstart.go: os.Getenv":  "GOGC and GOMEMLIMIT, the runtime's own settings, read by the collector's setup, which a search's early walk makes before main runs (indexer/prewalk's init)",
		"indexer/prewalk/prewalk.go: os.Getwd":    "the early walk starts before main, from the working folder; the check takes it only for its own project's index folder",
	}
	eachSourceFile(t, func(rel string, fset *token.FileSet, f *ast.File) {
		if strings.HasPrefix(rel, "cmd/") {
			return
		}
		osName := ""
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == "os" {
				osName = "os"
				if im.Name != nil {
					osName = im.Name.Name
				}
			}
		}
		if osName == "" {
			return
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || !envReaders[sel.Sel.Name] {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == osName {
				if _, ok := allowed[rel+": os."+sel.Sel.Name]; !ok {
					t.Errorf("%s: os.%s below cmd: read it once in cmd/ctx (engineenv.go) and pass it down as an option", fset.Position(sel.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
	})
}

// TestNoProcessStateInCommands: cmd/ctx's commands read the environment
// and the working directory from globalOptions (Env, Wd: what run was
// given), never from the process, so that the scripts can run ctx in
// process, many at once, each in its own HOME and folder
// (scriptcmds_ctx_test.go). Main reads the process's once and passes
// them; env.go finds programs on Env's PATH and starts them with Env.
func TestNoProcessStateInCommands(t *testing.T) {
	t.Parallel()
	forbidden := map[string]map[string]bool{
		"os": {
			"Getenv": true, "LookupEnv": true, "Environ": true, "ExpandEnv": true,
			"UserCacheDir": true, "UserConfigDir": true, "UserHomeDir": true,
			"Getwd": true, "Chdir": true, "Setenv": true, "Unsetenv": true, "Clearenv": true,
			"TempDir": true,
		},
		"path/filepath": {"Abs": true},
		"os/exec":       {"LookPath": true, "Command": true, "CommandContext": true},
	}
	allowed := map[string]string{
		"cmd/ctx/root.go: os.Environ":         "Main: the process's environment, passed to run",
		"cmd/ctx/root.go: os.Getwd":           "Main: the process's working directory, passed to run",
		"cmd/ctx/env.go: exec.LookPath":       "environment.lookPath checks each candidate on Env's PATH",
		"cmd/ctx/env.go: exec.CommandContext": "environment.command: a program found on Env's PATH, run with Env",
		"cmd/ctx/gcstart.go: os.Getenv":       "main: the process's own collector, left alone when the process's GOGC or GOMEMLIMIT is set",
	}
	seen := 0
	eachSourceFile(t, func(rel string, fset *token.FileSet, f *ast.File) {
		if !strings.HasPrefix(rel, "cmd/ctx/") {
			return
		}
		seen++
		names := map[string]string{} // local name → import path, of the packages checked
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if forbidden[p] == nil {
				continue
			}
			name := p[strings.LastIndex(p, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			names[name] = p
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok || !forbidden[names[id.Name]][sel.Sel.Name] {
				return true
			}
			key := rel + ": " + id.Name + "." + sel.Sel.Name
			if _, ok := allowed[key]; !ok {
				t.Errorf("%s: %s.%s reads the process's environment or working directory: use the command's (globalOptions.Env, .Wd, .abs; env.go)", fset.Position(sel.Pos()), id.Name, sel.Sel.Name)
			}
			return true
		})
	})
	if seen == 0 {
		t.Fatal("no file of cmd/ctx was checked")
	}
}
