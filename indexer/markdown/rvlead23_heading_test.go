package markdown

import (
	"strings"
	"testing"
)

// TestSplitPieceNeverEndsWithHeadingLongLine (review of aeca32b): a
// sub-heading followed by a paragraph over MaxChunkBytes is not left as
// the last line of the piece before that paragraph's lines.
func TestSplitPieceNeverEndsWithHeadingLongLine(t *testing.T) {
	t.Parallel()
	for _, next := range []string{
		strings.Repeat("x", MaxChunkBytes+10) + "\n",
		strings.Repeat("a line of a long paragraph that has no blank line in it at all.\n", 80),
	} {
		for before := 1; before <= 20; before++ {
			in := "## Rules\n\n" + strings.Repeat("rules paragraph long enough to count for something here.\n\n", before) + "#### Alerting rules\n\n" + next
			d := Parse([]byte(in))
			for _, c := range d.Chunks() {
				if k := d.Body.Kinds[c.EndLine-1]; k == HeadingLine || k == HeadingCont {
					t.Fatalf("next %d, %d paragraphs before: chunk %d-%d ends with heading line %q", len(next), before, c.StartLine, c.EndLine, d.Lines[c.EndLine-1])
				}
			}
			checkChunksInSections(t, []byte(in))
		}
	}
}
