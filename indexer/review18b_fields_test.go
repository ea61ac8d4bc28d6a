package indexer

import (
	"fmt"
	"slices"
	"testing"
)

// fieldsGraph is a graph of n documents in two packages, each with the
// same five front-matter keys and, when unique, a key of its own (a
// front matter of free-form keys: as many keys as documents).
func fieldsGraph(n int, unique bool) *graph {
	pkgs := []Package{{Alias: "a"}, {Alias: "b"}}
	files := map[string][]fileRecord{}
	for i := range n {
		meta := map[string]any{"status": "x", "owner": "y", "date": "2024-01-01", "kind": "k", "area": "z"}
		if unique {
			meta[fmt.Sprintf("key-%d", i)] = i
		}
		a := pkgs[i%2].Alias
		files[a] = append(files[a], fileRecord{Path: fmt.Sprintf("d%d.md", i), Title: "T", Meta: meta})
	}
	return buildGraph(pkgs, files)
}

// TestReviewFieldsScope: fields names each key once, with title, type
// and tags, and only the named packages' keys when some are named.
func TestReviewFieldsScope(t *testing.T) {
	g := fieldsGraph(4, true)
	all := g.fields(nil, nil)
	want := []string{"area", "date", "key-0", "key-1", "key-2", "key-3", "kind", "owner", "status", "tags", "title", "type"}
	if !slices.Equal(all, want) {
		t.Errorf("fields(nil) = %q, want %q", all, want)
	}
	if got := g.fields([]string{"b"}, nil); slices.Contains(got, "key-0") || !slices.Contains(got, "key-1") {
		t.Errorf("fields(b) = %q: key-0 is a's, key-1 b's", got)
	}
}

// BenchmarkFields20000: fields on 20,000 documents, five shared keys
// (shared) or a key of each document's own (unique).
func BenchmarkFields20000(b *testing.B) {
	for _, unique := range []bool{false, true} {
		g := fieldsGraph(20000, unique)
		for _, pk := range [][]string{nil, {"b"}} {
			b.Run(fmt.Sprintf("unique=%v/packages=%v", unique, pk), func(b *testing.B) {
				for b.Loop() {
					g.fields(pk, nil)
				}
			})
		}
	}
}
