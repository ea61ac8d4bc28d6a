package markdown

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestRSTEnumeratedItems: an enumerator starts a list item only where
// docutils 0.19 starts one (states.py: Body.enumerator,
// EnumeratedList.enumerator, is_enumerated_list_item): its ordinal is
// valid and the next line is blank, indented, outside its block, or
// starts with the next enumerator in the same format and sequence, or
// "#"; a later item of an open list must have the list's format and
// sequence and the next ordinal ("i" after "h" is alphabetic there).
// Each case's items are docutils' (publish_doctree, its list_item nodes),
// written beside it.
func TestRSTEnumeratedItems(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lines string
		items []int // the lines (from 0) that start items
	}{
		{"1. a\n3. b", nil}, // docutils: one paragraph "1. a 3. b"
		{"1. a\n2. b", []int{0, 1}},
		{"a. x\nb. y", []int{0, 1}},
		{"a. x\nc. y", nil},
		{"(i) x\n(ii) y", []int{0, 1}},
		{"(i) x\n(iii) y", nil},
		{"#. a\n#. b", []int{0, 1}},
		{"h. a\n\n::\n\n   code\n\ni. b\nj. c", []int{0}}, // "::" alone ends the list: "i." Roman, then "j." not its next
		{"#. a\n2. b", nil},
		{"#. a\nb", nil},
		{"1. a\n#. b", []int{0, 1}},
		{"1. a\n#. b\n3. c\n4. d", []int{0}}, // after "#", only "#"
		{"A. Einstein was a really\nsmart dude.", nil},
		{"A.\nB. x", []int{0, 1}},
		{"h. a\ni. b\nj. c", []int{0, 1, 2}}, // "i" alphabetic in an alphabetic list
		{"H. a\nI. b\nJ. c", []int{0, 1, 2}},
		{"I. a\nJ. b", nil},  // "I" alone is Roman: "II." must follow
		{"v. a\nvi. b", nil}, // "v" alone is alphabetic (22): "w." must follow
		{"ix. a\nx. b", []int{0, 1}},
		{"i. a\nii. b\niii. c\niv. d", []int{0, 1, 2, 3}},
		{"z. a\nfoo", nil},
		{"z. a\n#. b", nil}, // no ordinal after "z": "#" does not follow it either
		{"z. a\n", []int{0}},
		{"y. a\nz. b", []int{0, 1}},
		{"iiii. a\n\nx", nil}, // not a Roman numeral
		{"mmmm. a\nx", nil},
		{"MMMMCMXCIX. a\n", []int{0}},
		{"MMMMCMXCIX. a\nx", nil}, // 5,000 has no numeral
		{"1a. x\n", nil},
		{"0. a\n1. b", []int{0, 1}},
		{"007. a\n8. b", []int{0, 1}},
		{"99. a\n100. b", []int{0, 1}},
		{"1. a\n2) b", nil},
		{"1) a\n2) b", []int{0, 1}},
		{"(1) a\n(2) b", []int{0, 1}},
		{"(#) a\n(#) b", []int{0, 1}},
		{"1. a\n2. b\n4. c", []int{0}}, // then the paragraph "2. b 4. c"
		{"1. a\n2. b\n3. c\n5. d", []int{0, 1}},
		{"1. a\n2.\n3. b", nil},
		{"1. a\n2.\tb", []int{0, 1}},
		{"1. a\n2. b\n\n5. c\n6. d", []int{0, 1, 3, 4}},
		{"text\n\n  1. a\nb", []int{2}}, // a block quote's last line
		{"- a\n1. b\nx", []int{0}},
		{"1. a\n\n   i. x\n   ii. y\n2. b", []int{0, 2, 3, 4}},
		{"1. a\n\n- b\n2. c", []int{0, 2, 3}},
		{"1. a\n   b\n2. c\nd", []int{0}},
		{"C. a\nD. b\nE. c", []int{0, 1, 2}},
	} {
		lines := strings.Split(c.lines, "\n")
		r := readRSTLines(lines)
		var got []int
		for i, l := range r {
			if l.Item != "" {
				got = append(got, i)
			}
		}
		if !slices.Equal(got, c.items) {
			t.Errorf("%q: items on lines %v, want %v (docutils 0.19)", c.lines, got, c.items)
		}
	}
}

