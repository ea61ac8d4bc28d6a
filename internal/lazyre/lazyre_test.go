package lazyre

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestNewCompilesOnceOnFirstUse(t *testing.T) {
	re := New(`^a+b$`)
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = re() }()
	}
	wg.Wait()
	for _, g := range got[1:] {
		if g != got[0] {
			t.Fatal("New's function returned two different regexps")
		}
	}
	if !re().MatchString("aab") || re().MatchString("ba") {
		t.Fatal("the regexp does not match as compiled")
	}
}

func TestFirstUseOfAnInvalidExpressionPanics(t *testing.T) {
	bad := New(`a(`)
	defer func() {
		if recover() == nil {
			t.Fatal("the first use of an invalid expression did not panic")
		}
	}()
	bad()
}

// TestModuleExpressionsCompile compiles the expression of every
// lazyre.New in the module's non-test source (they compile on first use,
// not at start: a bad one would otherwise show only when its code runs).
// Each must be a string literal, or literals joined with +, so that it can
// be read here.
func TestModuleExpressionsCompile(t *testing.T) {
	root := moduleRoot(t)
	calls, files := 0, 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); p != root && err == nil {
				return filepath.SkipDir // another module (bench/, …)
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		local := "" // the name the file imports lazyre as
		for _, im := range f.Imports {
			if im.Path.Value == `"github.com/ctx-dev/ctx/internal/lazyre"` {
				local = "lazyre"
				if im.Name != nil {
					local = im.Name.Name
				}
			}
		}
		if local == "" {
			return nil
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "New" {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != local {
				return true
			}
			calls++
			expr, ok := literal(call.Args[0])
			if !ok {
				t.Errorf("%s: lazyre.New's argument is not a string literal (or literals joined with +): this test cannot compile it", fset.Position(call.Pos()))
				return true
			}
			if _, err := regexp.Compile(expr); err != nil {
				t.Errorf("%s: %v", fset.Position(call.Pos()), err)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d lazyre.New calls in %d files", calls, files)
	if files == 0 || calls < files {
		t.Fatalf("found %d lazyre.New calls in %d files importing lazyre under %s: the walk is broken", calls, files, root)
	}
}

// literal is the value of a string literal or of literals joined with +.
func literal(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.ParenExpr:
		return literal(e.X)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		x, ok1 := literal(e.X)
		y, ok2 := literal(e.Y)
		return x + y, ok1 && ok2
	}
	return "", false
}

// moduleRoot is the folder of the go.mod above the test's folder.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}
