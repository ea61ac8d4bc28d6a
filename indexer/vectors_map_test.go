package indexer

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestVectorsReplacedWhileMapped: a vectors.bin replaced by rename (as
// EmbedIndex writes it) while a search holds the set loaded from the old
// one leaves that set whole (the mapping keeps the old file), and the
// next load reads the new file.
func TestVectorsReplacedWhileMapped(t *testing.T) {
	dir := t.TempDir()
	write := func(v *vectorSet) {
		data, err := v.marshal()
		if err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(dir, "vectors.tmp")
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, vectorsFile)); err != nil {
			t.Fatal(err)
		}
	}
	first, raw := synthVectors(300, 64, 5)
	write(first)
	old, err := loadVectors(dir)
	if err != nil || old == nil {
		t.Fatal(old, err)
	}
	want := old.nearest(raw[7], 5, nil)
	second, _ := synthVectors(300, 64, 6)
	write(second)
	if !slices.Equal(old.vecs, first.vecs) {
		t.Fatal("the set loaded before the rename changed")
	}
	if got := old.nearest(raw[7], 5, nil); !slices.Equal(got, want) || got[0].i != 7 {
		t.Fatalf("nearest after the rename: %v, before: %v", got, want)
	}
	cur, err := loadVectors(dir)
	if err != nil || cur == nil {
		t.Fatal(cur, err)
	}
	if !slices.Equal(cur.vecs, second.vecs) || slices.Equal(cur.vecs, first.vecs) {
		t.Fatal("the load after the rename did not read the new file")
	}
}
