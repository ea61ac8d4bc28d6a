package markdown

import "testing"

// TestReadRSTHeadBlock: a directive's head (its arguments, or the first
// paragraph of an admonition's content written on its marker line) and a
// footnote's first lines are one text block, so a role or a hyperlink
// reference split over them is one inline span (docutils). An
// admonition's lines after its marker are its content (prose; rst16).
func TestReadRSTHeadBlock(t *testing.T) {
	t.Parallel()
	lines, r := checkRSTShown(t, ".. note:: see :ref:`the\n   long label <zlabel>` here\n   and `a site\n   <https://z.example/>`_.\n\n   Body.\n\n.. [#] A :doc:`split\n   doc <zdoc>` note.\n\n.. versionchanged:: 3.1\n   :ref:`zver\n   <zv>` now.", map[int]string{0: "4|see the long label", 1: "1| here", 2: "1|   and a site", 3: "1|.", 5: "1|   Body.", 7: "1|A split doc", 8: "1| note.", 10: "4|3.1", 11: "4|   zver", 12: "4| now."})
	for i, w := range map[int]string{0: "zlabel", 2: "https://z.example/", 7: "zdoc", 11: "zv"} {
		if len(r[i].Refs) != 1 || r[i].Refs[0].Target != w {
			t.Errorf("line %d refs %+v, want one to %q", i+1, r[i].Refs, w)
		}
	}
	for _, i := range []int{1, 3, 8, 12} {
		if len(r[i].Refs) != 0 {
			t.Errorf("line %d refs %+v, want none (on the line they start)", i+1, r[i].Refs)
		}
	}
	for i, w := range map[int]bool{0: false, 1: true, 2: true, 3: true, 5: false, 7: false, 8: true, 10: false, 11: true, 12: true} {
		if r[i].Cont != w {
			t.Errorf("line %d %q: Cont %v, want %v", i+1, lines[i], r[i].Cont, w)
		}
	}
	// An option ends the head's text block; a blank line ends it.
	r = readRSTLines([]string{".. admonition:: A :ref:`zopt", "   :class: tip", "", "   <zx>` rest"})
	if r[0].Shown != "A :ref:`zopt" || len(r[0].Refs) != 0 || !r[1].Option {
		t.Errorf("an option ends the head: %+v", r[:2])
	}
}

