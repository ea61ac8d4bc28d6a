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
		{"`x <a\n   name_>`_", "a\n   name_"}, // a reference name, not a URI: as written
		{"`x <a\\\tb_>`_", "a b_"},            // the tab's column is the target's (5 → 8; docutils' name "a b")
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

// TestRSTDirectiveHeadLiteral: a paragraph on a directive's (or a
// footnote's) marker line
// that ends with "::" announces a literal block, as any paragraph does:
// the lines indented more than the content's least indent (docutils
// 0.19), or a quoted block at that indent.
func TestRSTDirectiveHeadLiteral(t *testing.T) {
	t.Parallel()
	r := readRSTLines([]string{".. note:: Example::", "", "      code *x*", "", "     four", "", "   three."})
	for i, w := range map[int]string{0: "4|Example:", 2: "3|      code *x*", 4: "3|     four", 6: "1|   three."} {
		if got := rstView(r[i]); got != w {
			t.Errorf("line %d: %q, want %q", i+1, got, w)
		}
	}
	// The content's least indent is the code's: no literal block (docutils
	// warns "Literal block expected; none found").
	r = readRSTLines([]string{".. note:: Example::", "", "   code"})
	if got := rstView(r[2]); got != "1|   code" {
		t.Errorf("no literal block: %q, want prose", got)
	}
	r = readRSTLines([]string{".. [1] Example::", "", "      code", "", "   more"})
	if got := rstView(r[2]); got != "3|      code" {
		t.Errorf("a footnote's literal block: %q, want code", got)
	}
	r = readRSTLines([]string{".. note:: Example::", "", "   > quoted"})
	if got := rstView(r[2]); got != "3|   > quoted" {
		t.Errorf("a quoted literal block: %q, want code", got)
	}
}

// TestRSTListItems: the reader owns "this line starts a list item"
// (RSTLine.Item, by rstListMarker): items written without blank lines
// between them are text blocks of their own, so a role does not span two
// (docutils 0.19: "* see :ref:`a" is a start-string without an end, and
// "b <x>`" the next item's text); a marker inside a paragraph, or
// indented into an item, continues it; a line not indented into an item
// ends it; an enumerator whose next line is not indented, blank or
// the next enumerator (TestRSTEnumeratedItems) starts a paragraph ("A. Einstein was").
func TestRSTListItems(t *testing.T) {
	t.Parallel()
	lines := []string{
		"* see :ref:`a", "* b <x>`", "",
		"(a) one", "(b) two", "", "i) x", "ii) y", "", "• z", "‣ y", "",
		"Text", "* b", "", "* a", "  * b", "", "* a", "b", "", "1. a", "   more", "#. c", "",
		// an enumerator whose next line is not indented: a paragraph
		"1. When a", "value b", "2. x",
	}
	r := readRSTLines(lines)
	items := map[int]bool{0: true, 1: true, 3: true, 4: true, 6: true, 7: true, 9: true, 10: true, 15: true, 18: true, 21: true, 23: true}
	for i := range lines {
		if (r[i].Item != "") != items[i] {
			t.Errorf("line %d %q: Item %q, want one: %v", i+1, lines[i], r[i].Item, items[i])
		}
	}
	if len(r[0].Refs)+len(r[1].Refs) != 0 || r[0].Shown != "* see :ref:`a" || r[1].Shown != "* b <x>`" {
		t.Errorf("a role spans two items: %+v %+v", r[0], r[1])
	}
	for i, w := range map[int]bool{1: false, 4: false, 13: true, 16: true, 19: false, 22: true, 23: false, 26: true, 27: true} {
		if r[i].Cont != w {
			t.Errorf("line %d %q: Cont %v, want %v", i+1, lines[i], r[i].Cont, w)
		}
	}
	if got, _ := (&rstReader{lines: []string{"• a::"}}).textCol(0, "• a::", 0); got != 2 {
		t.Errorf("textCol(• a::) = %d, want 2 (a column a character)", got)
	}
}

// TestRSTHiddenToctree: a ":hidden:" toctree shows nothing on its page
// (its entries' titles are not shown), its marker, options and entries
// are marked Hidden, and its entries keep their links (Sphinx's sidebar).
func TestRSTHiddenToctree(t *testing.T) {
	t.Parallel()
	lines := []string{".. toctree::", "   :maxdepth: 1", "   :hidden:", "", "   Install it <install>", "", "Text.", "", ".. toctree::", "", "   Shown <shown>"}
	r := readRSTLines(lines)
	for i := 0; i <= 4; i++ {
		if !r[i].Hidden && i != 3 {
			t.Errorf("line %d %q: not Hidden", i+1, lines[i])
		}
	}
	if r[4].Shown != "" || !r[4].Entry || len(r[4].Refs) != 1 || r[4].Refs[0].Target != "install" {
		t.Errorf("hidden entry: %+v, want no shown text and its link", r[4])
	}
	if r[6].Hidden || r[8].Hidden || r[10].Hidden || r[10].Shown != "Shown" {
		t.Errorf("a shown toctree: %+v %+v", r[8], r[10])
	}
}
