package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"
)

// TestNoExportedForwarders (issue 10, step 8): an exported function or
// method keeps its doc comment and its body together. It fails on one whose
// whole body is a call to an unexported function or method of the same name
// lower-cased (func (w *Workspace) Add(…) { return w.add(…) }): rename the
// implementation to the exported name instead.
func TestNoExportedForwarders(t *testing.T) {
	t.Parallel()
	eachSourceFile(t, func(_ string, fset *token.FileSet, f *ast.File) {
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() {
				continue
			}
			if twin := forwardsTo(fd); twin != "" {
				t.Errorf("%s: %s only calls %s: delete the forwarder, rename %s to %s and give it the doc comment", fset.Position(fd.Pos()), fd.Name.Name, twin, twin, fd.Name.Name)
			}
		}
	})
}

// forwardsTo returns the name of the unexported function fd's body consists
// of one call to, when that name is fd's lower-cased; else "".
func forwardsTo(fd *ast.FuncDecl) string {
	if fd.Body == nil || len(fd.Body.List) != 1 {
		return ""
	}
	var call ast.Expr
	switch s := fd.Body.List[0].(type) {
	case *ast.ReturnStmt:
		if len(s.Results) != 1 {
			return ""
		}
		call = s.Results[0]
	case *ast.ExprStmt:
		call = s.X
	default:
		return ""
	}
	c, ok := call.(*ast.CallExpr)
	if !ok {
		return ""
	}
	var callee *ast.Ident
	switch fn := c.Fun.(type) {
	case *ast.Ident:
		if types.Universe.Lookup(fn.Name) != nil {
			return "" // a conversion (string(r)) or a builtin
		}
		callee = fn
	case *ast.SelectorExpr:
		callee = fn.Sel
	default:
		return ""
	}
	if callee.IsExported() || !strings.EqualFold(callee.Name, fd.Name.Name) {
		return ""
	}
	return callee.Name
}

// TestForwardsTo: the check above sees a forwarder, and only a forwarder.
func TestForwardsTo(t *testing.T) {
	for src, want := range map[string]string{
		"func (w *W) Add(x int) error { return w.add(x) }":   "add",
		"func Open(p string) (*W, error) { return open(p) }": "open",
		"func (w *W) Touch() { w.touch() }":                  "touch",
		"func ListRefs() error { return listRefs() }":        "listRefs",
		"func Init() error { return initProject() }":         "",
		"func Close() error { return unlock() }":             "",
		"func (r R) String() string { return string(r) }":    "",
		"func Open() error { return Open2() }":               "",
		"func Add(x int) error { y := x; return add(y) }":    "",
		"func Parse() (int, error) { return parse(), nil }":  "",
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\n"+src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := forwardsTo(f.Decls[0].(*ast.FuncDecl)); got != want {
			t.Errorf("%s: forwardsTo = %q, want %q", src, got, want)
		}
	}
}
