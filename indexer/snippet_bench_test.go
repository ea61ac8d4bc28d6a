package indexer

import (
	"strings"
	"testing"
)

// BenchmarkSnippet is one snippet (the snippeter made once, as a search
// makes it once for its hits) of a long page (8 × a tldr-like page with
// code spans, headings and emphasis) for a two-word query.
func BenchmarkSnippet(b *testing.B) {
	page := "# tar\n\n> Archiving utility.\n> Often combined with a compression method, such as `gzip` or `bzip2`.\n\n" +
		"- [c]reate an archive and write it to a [f]ile:\n\n`tar cf {{path/to/target.tar}} {{path/to/file1 path/to/file2 ...}}`\n\n" +
		"- [c]reate a g[z]ipped archive and write it to a [f]ile:\n\n`tar czf {{path/to/target.tar.gz}} {{path/to/file1 path/to/file2 ...}}`\n\n" +
		"## Extract\n\n- E[x]tract a (compressed) archive **file** into the current directory [v]erbosely:\n\n`tar xvf {{path/to/source.tar[.gz|.bz2|.xz]}}`\n\n" +
		"- E[x]tract an archive __into__ a target directory:\n\n`tar xf {{path/to/source.tar}} --directory {{path/to/directory}}`\n\n"
	text := strings.Repeat(page, 8)
	a := newMapping().AnalyzerNamed("en")
	s := newSnippeter(a, queryTerms(a, "extract archive"))
	body := []byte(text)
	b.ReportAllocs()
	for b.Loop() {
		s.snippet(body)
	}
}