// TestRSTItemMarker: RSTLine.Item is the marker as written, which starts
// the line's shown text after its indent (navRST's words leave it out).
func TestRSTItemMarker(t *testing.T) {
	t.Parallel()
	lines := []string{"* a", "", "  (iv) b", "", "#.\tc", "", "• d", "", "x. not an item", "y"}
	r := readRSTLines(lines)
	for i, w := range []string{"*", "", "(iv)", "", "#.", "", "•", "", "", ""} {
		if r[i].Item != w {
			t.Errorf("line %d %q: Item %q, want %q", i+1, lines[i], r[i].Item, w)
		}
		if w != "" && !strings.HasPrefix(strings.TrimSpace(r[i].Shown), w) {
			t.Errorf("line %d: Shown %q does not start with its marker %q", i+1, r[i].Shown, w)
		}
	}
}

// TestRSTListMarkerOwner: every bullet is a list marker by the one list
// of them (rstBullets), and enumerators are docutils' (a number, one
// letter, a Roman numeral in one case, "#"; not "1a." nor "Iv.").
func TestRSTListMarkerOwner(t *testing.T) {
	t.Parallel()
	// docutils' bullet pattern, [-+*\u2022\u2023\u2043], written here on
	// its own (not rstBullets), and characters that are not bullets.
	for _, b := range "-+*\u2022\u2023\u2043" {
		if got := rstListMarker(string(b) + " x"); got != utf8.RuneLen(b) {
			t.Errorf("bullet %q: rstListMarker = %d, want %d", b, got, utf8.RuneLen(b))
		}
	}
	for _, b := range "·–—=○◦#" {
		if got := rstListMarker(string(b) + " x"); got != 0 {
			t.Errorf("%q is not a bullet: rstListMarker = %d, want 0", b, got)
		}
	}
	for s, w := range map[string]int{"1. x": 2, "(a) x": 3, "iv) x": 3, "IV. x": 3, "#. x": 2, "(#) x": 3, "1a. x": 0, "Iv. x": 0, "ab. x": 0, "(1. x": 0, "12345678901. x": 12, ". x": 0} {
		if got := rstListMarker(s); got != w {
			t.Errorf("rstListMarker(%q) = %d, want %d", s, got, w)
		}
	}
}

// TestRSTHiddenCaption: a ":hidden:" toctree's caption is not shown
// (Sphinx renders nothing of the toctree on its page), whether the
// caption comes before ":hidden:" or after it; a shown toctree's is.
func TestRSTHiddenCaption(t *testing.T) {
	t.Parallel()
	for _, opts := range [][]string{{"   :caption: Zcap", "   :hidden:"}, {"   :hidden:", "   :caption: Zcap"}} {
		lines := append(append([]string{".. toctree::"}, opts...), "", "   install")
		r := readRSTLines(lines)
		for i, l := range r {
			if strings.Contains(l.Shown, "Zcap") {
				t.Errorf("%q line %d: hidden caption shown: %q", opts, i+1, l.Shown)
			}
		}
		if len(r[4].Refs) != 1 || r[4].Refs[0].Target != "install" {
			t.Errorf("%q: the hidden entry's link lost: %+v", opts, r[4])
		}
	}
	r := readRSTLines([]string{".. toctree::", "   :caption: Zcap", "", "   install"})
	if r[1].Shown != "Zcap" {
		t.Errorf("a shown toctree's caption: %q, want Zcap", r[1].Shown)
	}
}

// TestRSTHeadLiteralFar: after ".. note:: Example::", the literal block
// is the lines indented more than the content's least indent, however
// far down that indent first appears (docutils 0.19: a note whose 70
// lines at indent 6 come before its text at indent 3 holds a
// literal_block of all 70 and then a paragraph; the reader looked 64
// lines ahead, and read them as prose).
func TestRSTHeadLiteralFar(t *testing.T) {
	t.Parallel()
	for _, n := range []int{3, 63, 64, 70, 200} {
		lines := []string{".. note:: Example::", ""}
		for k := range n {
			lines = append(lines, fmt.Sprintf("      code %d", k))
		}
		lines = append(lines, "   Back to text.", "", "After.")
		r := readRSTLines(lines)
		for k := 2; k < 2+n; k++ {
			if r[k].Kind != RSTCode {
				t.Errorf("%d lines: line %d %q is %v, want code", n, k+1, lines[k], r[k].Kind)
				break
			}
		}
		if l := r[2+n]; l.Kind != RSTProse || l.Shown != "   Back to text." {
			t.Errorf("%d lines: the note's text %+v, want prose", n, l)
		}
	}
}

