package markdown

import "testing"

// TestRSTTargetEscapes: a reference's target reads its escapes as its
// text does (docutils' refuri, Sphinx's XRefRole), and an embedded URI
// drops its white space (docutils 0.19: refuri "http://x.example/a_b").
func TestRSTTargetEscapes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"`x <http://x.example/a\\_b>`_", "http://x.example/a_b"},
		{"`x <http://x.example/a\n   b>`_", "http://x.example/ab"},
		{":ref:`x <a\\_b>`", "a_b"},
	} {
		var got []RSTRef
		RSTInline(c.in, func(_ int, r RSTRef) { got = append(got, r) })
		if len(got) != 1 || got[0].Target != c.want || got[0].Text != "x" {
			t.Errorf("%q: refs %+v, want one to %q", c.in, got, c.want)
		}
	}
}

// TestRSTEscapedTab: a backslash and a tab show the tab's spaces but one
// (docutils expands tabs to 8 columns before it reads escapes: "a\<TAB>b"
// is "a     b"), counted from the line's start, after markup too.
func TestRSTEscapedTab(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"a\\\tb", "a     b"},
		{"x\nabcdefgh\\\tb", "x\nabcdefgh      b"},
		{":ref:`r <t>` a\\\tb", "r ab"}, // the tab at column 15 runs to 16: no space left
		{"`x\\\ty <t>`_", "x    y"},     // at column 3, to 8
	} {
		if got := RSTInline(c.in, nil); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}
