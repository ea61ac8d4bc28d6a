package surveyprompt

import (
	"strings"
	"testing"
)

// TestClipKeepsCombiningMarks: a combining mark takes no column and stays
// with the character before it. Counted as a column, "é" written as e and
// U+0301 was clipped at half the room, and the cut could fall between the
// e and its accent, showing "e…" (review19d).
func TestClipKeepsCombiningMarks(t *testing.T) {
	t.Parallel()
	e := "e\u0301" // é, decomposed
	s := strings.Repeat(e, 80)
	if got := textWidth(s); got != 80 {
		t.Errorf("textWidth(80 × e+U+0301) = %d, want 80", got)
	}
	got := clip(s, 10)
	if want := strings.Repeat(e, 9) + "…"; got != want {
		t.Errorf("clip(…, 10) = %+q, want %+q", got, want)
	}
	// Wide characters take two columns; a cut never splits a rune.
	if got, want := clip("日本語の説明", 7), "日本語…"; got != want {
		t.Errorf("clip(CJK, 7) = %q, want %q", got, want)
	}
}
