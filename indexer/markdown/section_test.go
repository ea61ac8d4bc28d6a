package markdown

import (
	"fmt"
	"strings"
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