// TestReadRSTEscapes: backslash escapes are shown as docutils shows them
// ("\*" is "*", "\`" is "`", "\\" is "\", a backslash and white space
// vanish), but in inline literals and code, which keep them; a paragraph
// that ends with "::" shows ":" ("Paragraph::" is "Paragraph:"), or
// nothing after white space ("Paragraph ::" is "Paragraph"), and "::"
// alone shows nothing (the spec's expanded form).
func TestReadRSTEscapes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{`a \*not emphasis\* b`, "a *not emphasis* b"},
		{"an \\`x\\` tick", "an `x` tick"},
		{`back\\slash`, `back\slash`},
		{"un\\ joined and H\\ :sub:`2`\\ O", "unjoined and H2O"},
		{"``lit \\* kept`` \\*", "``lit \\* kept`` *"},
		{":ref:`a\\_b <t>` x", "a_b x"},
		{`name\_ is text`, "name_ is text"},
	} {
		if got := RSTInline(c.in, nil); got != c.want {
			t.Errorf("RSTInline(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	lines, _ := checkRSTShown(t, "Title \\*x\\*\n=========\n\nParagraph::\n\n   code \\* kept\n\nSpaced ::\n\n   more\n\n::\n\n   last\n\nMid:: line\ngoes on.\n\nAn \\* escape\\\nover lines.", map[int]string{0: "2|Title *x*", 3: "1|Paragraph:", 5: "3|   code \\* kept", 7: "1|Spaced", 11: "1|", 13: "3|   last", 15: "1|Mid:: line", 16: "1|goes on.", 18: "1|An * escape", 19: "1|over lines."})
	_, b := readRST(lines)
	if len(b.Headings) != 1 || b.Headings[0].Text != "Title *x*" {
		t.Errorf("headings %+v, want the title unescaped", b.Headings)
	}
}

// TestRSTInlineWritten: markup lines are indexed as written, their
// backslashes kept (docutils reads no escapes in a comment or an
// option), their inline markup reduced.
func TestRSTInlineWritten(t *testing.T) {
	t.Parallel()
	if got := RSTInlineWritten(":file: C:\\dir\\x :ref:`a\\_b <t>`"); got != `:file: C:\dir\x a\_b` {
		t.Errorf("RSTInlineWritten = %q", got)
	}
}

// TestReadRSTRawText: the roles whose text is raw (docutils 0.19's
// roles.py: code, math, raw, names case-insensitive) and the heads of
// math, code and object-description directives keep their backslashes,
// as docutils and Sphinx show them (checked against docutils 0.19).
func TestReadRSTRawText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"A :math:`\\sigma^2 = \\frac{1}{n}` b", "A \\sigma^2 = \\frac{1}{n} b"},
		{":code:`re.sub(r'\\d', x)` and :CODE:`a\\_b`", "re.sub(r'\\d', x) and a\\_b"},
		{":ref:`a\\_b <t>` x", "a_b x"},
	} {
		if got := RSTInline(c.in, nil); got != c.want {
			t.Errorf("RSTInline(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	checkRSTShown(t, ".. math:: \\alpha + \\beta \\\\ \\gamma\n\n.. function:: print(*objects, sep=' ', end='\\n')\n\n.. py:method:: f(a='\\t',\n   b='\\n')\n\n.. note:: An \\*escape\\*.", map[int]string{0: "4|\\alpha + \\beta \\\\ \\gamma", 2: "4|print(*objects, sep=' ', end='\\n')", 4: "4|f(a='\\t',", 5: "4|   b='\\n')", 7: "4|An *escape*."})
}

// TestReadRSTQuotedLiteral: after "::", unindented lines that start with
// a non-alphanumeric printable character are a quoted literal block, up
// to a blank line (docutils 0.19: "> * :doc:`one`" and ".. note:: x"
// are literal_block).
func TestReadRSTQuotedLiteral(t *testing.T) {
	t.Parallel()
	checkRSTShown(t, "Write this::\n\n> * :doc:`one`\n> two\n\nAfter.\n\nAnd::\n\n.. note:: x\n\nplain::\n\nplain", map[int]string{0: "1|Write this:", 2: "3|> * :doc:`one`", 3: "3|> two", 5: "1|After.", 9: "3|.. note:: x", 13: "1|plain"})
}

// TestRSTRefXRef: the one list of cross-reference roles, with their
// domain, case-folded, and Sphinx's external ones.
func TestRSTRefXRef(t *testing.T) {
	t.Parallel()
	for role, want := range map[string]string{"ref": "ref/false", "std:doc": "doc/false", "REF": "ref/false", "numref": "numref/false",
		"external:ref": "ref/true", "external+python:std:doc": "doc/true", "func": "/false", "py:func": "/false", "external": "/false", "": "/false"} {
		kind, ext := RSTRef{Role: role}.XRef()
		got := kind + "/" + map[bool]string{true: "true", false: "false"}[ext]
		if got != want {
			t.Errorf("XRef(%q) = %s, want %s", role, got, want)
		}
		if leads := (RSTRef{Role: role}).Leads(); leads != (kind != "") {
			t.Errorf("Leads(%q) = %v", role, leads)
		}
	}
}

// TestReadRSTLiteralMarker: "::" ends a paragraph with a literal block
// only after an even run of backslashes, decided on the line as written
// (docutils 0.19: "colon:\::" shows "colon:::" and the indented line is a
// block quote; "Text\ ::" shows "Text"; "Two\\::" shows "Two\:").
func TestReadRSTLiteralMarker(t *testing.T) {
	t.Parallel()
	checkRSTShown(t, "Ends with colon:\\::\n\n   indented\n\nText\\ ::\n\n   code\n\nTwo\\\\::\n\n   code", map[int]string{0: "1|Ends with colon:::", 2: "1|   indented", 4: "1|Text", 6: "3|   code", 8: "1|Two\\:", 10: "3|   code"})
}
