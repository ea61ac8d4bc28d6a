package indexer

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/testtmp"
)

// raceStride: under the race detector (testtmp.Race), where this test
// took 194 s of indexer's 479 s (round 15), every raceStride-th document
// of every corpus but the rust book is checked, the same check; the rust
// book (the <…> headings) is checked whole. The stride is odd: a KEP's
// files come in pairs in walk order (README.md, kep.yaml), and an even
// stride landed on the same file of most pairs (8 checked 5% of
// k8s-keps's chunks, 7 checks 15%).
const raceStride = 7

// corpusDir holds the shared benchmark corpora (one folder per package);
// the tests that read it skip when it is absent.
const corpusDir = "/work/shared/corpus"

// TestCorpusChunksInSections: over every document of the shared corpus
// (a sample under -race, raceStride),
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
		sampled := ""
		if testtmp.Race && pkg.Name() != "rust-book" {
			var some []string
			for i := 0; i < len(docs); i += raceStride {
				some = append(some, docs[i])
			}
			docs = some
			sampled = fmt.Sprintf(" (every %dth, under -race)", raceStride)
		}
		// The documents are checked on every core (each alone; the
		// results are put together in the documents' order below).
		results := make([]docSections, len(docs))
		var next atomic.Int64
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := int(next.Add(1) - 1); i < len(docs); i = int(next.Add(1) - 1) {
					results[i] = checkDocSections(dir, docs[i], pkg.Name() == "rust-book")
				}
			}()
		}
		wg.Wait()
		chunks, failed := 0, 0
		for i, r := range results {
			if r.err != nil {
				t.Fatal(r.err)
			}
			for _, m := range r.angleErrs {
				t.Errorf("%s/%s%s", pkg.Name(), docs[i], m)
			}
			for _, m := range r.failures {
				if failed++; failed <= 10 {
					t.Errorf("%s/%s: %s", pkg.Name(), docs[i], m)
				}
			}
			chunks += r.chunks
			angle += r.angle
			angleHeads += r.angleHeads
		}
		t.Logf("%s: %d documents%s, %d chunks with a trail, %d not inside their section", pkg.Name(), len(docs), sampled, chunks, failed)
	}
	t.Logf("rust-book: %d headings and %d chunk trails keep <…>", angleHeads, angle)
}

// docSections is what TestCorpusChunksInSections found in one document.
type docSections struct {
	err               error
	chunks            int      // chunks with a trail
	failures          []string // chunks not inside their section
	angle, angleHeads int      // trails and headings with <…>, when counted
	angleErrs         []string // headings whose trail text lost its <…>
}

// checkDocSections checks every chunk of the document p under dir against
// the section its trail opens (Doc.Section); withAngles counts (and checks)
// the headings and trails with <…> too.
func checkDocSections(dir, p string, withAngles bool) (r docSections) {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		r.err = err
		return r
	}
	if skipReason(int64(len(data)), data) != "" {
		return r
	}
	d := markdown.ParseFile(p, data)
	for _, h := range d.Outline() {
		if withAngles && strings.Contains(h.Text, "<") {
			r.angleHeads++
			if !strings.Contains(markdown.Plain(h.Text), "<") {
				r.angleErrs = append(r.angleErrs, fmt.Sprintf(":%d: heading %q has trail text %q, without its <…>", h.Line, h.Text, markdown.Plain(h.Text)))
			}
		}
	}
	// The chunks of a long section share its trail: Section is asked once
	// for each trail.
	type found struct {
		s  markdown.Section
		ok bool
	}
	sections := map[string]found{}
	for _, c := range parseDocument(p, data, nil).Chunks {
		if len(c.Trail) == 0 {
			continue
		}
		r.chunks++
		trail := strings.Join(c.Trail, markdown.TrailSep)
		if withAngles && strings.Contains(trail, "<") {
			r.angle++
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
		r.failures = append(r.failures, fmt.Sprintf("chunk lines %d-%d, trail %q: section %+v, found %v", c.Start, c.End, trail, s, ok))
	}
	return r
}
