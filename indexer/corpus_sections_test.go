package indexer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/indexer/markdown"
)

// corpusDir holds the shared benchmark corpora (one folder per package);
// the tests that read it skip when it is absent.
const corpusDir = "/work/shared/corpus"

// TestCorpusChunksInSections: over every document of the shared corpus,
// every chunk the indexer stores opens, through get_section's matching
// (Doc.Section of its heading trail), a section that holds the chunk's
// lines. Before the document model cut chunks itself, 2,455 of 20,464
// chunks failed: near-empty sections joined to the next chunk or to the
// one before. And the rust book's headings such as "The `Option<T>`
// `match` Pattern" keep their <…> in trails (Plain dropped them).
func TestCorpusChunksInSections(t *testing.T) {
	t.Parallel()
	pkgs, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Skipf("no corpus: %v", err)
	}
	angle, angleHeads := 0, 0 // trails and headings with <…> in the rust book
	for _, pkg := range pkgs {
		if !pkg.IsDir() {
			continue
		}
		dir := filepath.Join(corpusDir, pkg.Name())
		docs, err := markdown.Walk(os.DirFS(dir), nil)
		if err != nil {
			t.Fatal(err)
		}
		chunks, failed := 0, 0
		for _, p := range docs {
			data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
			if err != nil {
				t.Fatal(err)
			}
			if skipReason(int64(len(data)), data) != "" {
				continue
			}
			d := markdown.ParseFile(p, data)
			for _, h := range d.Outline() {
				if pkg.Name() == "rust-book" && strings.Contains(h.Text, "<") {
					angleHeads++
					if !strings.Contains(markdown.Plain(h.Text), "<") {
						t.Errorf("%s/%s:%d: heading %q has trail text %q, without its <…>", pkg.Name(), p, h.Line, h.Text, markdown.Plain(h.Text))
					}
				}
			}
			// The chunks of a long section share its trail: Section is
			// asked once for each trail.
			type found struct {
				s  markdown.Section
				ok bool
			}
			sections := map[string]found{}
			for _, c := range parseDocument(p, data, nil).Chunks {
				if len(c.Trail) == 0 {
					continue
				}
				chunks++
				trail := strings.Join(c.Trail, markdown.TrailSep)
				if pkg.Name() == "rust-book" && strings.Contains(trail, "<") {
					angle++
				}
				f, seen := sections[trail]
				if !seen {
					f.s, _, f.ok = d.Section(trail)
					sections[trail] = f
				}
				s, ok := f.s, f.ok
				if ok && s.StartLine <= c.Start && c.End <= s.EndLine {
					continue
				}
				if failed++; failed <= 10 {
					t.Errorf("%s/%s: chunk lines %d-%d, trail %q: section %+v, found %v", pkg.Name(), p, c.Start, c.End, trail, s, ok)
				}
			}
		}
		t.Logf("%s: %d documents, %d chunks with a trail, %d not inside their section", pkg.Name(), len(docs), chunks, failed)
	}
	t.Logf("rust-book: %d headings and %d chunk trails keep <…>", angleHeads, angle)
}
