package markdown

import (
	"strings"
	"testing"
)

// TestHighlight: ** marks the marks and nothing else; code spans pair from
// the start of the line even when the stretch shown starts inside one (a
// snippet's window), so a stray backquote there pairs with nothing after.
func TestHighlight(t *testing.T) {
	t.Parallel()
	at := func(s, w string, from int) [2]int {
		i := from + strings.Index(s[from:], w)
		return [2]int{i, i + len(w)}
	}
	s := "x `a b` - **Extract** it: `tool --extract **kw**` y"
	from := strings.Index(s, "b`")
	got := Highlight(s, from, [][2]int{at(s, "Extract", 0), at(s, "extract", at(s, "Extract", 0)[1])})
	if want := "b` - **Extract** it: **`tool --extract **kw**`** y"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	s = "# Rolling back\n\n## After __the__ rollback\nuse # comments"
	if got, want := Highlight(s, 0, [][2]int{at(s, "rollback", 0)}), "Rolling back\n\nAfter the **rollback**\nuse # comments"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got, want := Highlight(s, 2, nil), "Rolling back\n\nAfter the rollback\nuse # comments"; got != want {
		t.Errorf("from 2: got %q\nwant %q", got, want)
	}
}
