package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// sourceFiles is every non-test Go file of the module, parsed once for the
// source checks (defaults, forwarders, environment), which only read the
// syntax trees: with comments, without object resolution.
var sourceFiles struct {
	once  sync.Once
	fset  *token.FileSet
	files []parsedFile
	err   error
}

type parsedFile struct {
	rel string // slash path relative to the module root
	f   *ast.File
}

// eachSourceFile calls fn with every non-test Go file of the module
// (hidden folders and testdata skipped), its slash path relative to the
// module root and its syntax tree, which fn must not change. The files are
// parsed once per test binary.
func eachSourceFile(t *testing.T, fn func(rel string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	sourceFiles.once.Do(func() {
		root := filepath.Join("..", "..")
		fset := token.NewFileSet()
		sourceFiles.err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			sourceFiles.files = append(sourceFiles.files, parsedFile{filepath.ToSlash(rel), f})
			return nil
		})
		sourceFiles.fset = fset
	})
	if sourceFiles.err != nil {
		t.Fatal(sourceFiles.err)
	}
	for _, pf := range sourceFiles.files {
		fn(pf.rel, sourceFiles.fset, pf.f)
	}
}
