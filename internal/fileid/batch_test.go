package fileid

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestBatchSharedByGoroutines: a Batch run by several goroutines at once,
// and waited for by another, gives every file Tree.Lstat's three results,
// in rels' order (missing files, a folder, a refused path among them),
// whichever goroutine stat'ed it; an empty batch waits for nothing.
func TestBatchSharedByGoroutines(t *testing.T) {
	dir := t.TempDir()
	var rels []string
	for i := range 1000 {
		rel := fmt.Sprintf("d%d/f%04d.md", i%9, i)
		rels = append(rels, rel)
		if i%31 == 0 {
			continue // missing
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, i), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rels = append(rels, "d1", "", "../x.md", ".")
	for _, helpers := range []int{0, 3} {
		b := NewBatch(dir, rels)
		var wg sync.WaitGroup
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b.Run()
			}()
		}
		got := b.Wait(helpers)
		wg.Wait()
		tr := NewTree(dir)
		for i, rel := range rels {
			st, regular, err := tr.Lstat(rel)
			g := got[i]
			if g.St != st || g.Regular != regular || (g.Err == nil) != (err == nil) || errors.Is(g.Err, fs.ErrNotExist) != errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("helpers %d, %q: batch %+v; Lstat %+v %v %v", helpers, rel, g, st, regular, err)
			}
		}
		tr.Close()
	}
	if got := NewBatch(dir, nil).Wait(2); len(got) != 0 {
		t.Fatalf("an empty batch: %v", got)
	}
}

// TestBatchStop: a stopped batch claims no more runs: nothing is stat'ed
// after Stop.
func TestBatchStop(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	rels := make([]string, 3*batchRun)
	for i := range rels {
		rels[i] = "a.md"
	}
	b := NewBatch(dir, rels)
	b.Stop()
	b.Run()
	for i, o := range b.out {
		if o != (Lstated{}) {
			t.Fatalf("file %d stat'ed after Stop: %+v", i, o)
		}
	}
}
