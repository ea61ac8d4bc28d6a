package markdown

import (
	"fmt"
	"strings"
	"testing"
)

// rst16View is a line as TestRSTLeft16 checks it: its kind, its item's
// marker, whether it continues the text block above, its shown text.
func rst16View(l RSTLine) string {
	c := ""
	if l.Cont {
		c = "+"
	}
	return fmt.Sprintf("%d|%s|%s|%s", l.Kind, l.Item, c, l.Shown)
}

// TestRSTLeft16: the cases round 15 left, each as docutils 0.19 reads it
// (publish_string, pseudoxml, written beside each page), every line's
// kind, item, continuation and shown text. Kinds: 1 prose, 3 code, 4
// markup.
func TestRSTLeft16(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, page string
		want       []string // each line's rst16View
	}{
		// 1. A directive that takes no arguments (docutils'
		// parse_directive_block: with no arguments, the lines before the
		// options are content) has content at once after its marker.
		{"note items", ".. note::\n   1. a\n   2. b", // <note><enumerated_list> two list_items
			[]string{"4|||", "1|1.||   1. a", "1|2.||   2. b"}},
		{"note bullets", ".. note::\n   - a\n   - b", // <note><bullet_list> two list_items
			[]string{"4|||", "1|-||   - a", "1|-||   - b"}},
		{"note text", ".. note::\n   text :ref:`x\n   y <z>`", // <note><paragraph>text x y
			[]string{"4|||", "1|||   text x y", "1||+|"}}, // a role's text is shown on the line it starts on
		{"note directive", ".. note::\n   .. code-block:: py\n\n      x\n\n   after", // <note> the code block, then a paragraph
			[]string{"4|||", "4|||", "0|||", "3|||      x", "0|||", "1|||   after"}},
		{"note then option", ".. note::\n   text\n   :class: x\n\n   more", // <note classes="x"> paragraphs "text", "more"
			[]string{"4|||", "1|||   text", "4|||", "0|||", "1|||   more"}},
		{"seealso nested", ".. seealso::\n   .. note::\n      - a\n\n   - b\n   - c", // Sphinx's seealso takes no arguments
			[]string{"4|||", "4|||", "1|-||      - a", "0|||", "1|-||   - b", "1|-||   - c"}},
		// Its marker line's text is its content's first line, at the
		// content's indent (the least indent of the lines after it).
		{"note head items", ".. note:: 1. a\n   2. b", // <note><enumerated_list> two list_items
			[]string{"4|1.||1. a", "1|2.||   2. b"}},
		{"note head deeper", ".. note:: a\n     b", // <note><paragraph> a b
			[]string{"4|||a", "1||+|     b"}},
		{"note head edge", ".. note:: x\n   y\n    * -v  z\n   1. | w", // <paragraph> x y; <block_quote><bullet_list>; <enumerated_list><line_block>
			[]string{"4|||x", "1||+|   y", "1|*||    * -v  z", "1|1.||   1. | w"}},
		{"note head bullet", ".. note:: - a\n     b\n   c", // <bullet_list><list_item> a b; <paragraph> c
			[]string{"4|-||- a", "1||+|     b", "1|||   c"}},
		// A directive with arguments reads its lines up to a blank one as
		// arguments (versionadded's second argument is shown as text); a
		// code directive's there is an error in docutils ("maximum 1
		// argument(s) allowed", its source shown as a literal block): code.
		{"versionadded", ".. versionadded:: 2.1\n   1. a\n   2. b",
			[]string{"4|||2.1", "4||+|   1. a", "4||+|   2. b"}},
		{"code-block", ".. code-block:: py\n   x = 1\n   :linenos:", // <system_message> ... <literal_block>
			[]string{"4|||", "3|||   x = 1", "4|||"}},
		// 2. A field, option or line block on an item's marker line: it
		// ends at a line at the item's text column ("Field list ends
		// without a blank line; unexpected unindent."), goes on through
		// lines indented more (its body).
		{"item field", "- :param x: y\n  more", // <field_body> y; then <paragraph> more
			[]string{"1|-||- :param x: y", "1|||  more"}},
		{"item field body", "- :a: text\n     more\n  para", // <field_body> text more; <paragraph> para
			[]string{"1|-||- :a: text", "1||+|     more", "1|||  para"}},
		{"item line block", "1. | line\n   more", // <line> line; "Line block ends without a blank line."; <paragraph> more
			[]string{"1|1.||1. | line", "1|||   more"}},
		{"item line block deeper", "1. | line\n     more", // <line> line more
			[]string{"1|1.||1. | line", "1||+|     more"}},
		{"item option", "* -v  verbose\n  more", // <description> verbose; <paragraph> more
			[]string{"1|*||* -v  verbose", "1|||  more"}},
		{"item option body", "* -v  verbose\n     more", // <description> verbose more
			[]string{"1|*||* -v  verbose", "1||+|     more"}},
		// 3. An option then a tab: docutils expands tabs first.
		{"option tab", "-v\tverbose\n\tmore\n-w\tx\n\n-x\ty", // <option_list> -v "verbose more", -w "x"; then -x "y"
			[]string{"1|||-v\tverbose", "1||+|\tmore", "1|||-w\tx", "0|||", "1|||-x\ty"}},
		{"line block tab", "|\tline\n  more", // <line> line more
			[]string{"1||||\tline", "1||+|  more"}},
		{"option tab column", "a\n\n  -abcdef\tx\n    more", // tabs from the line's start: "-a bcdef", 7 spaces, <description> x more
			[]string{"1|||a", "0|||", "1|||  -abcdef\tx", "1||+|    more"}},
		{"no option tab", "-abcdef\tx\n  more", // one space: <term> -abcdef x <definition> more
			[]string{"1|||-abcdef\tx", "1|||  more"}},
		// 4. A doctest block ends the open enumerated lists at its indent:
		// "h. a⏎⏎>>> x⏎⏎i. b⏎j. c" is an item, the doctest, then the
		// paragraph "i. b j. c" ("i." Roman, "j." not its next).
		{"doctest ends list", "h. a\n\n>>> x\n\ni. b\nj. c",
			[]string{"1|h.||h. a", "0|||", "3|||>>> x", "0|||", "1|||i. b", "1||+|j. c"}},
		// 5. A one-line paragraph ending in "::" then an indented line
		// with no blank line between is a definition list ("Blank line
		// missing before literal block (after the "::")? Interpreted as a
		// definition list item."): the term shows "a::", the definition
		// is text; after a paragraph of more lines it is a literal block.
		{"term", "a::\n   b\n\n   c", // <term> a:: <definition> b, c
			[]string{"1|||a::", "1|||   b", "0|||", "1|||   c"}},
		{"item term", "- a::\n    b", // <list_item><definition_list><term> a::
			[]string{"1|-||- a::", "1|||    b"}},
		{"colons term", "::\n   b", // <term> :: <definition> b
			[]string{"1|||::", "1|||   b"}},
		{"two lines then literal", "x\na::\n   b", // <paragraph> x a: <literal_block> b
			[]string{"1|||x", "1||+|a:", "3|||   b"}},
		// Found by the random pages below: a paragraph's next line at its
		// edge is its text, whatever it starts with (explicit markup, a
		// doctest, "::"), in an item, a footnote and a line block too.
		{"para markup", "para\n.. note:: x", // <paragraph> para .. note:: x
			[]string{"1|||para", "1||+|.. note:: x"}},
		{"para doctest", "para\n>>> x", // <paragraph> para >>> x
			[]string{"1|||para", "1||+|>>> x"}},
		{"colons doctest", "::\n>>> x", // <paragraph> :: >>> x
			[]string{"1|||::", "1||+|>>> x"}},
		{"item markup", "- a\n  .. note:: x", // <list_item><paragraph> a .. note:: x
			[]string{"1|-||- a", "1||+|  .. note:: x"}},
		{"footnote markup", ".. [1] x\n   .. note:: y", // <footnote><paragraph> x .. note:: y
			[]string{"1|||x", "1||+|   .. note:: y"}},
		{"line block markup", "| a\n  .. note:: y", // <line> a .. note:: y
			[]string{"1|||| a", "1||+|  .. note:: y"}},
		// A line block's line is inline text: its "::" is text, shown as
		// written, and announces no literal block.
		{"line block colons", "| a\n  b::\n\n   c", // <line> a b:: ; <block_quote> c
			[]string{"1|||| a", "1||+|  b::", "0|||", "1|||   c"}},
		{"item line block colons", "- | a::\n\n    b", // <list_item><line_block><line> a:: ; <block_quote> b
			[]string{"1|-||- | a::", "0|||", "1|||    b"}},
		// A quoted literal block holds the lines at its indent that
		// start with its quote character.
		{"quoted ends", "a::\n\n> x\n> y\n- z", // <literal_block> > x > y; "Inconsistent literal block quoting."; <bullet_list>
			[]string{"1|||a:", "0|||", "3|||> x", "3|||> y", "1|-||- z"}},
		{"quoted deeper", "a::\n\n> x\n    y", // <literal_block> > x; "Unexpected indentation."; <block_quote> y
			[]string{"1|||a:", "0|||", "3|||> x", "1|||    y"}},
		{"field ends", ":f: a\n.. note:: y\n\nx\n\n:g: b\n.. note:: z", // a field at its indent ends: <note>
			[]string{"4|||", "4|||y", "0|||", "1|||x", "0|||", "1|||:g: b", "4|||z"}},
	} {
		lines := strings.Split(c.page, "\n")
		r := readRSTLines(lines)
		for i, w := range c.want {
			if got := rst16View(r[i]); got != w {
				t.Errorf("%s: line %d %q: %q, want %q", c.name, i+1, lines[i], got, w)
			}
		}
	}
}
