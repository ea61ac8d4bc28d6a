package indexer

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/indexer/markdown"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestChunkingGolden parses every testdata/chunking/*.md and compares the
// document fields, the outline and the chunks (trail, line range, first
// and last line) with the .golden file next to it. Run with -update after
// an intended change and review the diff.
func TestChunkingGolden(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "chunking", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			p := parseMarkdown(filepath.Base(f), in, func(w string) { fmt.Fprintf(&b, "warning: %s\n", w) })
			fmt.Fprintf(&b, "title: %s\nsummary: %s\ntags: %s\ntype: %s\nlines: %d\n", p.Title, p.Summary, strings.Join(p.Tags, ", "), p.Type, p.Lines)
			for _, h := range markdown.Parse(in).Outline() {
				fmt.Fprintf(&b, "heading: %d %d %s\n", h.Line, h.Level, h.Text)
			}
			for i, c := range p.Chunks {
				lines := strings.Split(c.Text, "\n")
				fmt.Fprintf(&b, "chunk %d: lines %d-%d, %d bytes, trail %q, headings in text %d\n  first: %s\n  last:  %s\n",
					i, c.Start, c.End, len(c.Text), strings.Join(c.Trail, " > "), c.headsInText, markdown.Clip(lines[0], 80), markdown.Clip(lines[len(lines)-1], 80))
			}
			checkCoverage(t, string(in), p.Chunks)
			got := b.String()
			golden := strings.TrimSuffix(f, ".md") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestChunkingGolden -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the golden file:\n--- got\n%s--- want\n%s", f, got, want)
			}
		})
	}
}
