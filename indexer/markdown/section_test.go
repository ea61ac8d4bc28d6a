package markdown

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// sectionBenchPage is a page shaped like a long KEP README: 200 headings
// over levels 1–4, some texts repeated (numbered trails), each with a
// paragraph, some near-empty.
func sectionBenchPage() []byte {
	var b strings.Builder
	b.WriteString("# Title\n\n")
	texts := []string{"Summary", "Motivation", "Goals", "Non-Goals", "Proposal", "`Option<T>` Notes", "Design Details", "Test Plan", "Alternatives"}
	for i := range 200 {
		level := 2 + i%3
		fmt.Fprintf(&b, "%s %s\n\n", strings.Repeat("#", level), texts[i%len(texts)])
		if i%5 != 0 {
			b.WriteString(strings.Repeat("words of a paragraph that carries some weight ", 1+i%7) + "\n\n")
		}
	}
	return []byte(b.String())
}

// BenchmarkSection: Section of every heading trail of one page, as a
// reader of many hits in one document asks (an op is all 201 trails).
func BenchmarkSection(b *testing.B) {
	d := Parse(sectionBenchPage())
	var trails []string
	for _, t := range d.Trails() {
		trails = append(trails, strings.Join(t, TrailSep))
	}
	b.Run("every-trail", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, t := range trails {
				if _, _, ok := d.Section(t); !ok {
					b.Fatal(t)
				}
			}
		}
	})
	// A get_section call: the page parsed, one section found.
	data := sectionBenchPage()
	b.Run("parse-and-one", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, ok := Parse(data).Section(trails[len(trails)/2]); !ok {
				b.Fatal()
			}
		}
	})
}

// sectionRef is Section as it was before sectionMemo (a97a47b): every
// call derives the trails, the chunks and each heading's texts again. The
// tests below hold Section to its answers.
func (d Doc) sectionRef(heading string) (Section, []Heading, bool) {
	matches := func(t, want string) bool {
		return normHeading(t) == want || normHeading(Plain(t)) == want
	}
	hs := d.Outline()
	want := normHeading(heading)
	wantParts := trailKey([]string{heading})
	trails, keys := d.trails()
	find := func(match func(i int) bool) int {
		for i := range hs {
			if match(i) {
				return i
			}
		}
		return -1
	}
	idx := find(func(i int) bool { return slices.Equal(keys[i], wantParts) })
	byTrail := idx >= 0
	if idx < 0 {
		idx = find(func(i int) bool { return matches(hs[i].Text, want) })
	}
	if idx < 0 {
		idx = find(func(i int) bool { id := d.headingID(hs[i]); return id != "" && normHeading(id) == want })
	}
	if idx < 0 && len(wantParts) > 1 {
		idx = find(func(i int) bool {
			t := keys[i]
			return len(t) >= len(wantParts) && slices.Equal(t[len(t)-len(wantParts):], wantParts)
		})
		if idx < 0 {
			last := wantParts[len(wantParts)-1]
			idx = find(func(i int) bool { return matches(hs[i].Text, last) })
		}
	}
	if idx < 0 {
		return Section{}, hs, false
	}
	s := d.extent(hs, idx)
	if byTrail && hs[idx].Level <= ChunkLevel {
		for _, c := range d.chunksWith(trails) {
			if c.Heading == idx {
				s.StartLine, s.EndLine = min(s.StartLine, c.StartLine), max(s.EndLine, c.EndLine)
			}
		}
	}
	return s, hs, true
}

// sectionQueries is what a caller asks a document's Section for: every
// heading's trail, and, for every every-th heading, its last two texts,
// its text as written and as Plain text, its heading ID (and as "#id"),
// the text upper-cased; and names no heading has.
func sectionQueries(d Doc, every int) []string {
	qs := []string{"", "no such heading", "A > no such heading", ">", "Install > Usage"}
	hs := d.Outline()
	for i, t := range d.Trails() {
		qs = append(qs, strings.Join(t, TrailSep))
		if i%every != 0 {
			continue
		}
		h := hs[i]
		qs = append(qs, strings.Join(t[max(0, len(t)-2):], " > "),
			h.Text, Plain(h.Text), strings.ToUpper(h.Text), "## "+h.Text)
		if id := d.headingID(h); id != "" {
			qs = append(qs, id, "#"+id)
		}
	}
	return qs
}

// checkSectionsAsBefore fails when Section answers any of sectionQueries
// (every as there) other than sectionRef does, on the Doc (its memo shared by the calls)
// and, for every fifth query, on a Doc without one (made per call).
func checkSectionsAsBefore(t *testing.T, name string, d Doc, every int) {
	t.Helper()
	bare := d
	bare.memo = nil
	for i, q := range sectionQueries(d, every) {
		ws, whs, wok := d.sectionRef(q)
		docs := []Doc{d}
		if i%5 == 0 {
			docs = append(docs, bare)
		}
		for _, doc := range docs {
			s, hs, ok := doc.Section(q)
			if s != ws || ok != wok || !slices.Equal(hs, whs) {
				t.Fatalf("%s: Section(%q) = %+v, %v; before it was %+v, %v", name, q, s, ok, ws, wok)
			}
		}
	}
}

