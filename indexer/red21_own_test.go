package indexer

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/internal/fileid"
)

// TestOwnProofIsThisMachines: after a Sync, ownFile proves meta.json (so
// a search need not read git's index); a copy of the index (what a clone
// of a commit that holds it is: new inodes and ctimes) carries the proof
// but is not proven by it, and neither is meta.json once it changes.
func TestOwnProofIsThisMachines(t *testing.T) {
	t.Parallel()
	dir := setupCorpus(t)
	if _, err := Sync(context.Background(), dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	indexDir := filepath.Join(dir, "index")
	fi, err := os.Stat(filepath.Join(indexDir, metaFile))
	if err != nil {
		t.Fatal(err)
	}
	if fileid.Of(fi).CTime == 0 {
		t.Skip("no ctime on this system: nothing is proven")
	}
	if !provenOwn(indexDir, fi, fileid.Stamp{}, true) {
		t.Fatal("meta.json after a Sync is not proven by " + ownFile)
	}
	copyDir := t.TempDir()
	for _, name := range []string{metaFile, ownFile} {
		b, err := os.ReadFile(filepath.Join(indexDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(copyDir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfi, err := os.Stat(filepath.Join(copyDir, metaFile))
	if err != nil {
		t.Fatal(err)
	}
	if provenOwn(copyDir, cfi, fileid.Stamp{}, true) {
		t.Error("a copied meta.json is proven by the copied " + ownFile)
	}
	// A link where the proof is (a commit may hold one) proves nothing.
	if err := os.Remove(filepath.Join(copyDir, ownFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(indexDir, ownFile), filepath.Join(copyDir, ownFile)); err != nil {
		t.Fatal(err)
	}
	if provenOwn(copyDir, cfi, fileid.Stamp{}, true) || provenOwn(copyDir, fi, fileid.Stamp{}, true) {
		t.Error("a link to the proof proves")
	}
	// meta.json rewritten: not proven until the next Sync records it.
	b, _ := os.ReadFile(filepath.Join(indexDir, metaFile))
	if err := os.WriteFile(filepath.Join(indexDir, metaFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err = os.Stat(filepath.Join(indexDir, metaFile)); err != nil {
		t.Fatal(err)
	}
	if provenOwn(indexDir, fi, fileid.Stamp{}, true) {
		t.Error("a rewritten meta.json is proven")
	}
	if _, err := Sync(context.Background(), dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	if fi, err = os.Stat(filepath.Join(indexDir, metaFile)); err != nil {
		t.Fatal(err)
	}
	if !provenOwn(indexDir, fi, fileid.Stamp{}, true) {
		t.Error("the next Sync did not record meta.json")
	}
}
