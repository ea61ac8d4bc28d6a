package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/indexer"
)

// literalDefault is a comment that states a default as a bare number
// ("0 = 8", "0 means 10", "default 30s") instead of naming its constant.
var literalDefault = regexp.MustCompile(`\b0 (=|means) [0-9]|\b[Dd]efault:? [0-9]`)

// TestDocumentedDefaultsNameTheirConstants (issue 10, D8): a doc comment
// that gives a default names the constant that holds it, so that the two
// cannot drift apart ("0 = 8" jobs stayed in workspace's doc after the
// default became 16).
func TestDocumentedDefaultsNameTheirConstants(t *testing.T) {
	t.Parallel()
	eachSourceFile(t, func(_ string, fset *token.FileSet, f *ast.File) {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if m := literalDefault.FindString(c.Text); m != "" {
					t.Errorf("%s: %q states a default as a number: name its constant instead", fset.Position(c.Pos()), strings.TrimSpace(c.Text))
				}
			}
		}
	})
}

// TestREADMEDefaults: the defaults the README states, which cannot name a
// constant, are the constants' values.
func TestREADMEDefaults(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(b)), " ")
	for _, want := range []string{
		fmt.Sprintf("index.budgetTokens (default %d)", indexer.DefaultBudgetTokens),
		fmt.Sprintf("A server that sends nothing for %d s", int(gitengine.DefaultIdleTimeout.Seconds())),
		fmt.Sprintf("Files over %d MB are skipped", gitengine.DefaultMaxFileSize>>20),
		fmt.Sprintf("the keep period (`--keep`, default %d days;", gitengine.DefaultKeep/(24*time.Hour)),
		fmt.Sprintf("waited for %d s, then skipped", int(cacheGCWait.Seconds())),
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md does not say %q: update it to the constant's value", want)
		}
	}
}