// TestRSTQuotedLiteralAfterBlank: a quoted literal block follows its
// "::" paragraph after a blank line; without one the line goes on with
// the paragraph (docutils 0.19: "a::⏎(b) x" is one paragraph, "a::",
// "(b) x"; "a::⏎⏎(b) x" a paragraph "a:" and a literal_block; the same in
// a list item and in a note's head).
func TestRSTQuotedLiteralAfterBlank(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"a::\n(b) x", []string{"1|a::", "1|(b) x"}},
		{"* a::\n  (b) x", []string{"1|* a::", "1|  (b) x"}},
		{".. note:: E::\n   (b) x", []string{"4|E::", "1|   (b) x"}}, // a note's content (rst16): prose
		{"a::\n\n(b) x", []string{"1|a:", "0|", "3|(b) x"}},
	} {
		r := readRSTLines(strings.Split(c.in, "\n"))
		for i, w := range c.want {
			if got := rstView(r[i]); got != w {
				t.Errorf("%q line %d: %q, want %q", c.in, i+1, got, w)
			}
		}
	}
}

// TestRSTTextBlockEdge: a text block's lines are flush with its left
// edge (a list item's: its text's column); a line indented more or less
// starts another block, where an item may start (docutils 0.19: "a⏎   b"
// is a definition list, "x⏎y⏎   z" a paragraph and a block quote, "1. a⏎
// ␣␣␣␣b" a definition in the item, "1. a⏎   b" one paragraph, "1. a⏎   - b"
// one paragraph "a - b"; nested bullets written without blank lines, as
// in SQLAlchemy's migration_14.rst, are items at every level).
func TestRSTTextBlockEdge(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lines string
		items []int // the lines that start items
		cont  []int // the lines that continue the text block above
	}{
		{"a\n   b", nil, nil},
		{"x\ny\n   z", nil, []int{1}},
		{"1. a\n    b", []int{0}, nil},
		{"1. a\n   b", []int{0}, []int{1}},
		{"1. a\n   - b", []int{0}, []int{1}},
		{"1. a\n    - b", []int{0, 1}, nil},
		{"- a\n - b", []int{0, 1}, nil},
		{"* a\n    * b\n        * c\n    * d", []int{0, 1, 2, 3}, nil},
		{"4.\n  h. w", []int{0, 1}, nil},
		{"text\n  1. a\nb", []int{1}, nil},
		{".. note::\n\n   1. a\n       - b\n   text\n   more", []int{2, 3}, []int{5}},
		// A field's body, a line block's line and an option's description
		// go on through any deeper line (docutils'
		// get_first_known_indented), so a role may span them.
		{".. function:: f(x)\n\n   :param x: see :ref:`the\n      long <x>` here", nil, []int{3}},
		{"| a line with :ref:`the\n    long <x>`\n| next", nil, []int{1}},
		{"--foo=bar  the :ref:`a\n   b <x>` option\n-q  quiet", nil, []int{1}},
		// ...flush with their least indent (docutils removes it): deeper
		// is a block of its own; a field with no text on its marker's
		// line holds blocks read as any (pytest's reference.rst).
		{"intro\n\n:f: see a\n     b\n   c", nil, nil},
		{"intro\n\n:f: see a\n   b\n     c", nil, []int{3}},
		{"intro\n\n:keyword bool strict:\n    * If a :ref:`x\n      y <z>`\n    * If b", []int{3, 5}, []int{4}},
		// A field's or option's text that starts a nested block (a
		// bullet, a line block, another field or option) ends that block
		// at the body's least indent (docutils 0.19: "x" | "more"; the
		// review of fix15b), and a bulleted body's item goes on through
		// its own text column (napoleon's ":returns: - the ...").
		{"Para.\n\n:a: - x\n     more", nil, nil},
		{"Para.\n\n:a: | x\n     more", nil, nil},
		{"Para.\n\n:a: :b: c\n     more", nil, nil},
		{"Para.\n\n-a  -b  x\n     more", nil, nil},
		{"Para.\n\n:returns: - the :ref:`first\n             thing` here\n           - second", []int{4}, []int{3}},
		// A line at a field's indent ends it, never continues it
		// (docutils: another field, or the list ends); an option with no
		// description is text (docutils: "-a b. qb" one paragraph).
		{"intro\n\n:f:\n2. qb\n   qc\n   z. qd", []int{3}, []int{4, 5}},
		{"intro\n\n-a\nb. qb\n   qc", nil, []int{3}},
		// A line block's line is inline text: any deeper line goes on
		// with it, and no item starts there.
		{"| qa\n (a) qb\n   B. qc", nil, []int{1, 2}},
		{"|\n  ii. qb\n        (1) qc", nil, []int{1, 2}},
		// An enumerator after an item's marker on the same line starts an
		// item only by docutils' is_enumerated_list_item: the next line at
		// its column and not the next enumerator makes it text, the outer
		// item's (docutils: "- 2. see ..." one item, one paragraph).
		{"- 2. see :ref:`the\n  long <x>`", []int{0}, []int{1}},
		{"1. A. Einstein was a :ref:`smart\n   man <x>`", []int{0}, []int{1}},
		{"* v. 2 adds :ref:`a\n  b <x>`", []int{0}, []int{1}},
		{"- 1. * a\n  b", []int{0}, []int{1}},
		{"- * 1. a\n    b", []int{0}, []int{1}},
		{"- z. x\n  y", []int{0}, []int{1}},
		// ...and an item where the next line is deeper, the next
		// enumerator, outside its block or the end: the edge after it.
		{"- 2. a\n     b", []int{0}, []int{1}},
		{"- 1. * a\n     b", []int{0}, nil},
		{"- * a\n  b", []int{0}, nil},
		{"- a. x\n  b. y", []int{0, 1}, nil},
		{"- 1. a\n- b", []int{0, 1}, nil},
	} {
		lines := strings.Split(c.lines, "\n")
		r := readRSTLines(lines)
		var items, cont []int
		for i, l := range r {
			if l.Item != "" {
				items = append(items, i)
			}
			if l.Cont {
				cont = append(cont, i)
			}
		}
		if !slices.Equal(items, c.items) || !slices.Equal(cont, c.cont) {
			t.Errorf("%q: items %v, continued %v; want %v, %v (docutils 0.19)", c.lines, items, cont, c.items, c.cont)
		}
	}
}

