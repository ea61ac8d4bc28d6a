package indexer

import (
	"fmt"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// BenchmarkRenderIndex100k renders INDEX.md (budget 8,000) for one
// package of 100,000 documents in 50 × 40 folders: the "some titles"
// form (mostTitles, someCost, someEntries) over a large package, as
// every Sync of such a corpus runs it.
func BenchmarkRenderIndex100k(b *testing.B) {
	pkgs := []Package{{Alias: "big", Kind: project.KindGit, Source: "https://github.com/o/big", Rev: "abc"}}
	var docs []fileRecord
	for a := range 50 {
		for s := range 40 {
			for d := range 50 {
				docs = append(docs, fileRecord{
					Path:    fmt.Sprintf("area%02d/sub%02d/page%02d.md", a, s, d),
					Title:   fmt.Sprintf("Page %d of section %d in area %d", d, s, a),
					Summary: "A synthetic page used to measure INDEX.md's cost.",
					Lines:   10,
				})
			}
		}
	}
	files := map[string][]fileRecord{"big": docs}
	b.ReportAllocs()
	for b.Loop() {
		renderIndex(pkgs, files, 8000, "")
	}
}
