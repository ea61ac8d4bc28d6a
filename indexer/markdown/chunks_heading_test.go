package markdown

import (
	"fmt"
	"strings"
	"testing"
)

// TestSplitPieceNeverEndsWithHeading: when a long section is split by
// size, a sub-heading (deeper than ChunkLevel) is never the last line of a
// piece: it opens the piece of the paragraph after it (set 20's misses 49,
// 50: "#### Alerting rules" was the tail of the piece before its text).
// The sizes are tried over a range so that some split falls right after
// the heading whatever the aim.
func TestSplitPieceNeverEndsWithHeading(t *testing.T) {
	t.Parallel()
	para := func(word string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s line %d of a paragraph long enough to count for something here.\n\n", word, i)
		}
		return b.String()
	}
	for before := 1; before <= 40; before++ {
		in := "## Rules\n\n" + para("rules", before) + "#### Alerting rules\n\n" + para("alerting", 30)
		d := Parse([]byte(in))
		for _, c := range d.Chunks() {
			if k := d.Body.Kinds[c.EndLine-1]; k == HeadingLine || k == HeadingCont {
				t.Fatalf("%d paragraphs before the sub-heading: chunk %d-%d %q ends with heading line %q", before, c.StartLine, c.EndLine, c.Trail, d.Lines[c.EndLine-1])
			}
		}
		checkChunksInSections(t, []byte(in))
	}
}