// TestRSTFieldRoleWrapped: a role wrapped across a field body's lines, a
// line block's line and an option's description is read as one role, its
// link kept (docutils 0.19: one paragraph each, "see the long here").
func TestRSTFieldRoleWrapped(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ lines, shown string }{
		{".. function:: f(x)\n\n   :param x: see :ref:`the\n      long <x>` here", "f(x) :param x: see the long here"},
		{"| a line with :ref:`the\n    long <x>`", "| a line with the long"},
		{"--foo=bar  the :ref:`the\n   long <x>` option", "--foo=bar  the the long option"},
	} {
		r := readRSTLines(strings.Split(c.lines, "\n"))
		var refs []RSTRef
		var shown []string
		for _, l := range r {
			refs = append(refs, l.Refs...)
			if s := strings.TrimSpace(l.Shown); s != "" {
				shown = append(shown, s)
			}
		}
		if got := strings.Join(shown, " "); got != c.shown || len(refs) != 1 || refs[0].Target != "x" || strings.Join(strings.Fields(refs[0].Text), " ") != "the long" {
			t.Errorf("%q: shown %q, refs %+v; want %q and one ref to x", c.lines, got, refs, c.shown)
		}
	}
}

// TestContentIndents: the one backward pass gives, for every line, the
// least indent of the lines after it up to the first indented no more
// than it, as the definition read forward does, on pages of random
// indents and blank lines.
func TestContentIndents(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(15, 2))
	for page := 0; page < 300; page++ {
		lines := make([]string, rnd.IntN(20))
		for j := range lines {
			if rnd.IntN(5) > 0 {
				lines[j] = strings.Repeat(" ", rnd.IntN(7)) + "x"
			}
		}
		got := contentIndents(lines)
		for i, l := range lines {
			want := -1
			if strings.TrimSpace(l) != "" {
				for _, m := range lines[i+1:] {
					if strings.TrimSpace(m) == "" {
						continue
					}
					if rstIndent(m) <= rstIndent(l) {
						break
					}
					if want < 0 || rstIndent(m) < want {
						want = rstIndent(m)
					}
				}
			}
			if int(got[i]) != want {
				t.Fatalf("%q line %d: %d, want %d", lines, i, got[i], want)
			}
		}
	}
}
