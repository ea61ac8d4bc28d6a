package markdown

import (
	"strings"
	"testing"
)

// TestRSTReview16: the defects a review of round 16's rst reader found,
// each page as docutils 0.19 reads it (publish_string, pseudoxml; what it
// gave is written beside each page), every line's kind, item,
// continuation and shown text (rst16View) and whether it is a hidden
// option. Kinds: 0 blank, 1 prose, 3 code, 4 markup.
func TestRSTReview16(t *testing.T) {
	t.Parallel()
	type want struct {
		view   string
		option bool
	}
	for _, c := range []struct {
		name, page string
		want       []want
	}{
		// 1. A blank line ends a directive's head (its arguments and
		// options), however deep the line after it is: here the note's,
		// under a footnote, a comment, a substitution, a literal block or
		// a nested directive in its content. The field after it is the
		// note's content, a field list.
		{"footnote then field", ".. note::\n   .. [1] x\n\n   :class: y", // <note><footnote>…<field_list><field_name>class<field_body>y
			[]want{{"4|||", false}, {"1|||x", false}, {"0|||", false}, {"1|||   :class: y", false}}},
		{"comment then field", ".. note::\n   .. comment\n      more\n\n   :class: y", // <note><comment> comment more; <field_list> class y
			[]want{{"4|||", false}, {"4|||", false}, {"4|||", false}, {"0|||", false}, {"1|||   :class: y", false}}},
		{"directive then field", ".. note::\n   .. tip::\n      x\n\n   :class: y", // <note><tip><paragraph> x; <field_list> class y
			[]want{{"4|||", false}, {"4|||", false}, {"1|||      x", false}, {"0|||", false}, {"1|||   :class: y", false}}},
		{"substitution then field", ".. note::\n   .. |s| replace:: x\n\n   :class: y", // <note><substitution_definition> x; <field_list> class y
			[]want{{"4|||", false}, {"4|||x", false}, {"0|||", false}, {"1|||   :class: y", false}}},
		{"literal then field", ".. note::\n   ::\n\n      lit\n\n   :class: y", // <note><literal_block> lit; <field_list> class y
			[]want{{"4|||", false}, {"1|||", false}, {"0|||", false}, {"3|||      lit", false}, {"0|||", false}, {"1|||   :class: y", false}}},
		// An option before the blank line stays one.
		{"option", ".. note::\n   :class: y\n\n   text", // <note classes="y"><paragraph> text
			[]want{{"4|||", false}, {"4|||", true}, {"0|||", false}, {"1|||   text", false}}},
		// 2. An option of a directive with no arguments is a field at
		// its content's indent (parse_directive_options matches the field
		// marker at the start of a line that get_first_known_indented
		// unindented); one indented more is content.
		{"item then field", ".. note::\n   - a\n     :class: v", // <note><bullet_list><list_item><paragraph> a :class: v
			[]want{{"4|||", false}, {"1|-||   - a", false}, {"1||+|     :class: v", false}}},
		{"text then field", ".. note::\n   text\n     :class: v", // <note><definition_list><term> text <definition><field_list> class v
			[]want{{"4|||", false}, {"1|||   text", false}, {"1|||     :class: v", false}}},
		{"compound text then field", ".. compound::\n   text\n     :class: v", // <compound><definition_list><term> text <definition><field_list>
			[]want{{"4|||", false}, {"1|||   text", false}, {"1|||     :class: v", false}}},
		{"deeper field first", ".. note::\n     :class: v\n   text", // <note><block_quote><field_list> class v; "Block quote ends without a blank line"; <paragraph> text
			[]want{{"4|||", false}, {"1|||     :class: v", false}, {"1|||   text", false}}},
		{"field above the content's indent", ".. note::\n   :class: v\n\n text", // the block unindented by 1: <note><block_quote><field_list> class v; <paragraph> text
			[]want{{"4|||", false}, {"1|||   :class: v", false}, {"0|||", false}, {"1||| text", false}}},
		{"marker text then field", ".. note:: a\n     :class: x", // the lines unindented by 5: "a", ":class: x": <note classes="x"><paragraph> a
			[]want{{"4|||a", false}, {"4|||", true}}},
		// 3. An option with no description on an item's marker line is
		// text, as at the top level: one paragraph.
		{"item option alone", "* -v\n  x", // <bullet_list><list_item><paragraph> -v x
			[]want{{"1|*||* -v", false}, {"1||+|  x", false}}},
		{"enumerated option alone", "1. --opt\n   more", // <enumerated_list><list_item><paragraph> --opt more
			[]want{{"1|1.||1. --opt", false}, {"1||+|   more", false}}},
		{"note item option alone", ".. note::\n   * -v\n     x", // <note><bullet_list><list_item><paragraph> -v x
			[]want{{"4|||", false}, {"1|*||   * -v", false}, {"1||+|     x", false}}},
		// A field with no text there still ends at the item's text
		// column ("Field list ends without a blank line").
		{"item field alone", "- :a:\n  x", // <list_item><field_list><field_name> a <field_body>; <paragraph> x
			[]want{{"1|-||- :a:", false}, {"1|||  x", false}}},
		// 4. Directives with no options (docutils: epigraph, highlights,
		// pull-quote are BlockQuote, header and footer, with no
		// option_spec; Sphinx's acks has option_spec = {}): a field
		// after the marker is content, a field list, shown.
		{"epigraph", ".. epigraph::\n   :author: x", // <block_quote classes="epigraph"><field_list> author x
			[]want{{"4|||", false}, {"1|||   :author: x", false}}},
		{"highlights", ".. highlights::\n   :a: b", // <block_quote classes="highlights"><field_list> a b
			[]want{{"4|||", false}, {"1|||   :a: b", false}}},
		{"pull-quote", ".. pull-quote::\n   :a: b\n\n   c", // <block_quote classes="pull-quote"><field_list> a b; <paragraph> c
			[]want{{"4|||", false}, {"1|||   :a: b", false}, {"0|||", false}, {"1|||   c", false}}},
		{"header", ".. header::\n   :a: b", // <decoration><header><field_list> a b
			[]want{{"4|||", false}, {"1|||   :a: b", false}}},
		{"acks", ".. acks::\n   * a\n   :x: y", // Sphinx (not installed): Acks takes no arguments, nested_parse(self.content)
			[]want{{"4|||", false}, {"1|*||   * a", false}, {"1|||   :x: y", false}}},
		// 5. A field's body that starts with a bullet is read as that
		// list at the body's least indent, for every bullet (rstBullets):
		// the list ends at a line at the bullet's column.
		{"field bullet", "p\n\n:a: • x\n    more", // <field_body><bullet_list bullet="•"><paragraph> x; "Bullet list ends without a blank line"; <paragraph> more
			[]want{{"1|||p", false}, {"0|||", false}, {"1|||:a: • x", false}, {"1|||    more", false}}},
		{"field bullet deeper", "p\n\n:a: • x\n      more", // the body unindented by 6: "• x", "more": the same
			[]want{{"1|||p", false}, {"0|||", false}, {"1|||:a: • x", false}, {"1|||      more", false}}},
		{"field dash", "p\n\n:a: - x\n    more", // <bullet_list bullet="-"><paragraph> x; <paragraph> more
			[]want{{"1|||p", false}, {"0|||", false}, {"1|||:a: - x", false}, {"1|||    more", false}}},
	} {
		lines := strings.Split(c.page, "\n")
		r := readRSTLines(lines)
		if len(r) != len(c.want) {
			t.Fatalf("%s: %d lines, want %d", c.name, len(r), len(c.want))
		}
		for i, w := range c.want {
			if got := rst16View(r[i]); got != w.view || r[i].Option != w.option {
				t.Errorf("%s: line %d %q: %q option %v, want %q option %v", c.name, i+1, lines[i], got, r[i].Option, w.view, w.option)
			}
		}
	}
}
