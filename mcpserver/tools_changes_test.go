package mcpserver

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/changes"
	"github.com/ctx-dev/ctx/gitengine"
)

// fixtureChanges is what_changed's source in these tests: the fixture's
// packages now against an earlier version of them (setup.md's Install
// section worded otherwise, no many/ documents, long.md shorter),
// compared by package changes as workspace.Changes compares them.
func fixtureChanges(dir string) ChangesFunc {
	return func(ctx context.Context, alias, since, _ string) (*changes.Set, error) {
		if since != "" {
			return nil, fmt.Errorf("revision %q: not in this test's history", since)
		}
		old := map[string][]changes.File{}
		cur := map[string][]changes.File{}
		file := func(p, content string) changes.File {
			return changes.File{Path: p, ID: gitengine.HashBlob([]byte(content)), Read: func() ([]byte, error) { return []byte(content), nil }}
		}
		pkgs := filepath.Join(dir, ".context", "packages")
		err := filepath.WalkDir(pkgs, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			// Asked for one package, the others' files are not read: they
			// are left out of the answer below anyway (a package's files
			// are read once per call; TestTooSmallAdviceEveryBudget makes
			// 300 calls for guide, which read all four packages before).
			if alias != "" && d.IsDir() && filepath.Dir(path) == pkgs && d.Name() != alias {
				return filepath.SkipDir
			}
			if !d.Type().IsRegular() {
				return nil
			}
			rel, _ := filepath.Rel(pkgs, path)
			a, p, _ := strings.Cut(filepath.ToSlash(rel), "/")
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			content := string(b)
			cur[a] = append(cur[a], file(p, content))
			switch {
			case a == "many":
			case p == "docs/setup.md":
				old[a] = append(old[a], file(p, strings.Replace(content, "Run the installer.", "Run the old installer.", 1)))
			case a == "big" || a == "adv":
				lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
				old[a] = append(old[a], file(p, strings.Join(lines[:len(lines)/2], "\n")+"\n"))
			default:
				old[a] = append(old[a], file(p, content))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		set := &changes.Set{Since: "HEAD (the lock as last committed)"}
		var aliases []string
		for a := range cur {
			if alias == "" || a == alias {
				aliases = append(aliases, a)
			}
		}
		sort.Strings(aliases)
		for _, a := range aliases {
			docs, err := changes.Compare(old[a], cur[a], changes.Limits{})
			if err != nil {
				return nil, err
			}
			p := changes.Package{Alias: a, Kind: "git", OldRev: strings.Repeat("c3", 20), NewRev: strings.Repeat("a1", 20), Status: changes.StatusChanged, Documents: docs}
			if len(docs) == 0 {
				p.Status = changes.StatusUnchanged
			}
			set.Packages = append(set.Packages, p)
		}
		return set, nil
	}
}

// TestWhatChanged: the changed section with its provenance (package,
// path, heading trail, lines, commit, diff) and a resource link (its lines
// are its own heading's section, without the near-empty "# Setup" before
// it); a budget
// too small for every change lists what fits and says how many there are.
func TestWhatChanged(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	var out WhatChangedOut
	res := call(t, cs, "what_changed", map[string]any{"package": "guide"}, &out)
	if res.IsError {
		t.Fatal(text(res))
	}
	if len(out.Changes) != 1 || out.Total != 1 {
		t.Fatalf("got %+v", out)
	}
	c := out.Changes[0]
	// The revision is said once, on the package's line (agent21: every
	// change repeated its package's "to" as "commit").
	if len(out.Packages) != 1 || out.Packages[0].Package != "guide" || out.Packages[0].To != "a1a1a1a1a1a1" || strings.Contains(text(res), `"commit"`) {
		t.Errorf("packages %+v, text %s: want guide's revision once, on its line", out.Packages, text(res))
	}
	if c.Package != "guide" || c.Path != "docs/setup.md" || c.Heading != "Setup > Install" ||
		strings.Contains(text(res), `"uri"`) || !strings.Contains(c.Diff, "+Run the installer.") || c.Lines != [2]int{9, 11} {
		t.Errorf("got %+v", c)
	}

	res = call(t, cs, "what_changed", map[string]any{"maxTokens": 1000}, &out)
	if res.IsError {
		t.Fatal(text(res))
	}
	if out.Total < 62 || len(out.Changes) == 0 || len(out.Changes) >= out.Total || !strings.Contains(out.Note, fmt.Sprintf("%d of %d changes listed", len(out.Changes), out.Total)) {
		t.Errorf("with maxTokens 1000: %d of %d listed, note %q", len(out.Changes), out.Total, out.Note)
	}

	res = call(t, cs, "what_changed", map[string]any{"since": "v0"}, nil)
	if !res.IsError || !strings.Contains(text(res), `revision "v0"`) {
		t.Errorf("a bad since: %s", text(res))
	}
}

// TestWhatChangedUnavailable: a server without the function says so.
func TestWhatChangedUnavailable(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir, func(s *Server) { s.changes = nil })
	res := call(t, cs, "what_changed", nil, nil)
	if !res.IsError || !strings.Contains(text(res), "not available") {
		t.Errorf("got %s", text(res))
	}
}
