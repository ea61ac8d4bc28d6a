package markdown

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestTrailsUnique: a heading whose trail an earlier heading has gets
// " (2)", " (3)", … (the first number that is free), its children carry
// the numbered text, and Section finds each heading by its trail.
func TestTrailsUnique(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	for _, h := range []string{"# A", "## Foo", "### Bar", "## Foo", "### Bar", "## foo", "## Foo (2)", "# A", "## _Foo_"} {
		in.WriteString(h + "\nwith a line of text long enough for a chunk of its own\n")
	}
	d := Parse([]byte(in.String()))
	want := [][]string{
		{"A"}, {"A", "Foo"}, {"A", "Foo", "Bar"},
		{"A", "Foo (2)"}, {"A", "Foo (2)", "Bar"},
		{"A", "foo (3)"}, {"A", "Foo (2) (2)"},
		{"A (2)"}, {"A (2)", "_Foo_"},
	}
	got := d.Trails()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Trails =\n%q\nwant\n%q", got, want)
	}
	hs := d.Outline()
	for i, tr := range got {
		s, _, ok := d.Section(strings.Join(tr, TrailSep))
		if !ok || s.StartLine != hs[i].Line {
			t.Errorf("Section(%q) = %+v, %v; want the heading on line %d", strings.Join(tr, TrailSep), s, ok, hs[i].Line)
		}
	}
}

// TestTrailsClipped: a heading's text in a trail is at most
// MaxHeadingBytes (and the mark), since every chunk under it stores the
// trail and every hit shows it; two long headings that differ only past
// the cut stay apart, and Section finds each by its trail.
func TestTrailsClipped(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 100_000)
	in := "# " + long + "one\n\ntext of the first section, long enough for a chunk of its own\n\n" +
		"## " + long + "\n\ntext under it\n\n# " + long + "two\n\ntext of the second one\n"
	d := Parse([]byte(in))
	got := d.Trails()
	if len(got) != 3 {
		t.Fatalf("%d trails, want 3", len(got))
	}
	for i, tr := range got {
		for _, h := range tr {
			if len(h) > MaxHeadingBytes+len(" (2)")+len("…") {
				t.Errorf("trail %d: a heading of %d bytes", i, len(h))
			}
		}
		s, _, ok := d.Section(strings.Join(tr, TrailSep))
		if hs := d.Outline(); !ok || s.Heading != hs[i].Text || s.StartLine > hs[i].Line || s.EndLine < hs[i].Line {
			t.Errorf("Section(trail %d): lines %d-%d, found %v; want the heading on line %d", i, s.StartLine, s.EndLine, ok, hs[i].Line)
		}
	}
	if got[0][0] == got[2][0] {
		t.Errorf("two headings that differ past the cut have one trail (%d bytes)", len(got[0][0]))
	}
	for _, c := range d.Chunks() {
		if n := len(strings.Join(c.Trail, TrailSep)); n > 3*(MaxHeadingBytes+10) {
			t.Errorf("chunk at line %d: a trail of %d bytes", c.StartLine, n)
		}
	}
}

// TestSectionTakesInItsChunks: the section of a heading takes in the
// near-empty headings whose text joined its chunk, and a near-empty last
// section that joined it, so a hit's lines are inside what its trail opens.
func TestSectionTakesInItsChunks(t *testing.T) {
	t.Parallel()
	const long = "text that is long enough to make a section of its own, and more"
	in := "# Title\n\n## Summary\n\n" + long + "\n\n## Goals\n\n" + long + "\n\n## Empty\n\n<!-- to do -->\n\n## Last\n\n" + long + "\n\n## Tail\n\nshort\n"
	d := Parse([]byte(in))
	cs := d.Chunks()
	var got []string
	for _, c := range cs {
		got = append(got, fmt.Sprintf("%s %d-%d", strings.Join(c.Trail, TrailSep), c.StartLine, c.EndLine))
	}
	want := []string{"Title > Summary 1-5", "Title > Goals 7-9", "Title > Last 11-21"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("chunks = %q, want %q", got, want)
	}
	for q, lines := range map[string][2]int{
		"Title > Summary": {1, 5},   // from the near-empty Title
		"Title > Goals":   {7, 9},   // as it is
		"Title > Last":    {11, 21}, // from the near-empty Empty, to the end with the short Tail
		"Title > Empty":   {11, 13}, // a heading no chunk is named for: its own lines
		"Title":           {1, 21},
	} {
		s, _, ok := d.Section(q)
		if !ok || s.StartLine != lines[0] || s.EndLine != lines[1] {
			t.Errorf("Section(%q) = %+v, %v; want lines %d-%d", q, s, ok, lines[0], lines[1])
		}
	}
}

