package markdown

import (
	"strings"
	"testing"
)

// TestMDXHeadingJSX: in an .mdx file a heading's JSX elements are markup
// (Consul's "## Methods to Specify Namespace <EnterpriseAlert inline />"):
// the outline, the trails and Section see the heading's words only, and
// Section finds the section by them. In .md, "<Foo>" and "Option<T>" are
// text and stay.
func TestMDXHeadingJSX(t *testing.T) {
	t.Parallel()
	src := "# Namespaces <EnterpriseAlert />\n\nIntro.\n\n" +
		"## Methods to Specify Namespace <EnterpriseAlert inline />\n\nBody one.\n\n" +
		"## Status <Badge theme=\"beta\">beta</Badge> and `<Code/>`\n\nBody two.\n\n" +
		"## Option<T> <Foo>\n\nBody three.\n"
	mdx := ParseFile("docs/ns.mdx", []byte(src))
	var got []string
	for _, h := range mdx.Outline() {
		got = append(got, h.Text)
	}
	want := []string{"Namespaces", "Methods to Specify Namespace", "Status beta and `<Code/>`", "Option"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf(".mdx outline = %q, want %q", got, want)
	}
	trails := mdx.Trails()
	if len(trails) < 2 || strings.Join(trails[1], TrailSep) != "Namespaces > Methods to Specify Namespace" {
		t.Errorf(".mdx trails = %q", trails)
	}
	s, _, ok := mdx.Section("Namespaces > Methods to Specify Namespace")
	if !ok || s.StartLine != 5 {
		t.Errorf(".mdx Section by trail = %+v, %v; want the heading on line 5", s, ok)
	}
	md := ParseFile("docs/ns.md", []byte(src))
	got = got[:0]
	for _, h := range md.Outline() {
		got = append(got, Plain(h.Text))
	}
	want = []string{"Namespaces <EnterpriseAlert />", "Methods to Specify Namespace <EnterpriseAlert inline />", "Status <Badge theme=\"beta\">beta</Badge> and `<Code/>`", "Option<T> <Foo>"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf(".md outline = %q, want %q", got, want)
	}
}

// TestMDXHeadingJSXAttributes: a JSX tag whose attributes hold ">" (in a
// string, in an expression, a tag inside an expression) is dropped whole
// from an .mdx heading; in .md, "Option<T>" and "a > b" stay text. An
// unclosed tag is text (MDX would not compile it).
func TestMDXHeadingJSXAttributes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{`Title <Badge text="a > b" />`, "Title"},
		{`Limits <Tooltip content={x > 1 ? 'many' : "one"}>hover</Tooltip>`, "Limits hover"},
		{`Icon <Card icon={<Icon name="a>b" />} title='x > y'/> end`, "Icon end"},
		{"Nested <A b={{c: \"}\", d: `>`}}>kids</A>", "Nested kids"},
		{`Open <Badge text="never closed`, `Open <Badge text="never closed`},
		{`a > b <X/> c`, "a > b c"},
	} {
		d := ParseFile("p.mdx", []byte("## "+c.in+"\n"))
		if got := d.Outline()[0].Text; got != c.want {
			t.Errorf(".mdx heading %q = %q, want %q", c.in, got, c.want)
		}
	}
	d := ParseFile("p.md", []byte("## Option<T> and a > b <Badge text=\"x > y\" />\n"))
	if got := d.Outline()[0].Text; got != `Option<T> and a > b <Badge text="x > y" />` {
		t.Errorf(".md heading = %q, want it as written", got)
	}
}

// TestCodeSpanLinearWork: the code-span scanners' steps (codeWork) stay
// within a constant per byte of a heading, for the hostile one of
// review14b R3: an .mdx heading with a JSX tag, then unclosed backtick
// runs of 1, 2, …, k backticks each followed by a letter, then a "<" that
// is text (so Plain scans the spans too, on the trail). Not parallel: it
// sets codeWork.
func TestCodeSpanLinearWork(t *testing.T) {
	for _, size := range []int{1 << 16, 1 << 18} {
		var b strings.Builder
		b.WriteString("# Top\n\n## <X/> ")
		for k := 1; b.Len() < size; k++ {
			b.WriteString(strings.Repeat("`", k))
			b.WriteByte('x')
		}
		b.WriteString(" 1<2\n\nBody.\n")
		src := b.String()
		w := 0
		codeWork = &w
		d := ParseFile("docs/h.mdx", []byte(src))
		trails := d.Trails()
		codeWork = nil
		if len(trails) != 2 || !strings.HasSuffix(trails[1][1], "…") {
			t.Fatalf("%d bytes: trails %d, want the heading's, clipped", len(src), len(trails))
		}
		if w > 4*len(src) {
			t.Errorf("%d bytes: the code-span scanners took %d steps (%.1f a byte), want at most %d", len(src), w, float64(w)/float64(len(src)), 4*len(src))
		}
	}
}

// TestHighlightLinearWork: Highlight finds each mark's code span from a
// cursor (the marks are in order), so its steps (codeWork: the spans
// scanned and those passed per mark) stay within a constant per byte for
// a line of many code spans and as many marks; a rescan of the spans
// from the first per mark was quadratic. Not parallel: it sets codeWork.
func TestHighlightLinearWork(t *testing.T) {
	for _, n := range []int{1 << 10, 1 << 13} {
		var b strings.Builder
		var marks [][2]int
		for i := 0; i < n; i++ {
			b.WriteString("`c` ")
			at := b.Len()
			b.WriteString("word ")
			marks = append(marks, [2]int{at, at + 4})
		}
		src := b.String()
		w := 0
		codeWork = &w
		out := Highlight(src, 0, marks)
		codeWork = nil
		if strings.Count(out, "**word**") != n {
			t.Fatalf("%d marks: %d marked", n, strings.Count(out, "**word**"))
		}
		if w > 4*len(src) {
			t.Errorf("%d marks over %d bytes: %d steps (%.1f a byte), want at most %d", n, len(src), w, float64(w)/float64(len(src)), 4*len(src))
		}
	}
}
