//go:build unix

package indexer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRed23IndexFilesFifo (red23): a fifo in place of one of the index's
// own files (a project unpacked from a tar archive keeps fifos) hung every
// search and every index update for ever: their reads waited for a writer
// (readJSON, readPart, versions.bin's and walks.bin's readers, the
// compare-before-write of atomicfile on meta.own.json). On main this test
// hangs. Now a search says which file is wrong (or takes a cache as
// absent), and after the next Sync (which replaces a fifo it needs, or
// rebuilds) a search answers. (A fifo at a file the Sync does not need,
// walks.bin or recent.json when nothing changed, or a part not read,
// stays until it is: its readers take it as absent or damaged.)
func TestRed23IndexFilesFifo(t *testing.T) {
	t.Parallel()
	names := []string{metaFile, ownFile, catalogFile, inlinksFile, versionsFile, walkRecordFile, recentFile, "part"}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := setupCorpus(t)
			ctx := context.Background()
			if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
				t.Fatal(err)
			}
			indexDir := filepath.Join(dir, "index")
			p := filepath.Join(indexDir, name)
			if name == "part" {
				parts, _ := filepath.Glob(filepath.Join(indexDir, catalogDir, "*"))
				if len(parts) == 0 {
					t.Fatal("no catalogue part")
				}
				p = parts[0]
			}
			_ = os.Remove(p)
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip("no fifo:", err)
			}
			search := func() ([]Hit, error) {
				r, err := OpenReader(dir)
				if err != nil {
					return nil, err
				}
				defer r.Close()
				return r.Search(ctx, Query{Text: "deploy", Limit: 5})
			}
			if _, err := search(); err != nil && !strings.Contains(err.Error(), p) {
				t.Errorf("search with a fifo at %s: %v, want an error naming it", name, err)
			}
			if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
				t.Fatalf("sync with a fifo at %s: %v", name, err)
			}
			hits, err := search()
			if err != nil || len(hits) == 0 {
				t.Errorf("search after sync (fifo was at %s): %d hits, %v", name, len(hits), err)
			}
		})
	}
}

// TestRed23RebuildRewritesInLinks (red23): a damaged inlinks.json made
// every search fail with "run `ctx index --rebuild` to recreate it", and
// the rebuild kept it (its link graph had not changed): the advice did
// not work. A rebuild writes it again.
func TestRed23RebuildRewritesInLinks(t *testing.T) {
	t.Parallel()
	dir := setupCorpus(t)
	ctx := context.Background()
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "index", inlinksFile)
	if err := os.WriteFile(p, []byte("{garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Sync(ctx, dir, testPackages(), Options{Rebuild: true}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Search(ctx, Query{Text: "deploy", Limit: 5}); err != nil {
		t.Errorf("search after ctx index --rebuild of a damaged %s: %v", inlinksFile, err)
	}
}