// checkChunksInSections checks the document model's promise: the chunks
// hold every non-blank body line once, in order, and each chunk's trail
// opens (Section) the heading it is named for, in a section that holds
// the chunk.
func checkChunksInSections(t *testing.T, content []byte) {
	t.Helper()
	d := Parse(content)
	hs := d.Outline()
	trails := d.Trails()
	next := d.FrontMatter.End + 1 // the first line no chunk has taken
	for _, c := range d.Chunks() {
		if c.StartLine < next || c.EndLine < c.StartLine || c.EndLine > len(d.Lines) {
			t.Fatalf("chunk lines %d-%d: out of order or range (next line %d, %d lines)\n%q", c.StartLine, c.EndLine, next, len(d.Lines), content)
		}
		for n := next; n < c.StartLine; n++ {
			if strings.TrimSpace(d.Lines[n-1]) != "" {
				t.Fatalf("line %d (%q) is in no chunk\n%q", n, d.Lines[n-1], content)
			}
		}
		for _, n := range []int{c.StartLine, c.EndLine} {
			if strings.TrimSpace(d.Lines[n-1]) == "" {
				t.Fatalf("chunk lines %d-%d start or end with a blank line\n%q", c.StartLine, c.EndLine, content)
			}
		}
		next = c.EndLine + 1
		if c.Heading < 0 {
			if c.Trail != nil {
				t.Fatalf("chunk %d-%d has no heading but trail %q", c.StartLine, c.EndLine, c.Trail)
			}
			continue
		}
		if !reflect.DeepEqual(c.Trail, trails[c.Heading]) {
			t.Fatalf("chunk %d-%d: trail %q, its heading's is %q", c.StartLine, c.EndLine, c.Trail, trails[c.Heading])
		}
		trail := strings.Join(c.Trail, TrailSep)
		s, _, ok := d.Section(trail)
		if !ok || s.Heading != hs[c.Heading].Text || s.StartLine > c.StartLine || s.EndLine < c.EndLine {
			t.Fatalf("chunk lines %d-%d, trail %q (heading %q, line %d): Section = %+v, %v\n%q",
				c.StartLine, c.EndLine, trail, hs[c.Heading].Text, hs[c.Heading].Line, s, ok, content)
		}
	}
	for n := next; n <= len(d.Lines); n++ {
		if n > d.FrontMatter.End && strings.TrimSpace(d.Lines[n-1]) != "" {
			t.Fatalf("line %d (%q) is in no chunk\n%q", n, d.Lines[n-1], content)
		}
	}
}

// genDoc builds a random document from the pieces that shape chunks and
// trails: front matter, ATX and setext headings with texts that repeat
// (and hold <T>, ">", links, emphasis, HTML), fences with headings inside,
// HTML comments, short and long paragraphs, blank lines.
func genDoc(rng *rand.Rand) string {
	texts := []string{"Install", "Usage", "The `Option<T>` Pattern", "a > b", "[Link](x)", "**Bold** one", `<a name="x"></a>Anchor`, "Vec<u8>", "Foo (2)", "Install", "Usage", "", "_Install_"}
	var b strings.Builder
	if rng.Intn(4) == 0 {
		b.WriteString("---\ntitle: x\n---\n")
	}
	for n := rng.Intn(30); n > 0; n-- {
		switch rng.Intn(9) {
		case 0, 1:
			fmt.Fprintf(&b, "%s %s\n", strings.Repeat("#", 1+rng.Intn(4)), texts[rng.Intn(len(texts))])
		case 2:
			fmt.Fprintf(&b, "%s\n%s\n", texts[rng.Intn(len(texts))], []string{"===", "---"}[rng.Intn(2)])
		case 3:
			b.WriteString("```\n# not a heading\ncode\n```\n")
		case 4:
			b.WriteString("<!--\n## commented\n" + strings.Repeat("template text\n", rng.Intn(400)) + "-->\n")
		case 5:
			b.WriteString("short\n")
		case 6:
			b.WriteString(strings.Repeat("a paragraph of words that carries some weight ", 1+rng.Intn(150)) + "\n")
		default:
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestChunksInSectionsGenerated checks checkChunksInSections on 3,000
// random documents.
func TestChunksInSectionsGenerated(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(14))
	for range 3000 {
		checkChunksInSections(t, []byte(genDoc(rng)))
	}
}

func FuzzChunksInSections(f *testing.F) {
	rng := rand.New(rand.NewSource(1))
	for range 20 {
		f.Add([]byte(genDoc(rng)))
	}
	f.Add([]byte("# A\n\n## Foo\n\nx\n\n## Foo\n\ny\n"))
	f.Add([]byte("Title\n=====\n\ntext\n\n```\n# x\n```\n\nSub\n---\n"))
	f.Fuzz(func(t *testing.T, content []byte) {
		checkChunksInSections(t, content)
	})
}

// TestTrailKeysAreTheTrailsKeys: trails keys a heading from its enclosing
// heading's key (not keying the ancestors again); each key is still
// trailKey of the heading's whole trail, with numbered duplicates, texts
// holding the separator's ">" and levels that skip.
func TestTrailKeysAreTheTrailsKeys(t *testing.T) {
	src := "# A > B\n## C\n### D\n## C\n### D\n#### E > F\n# A\n## C\n##### Deep\n## *C*\n# A > B\n## C\n# P > Q\n## R\n### S1\n### S2\n"
	for _, name := range []string{"x.md", "x.yaml"} {
		data := src
		if name == "x.yaml" {
			data = "a: 1\nb:\n  c: 2\na2: 3\n"
		}
		d := ParseFile(name, []byte(data))
		trails, keys := d.trails()
		if len(trails) == 0 {
			t.Fatalf("%s: no headings", name)
		}
		seen := map[string]bool{}
		for i := range trails {
			if want := trailKey(trails[i]); !slices.Equal(keys[i], want) {
				t.Errorf("%s: heading %d, trail %q: key %q, want %q", name, i, trails[i], keys[i], want)
			}
			k := strings.Join(keys[i], "\x00")
			if seen[k] {
				t.Errorf("%s: trail %q keyed twice", name, trails[i])
			}
			seen[k] = true
		}
	}
}