// TestSectionAsBefore: on 100 random documents, on every format's test
// page and on the shared corpus's pages with the most headings, Section
// answers every query as it did before its lookups were built once per
// Doc (sectionRef).
func TestSectionAsBefore(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(30))
	for i := range 100 {
		checkSectionsAsBefore(t, fmt.Sprint("random ", i), Parse([]byte(genDoc(rng))), 1)
	}
	idDoc := "# Guide {#Guide_ID}\n\ntext\n\n## Usage {#use}\n\nmore text\n\nSetext {#setext}\n---\n\n## Usage\n\n### Deep {/*deep*/}\n"
	checkSectionsAsBefore(t, "ids.md", Parse([]byte(idDoc)), 1)
	checkSectionsAsBefore(t, "x.mdx", ParseFile("x.mdx", []byte("# A <Alert />\n\n## B <X inline/>\n\ntext\n")), 1)
	checkSectionsAsBefore(t, "x.rst", ParseFile("x.rst", []byte("Title\n=====\n\nSub\n---\n\ntext\n\nSub\n---\n")), 1)
	checkSectionsAsBefore(t, "x.yaml", ParseFile("x.yaml", []byte("a: 1\nb:\n  c: 2\na2: 3\n")), 1)
	checkSectionsAsBefore(t, "x.adoc", ParseFile("x.adoc", []byte("= T\n\n== A\n\ntext\n\n=== B\n\n== A\n")), 1)

	// The shared corpus's pages with the most headings (skipped when
	// absent, as the indexer's corpus tests are): a KEP of 176 headings
	// and a rust book chapter of 18; every trail, and every fourth
	// heading's other names (sectionRef is quadratic: 1 s of CPU for three
	// KEPs).
	const corpus = "/work/shared/corpus"
	for _, p := range []string{
		"k8s-keps/sig-api-machinery/5073-declarative-validation-with-validation-gen/README.md",
		"rust-book/ch19-03-pattern-syntax.md",
	} {
		data, err := os.ReadFile(filepath.Join(corpus, filepath.FromSlash(p)))
		if errors.Is(err, fs.ErrNotExist) {
			t.Logf("%s: not in the corpus", p)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		checkSectionsAsBefore(t, p, ParseFile(p, data), 4)
	}
}

// TestSectionConcurrentReaders: goroutines that share one Doc build its
// memo at once and all get the answers
// sectionRef gives; run it with -race.
func TestSectionConcurrentReaders(t *testing.T) {
	t.Parallel()
	d := Parse(sectionBenchPage())
	qs := sectionQueries(d, 4)
	want := make([]Section, len(qs))
	for i, q := range qs {
		want[i], _, _ = d.sectionRef(q)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			for j := range qs {
				i := (j + g*len(qs)/8) % len(qs) // each starts elsewhere
				if s, _, _ := d.Section(qs[i]); s != want[i] {
					errs <- fmt.Sprintf("Section(%q) = %+v, want %+v", qs[i], s, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestSectionCopyChanged: a copy of a Doc whose content was reassigned
// after a Section call (against Doc's rule) is not answered from the
// memo of the Doc it was copied from: no stale answer, no panic from a
// memo built half for each.
func TestSectionCopyChanged(t *testing.T) {
	a := Parse([]byte("# Alpha\n\ntext\n\n## Beta\n\nmore\n"))
	b := Parse([]byte("# Gamma\n\n## Delta\n\nx\n\n## Beta\n\ny\n"))
	a.Section("Alpha")
	c := a
	c.Lines, c.Body = b.Lines, b.Body
	checkSectionsAsBefore(t, "reassigned copy", c, 1)

	d := Parse([]byte("# A\n\n## B\n\n### C\n\ntext\n"))
	d.Section("A > B > C") // the trail keys only
	d2 := Parse([]byte("# A\n\ntext\n"))
	d.Lines, d.Body = d2.Lines, d2.Body
	checkSectionsAsBefore(t, "shrunk", d, 1)

	e := Parse([]byte("# A\n\ntext\n\n# B\n\nmore\n"))
	e.Section("A")
	e.Body.Headings = append(e.Body.Headings, Heading{Level: 1, Text: "C", Line: 6})
	checkSectionsAsBefore(t, "heading appended", e, 1)

	g := Parse([]byte("# Guide {#Guide_ID}\n\ntext\n"))
	g.Section("guide_id")
	g.Format = FormatText
	checkSectionsAsBefore(t, "format changed", g, 1)
}

// FuzzSectionAsBefore: Section answers every query of any page, in every
// format, as sectionRef (the code before the memo) does.
func FuzzSectionAsBefore(f *testing.F) {
	f.Add("# Guide {#Guide_ID}\n\ntext\n\n## Usage {#use}\n\nmore\n\nSetext {#My_Setext}\n---\n\n## Usage\n\n### Deep {/*deep*/}\n", "my_setext")
	f.Add("# A <Alert />\n\n## B <X inline/>\n\ntext\n", "B")
	f.Add("Title\n=====\n\nSub\n---\n\ntext\n\nSub\n---\n", "Title > Sub (2)")
	f.Add("a: 1\nb:\n  c: 2\na2: 3\n", "b")
	f.Add("= T\n\n== A\n\ntext\n\n=== B\n\n== A\n", "A > B")
	f.Fuzz(func(t *testing.T, s, q string) {
		for _, name := range []string{"f.md", "f.mdx", "f.rst", "f.adoc", "f.yaml", "f.toml"} {
			d := ParseFile(name, []byte(s))
			for _, q := range append(sectionQueries(d, 1), q) {
				ws, whs, wok := d.sectionRef(q)
				got, hs, ok := d.Section(q)
				if got != ws || ok != wok || !reflect.DeepEqual(hs, whs) {
					t.Fatalf("%s: Section(%q) = %+v %v; before %+v %v", name, q, got, ok, ws, wok)
				}
			}
		}
	})
}
