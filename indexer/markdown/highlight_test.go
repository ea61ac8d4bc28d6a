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
	if got, want := Highlight(s, 0, [][2]int{at(s, "rollback", 0)}), "Rolling back\n\nAfter __the__ **rollback**\nuse # comments"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got, want := Highlight(s, 2, nil), "Rolling back\n\nAfter __the__ rollback\nuse # comments"; got != want {
		t.Errorf("from 2: got %q\nwant %q", got, want)
	}
}

// TestHighlightKeepsText: a # or __ that is not markup stays next to a
// mark (the whole line decides an ATX heading; an intraword __ is not
// emphasis), and adjacent marks make one (no "****").
func TestHighlightKeepsText(t *testing.T) {
	t.Parallel()
	mark := func(s string, words ...string) [][2]int {
		var ms [][2]int
		from := 0
		for _, w := range words {
			i := from + strings.Index(s[from:], w)
			ms = append(ms, [2]int{i, i + len(w)})
			from = i + len(w)
		}
		return ms
	}
	for _, c := range []struct {
		s     string
		words []string
		want  string
	}{
		{"#include <stdio.h>", []string{"include"}, "#**include** <stdio.h>"},
		{"# include files", []string{"include"}, "**include** files"},
		{"  ## include files", []string{"include"}, "**include** files"},
		{"my__init__x and __bold__ text", []string{"init"}, "my__**init**__x and __bold__ text"},
		// left17: an unpaired __ next to a match stays (it was dropped,
		// and its text lost), and a standalone __init__ is the source's
		// identifier, not **init**: __ is never taken for markup.
		{"call __init first", []string{"init"}, "call __**init** first"},
		{"call init__ first", []string{"init"}, "call **init**__ first"},
		{"def __init__(self)", []string{"init"}, "def __**init**__(self)"},
		{"the __init__ method", nil, "the __init__ method"},
		{"**bold** and __init__", []string{"init"}, "bold and __**init**__"},
		{"snake__case__name", nil, "snake__case__name"},
		{"日本語の文書", []string{"日", "本", "語"}, "**日本語**の文書"},
		{"a `x` `y` b", []string{"x", "y"}, "a **`x`** **`y`** b"},
		{"ab", []string{"a", "b"}, "**ab**"},
	} {
		if got := Highlight(c.s, 0, mark(c.s, c.words...)); got != c.want {
			t.Errorf("Highlight(%q, %q):\n got %q\nwant %q", c.s, c.words, got, c.want)
		}
	}
}
