package indexer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/ctx-dev/ctx/indexer/markdown"
)

// stopAfter is a context whose Err turns to context.Canceled after n
// calls: a walk stopped in its middle.
type stopAfter struct {
	context.Context
	n atomic.Int64
}

func (c *stopAfter) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// own20: the freshness walk (the MCP server runs it in the background)
// could not be stopped: Close waited for a walk of every package's files.
// FreshnessContext stops with its context, at a package and inside a
// package's walk, and writes no walk record of a walk cut short.
func TestFreshnessStopsWithItsContext(t *testing.T) {
	t.Parallel()
	root, ctxDir := dirProject(t)
	pkgs := dirPackages(root)
	if _, err := Sync(context.Background(), ctxDir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(ctxDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	record := filepath.Join(r.indexDir(), walkRecordFile)
	os.Remove(record) // the next check walks every package in full
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.FreshnessContext(cancelled, pkgs); !errors.Is(err, context.Canceled) {
		t.Errorf("FreshnessContext(cancelled) = %v; want context.Canceled", err)
	}
	if _, err := os.Stat(record); err == nil {
		t.Error("a stopped check wrote a walk record")
	}
	if f, err := r.FreshnessContext(context.Background(), pkgs); err != nil || !f.Fresh {
		t.Errorf("FreshnessContext = %+v, %v; want fresh", f, err)
	}
}

// A walk with a Context stops at the entry where it ends, with its error.
func TestWalkInfoStopsWithItsContext(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, n := range []string{"a.md", "b/c.md", "b/d.md", "e/f.md"} {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := &stopAfter{Context: context.Background()}
	ctx.n.Store(3)
	found, err := markdown.WalkInfo(os.DirFS(dir), markdown.WalkOptions{Context: ctx}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("WalkInfo = %d found, %v; want context.Canceled", len(found), err)
	}
	all, err := markdown.WalkInfo(os.DirFS(dir), markdown.WalkOptions{}, nil)
	if err != nil || len(all) != 4 {
		t.Errorf("WalkInfo without a context = %d, %v; want 4", len(all), err)
	}
}

// own20: the reads of the graph and the catalogue an MCP call makes after
// indexFor (find_documents, related, list_tags) went through the whole
// corpus whatever the call's context said: they now stop with it.
func TestGraphReadsStopWithTheirContext(t *testing.T) {
	t.Parallel()
	r := linkFixture(t)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Find(done, FindQuery{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Find = %v; want context.Canceled", err)
	}
	if _, err := r.Neighbours(done, "notes", "sub/b.md", 2); !errors.Is(err, context.Canceled) {
		t.Errorf("Neighbours = %v; want context.Canceled", err)
	}
	if _, err := r.Tags(done, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Tags = %v; want context.Canceled", err)
	}
	// Live, they answer.
	if res, err := r.Find(context.Background(), FindQuery{}); err != nil || res.Total == 0 {
		t.Errorf("Find = %+v, %v", res, err)
	}
}
