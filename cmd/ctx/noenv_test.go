package main

import (
	"go/ast"
	"go/parser"
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
	}
	// Calls allowed below cmd, by file and function, and why.
	allowed := map[string]string{
		"internal/gittest/gittest.go: os.Environ": "test support: the environment of the git processes tests run",
		"registry/location.go: os.UserHomeDir":    "expands ~/ in a registry location the user typed",
		"bench/crash/main.go: os.Environ":         "a benchmark harness: the environment of the ctx and git processes it starts",
	}
	eachSourceFile(t, parser.SkipObjectResolution, func(rel string, fset *token.FileSet, f *ast.File) {
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
