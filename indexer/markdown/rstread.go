package markdown

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// The one reStructuredText reader (readRST): what a reader of an rst page
// sees on each line, by the docutils spec
// (https://docutils.sourceforge.io/docs/ref/rst/restructuredtext.html).
// The outline (Body), the indexed text and the summary
// (RSTLine.Shown) and the links and labels (RSTLine.Refs, Label, the
// toctree's entries) all come from it, so no rst rule is written twice.
//
// Block level, one pass over the lines with a stack of open blocks (each
// line pushes at most one, so the pass is linear however deep blocks
// nest); a block holds the lines indented more than its marker:
//   - explicit markup blocks, started by ".." and white space at the
//     line's indent: a footnote or citation (".. [1] text", shown), a
//     hyperlink target (".. _name:", ".. _name: URI", ".. __: URI", and
//     "__ URI"), a substitution definition (".. |name| type:: data"; a
//     "replace::" shows its text, where it is referred to), a directive
//     (".. type:: arguments", its options, its content), else a comment.
//     ".." alone and then a blank line is an empty comment that takes no
//     block; ".." with indented text at once after it is a comment.
//     "..." and "..text" are not explicit markup (text);
//   - a directive's arguments are shown except for a path, URI, language,
//     class or index entry (rstArgHidden); its options (the field list
//     before its first blank line) are not, but for ":caption:"; its
//     content is rst, read as any (a directive may hold directives), but
//     for the code directives (rstCodeDirectives), whose content is code,
//     and a toctree's, whose entries are links (shown: an entry's own
//     title);
//   - a directive that takes no arguments (rstNoArgs: a note, a
//     seealso) has content at once after its marker, and the text on its
//     marker line is that content's first line (docutils'
//     parse_directive_block);
//   - a literal block: the lines indented more than a paragraph that ends
//     with "::" (code: kept as written, for search);
//   - docinfo: a field list that is the document's first element, or the
//     first after its first title (":orphan:", ":tocdepth: 2"), is not
//     shown;
//   - a section title (rst.go's rules) only outside every block.
//
// Inline markup (RSTInline), in each text block (a paragraph's lines
// together) by the spec's recognition rules: interpreted text with a role
// shows its text (":ref:`the guide <label>`" is "the guide",
// ":func:`~a.b`" is "b"), a hyperlink reference its text ("`text <URI>`_"
// is "text", "name_" is "name"), inline literals, emphasis and
// substitutions are left as written (their words are the reader's);
// backslash escapes are shown as docutils shows them (rstUnescape), but in
// inline literals. A text block is a paragraph's lines, or an explicit
// markup line's shown part (a directive's argument, a footnote's text, a
// replacement text) with the lines that continue it (a directive's head,
// to its first option or blank line). A line that goes on with a text
// block is its text, whatever it starts with ("para⏎.. note:: x" is one
// paragraph). A paragraph that ends with "::" shows ":" ("Paragraph::"),
// or nothing after white space; a one-line one with a deeper line next
// is a definition list's term, shown as written.

// RSTKind is what a line of an rst document is to its reader (Doc.RST).
type RSTKind uint8

// The kinds of rst lines.
const (
	RSTBlank  RSTKind = iota
	RSTProse          // text: a paragraph, a list, a block quote, a table, a footnote, a directive's rst content
	RSTTitle          // a section title or its adornment
	RSTCode           // a literal block or a code directive's content, kept as written
	RSTMarkup         // not shown as written: a directive's marker and options, a comment, a target, a substitution definition, docinfo, a toctree entry
)

// RSTLine is one line of an rst document as its reader sees it.
type RSTLine struct {
	Kind RSTKind
	// Shown is the text a reader sees of the line: prose and titles with
	// their inline markup reduced, a code line as written; of a markup
	// line its shown part (an admonition's title, a caption, a footnote's
	// text, a toctree entry's own title), else "".
	Shown string
	// Directive is the type, in lower case, of the innermost directive
	// whose marker, option or content the line is ("" outside them).
	Directive string
	// Option marks a directive's option line; Entry a toctree's entry
	// (its one Ref is the link: Text the entry's own title, Target what
	// it links to).
	Option, Entry bool
	// Hidden marks the marker, options and entries of a toctree with the
	// ":hidden:" option: its page shows nothing of it (an entry's Shown is
	// ""), though its entries still link the pages (Sphinx's sidebar and
	// its next and previous links).
	Hidden bool
	// Item is the list marker, as written, of a line that starts a list
	// item ("*", "1.", "(a)"; "" on other lines): a bullet, or an
	// enumerator where docutils starts an item (rstReader.item: not inside a
	// paragraph, and the next line blank, indented or the next item of
	// the same list). The line's Shown starts with it, after its indent.
	// A list item's lines are a text block of their own: a role does not
	// span two items.
	Item string
	// Cont marks a line that continues the text block of the line above
	// (a paragraph's further lines; a directive's head, a footnote's or
	// a replacement text's lines after their marker's): a role may span
	// them, so they are read as one block.
	Cont bool
	// Label is the name of the internal hyperlink target (".. _name:")
	// this line defines, as written; Phrase says it was written in
	// backquotes (".. _`a phrase`:").
	Label  string
	Phrase bool
	// Refs are the interpreted text and hyperlink references that start
	// on this line.
	Refs []RSTRef
}

// RSTRef is one piece of interpreted text or a hyperlink reference.
type RSTRef struct {
	Role   string // "ref", "doc", "py:func"…; "" for a hyperlink reference or the default role
	Text   string // what the reader sees
	Target string // the target written in it (":ref:`x <target>`", "`x <URI>`_"); "" when none is
	Titled bool   // Text is a title written before the target ("x <target>")
	Link   bool   // a hyperlink reference ("`…`_", "name_")
}

// Leads reports whether r leads its reader to another page or place: a
// hyperlink reference (a toctree entry's too) or a cross-reference role
// (XRef). An API role (":func:`open`") names code more than it leads
// anywhere.
func (r RSTRef) Leads() bool {
	kind, _ := r.XRef()
	return kind != "" || r.Link
}

// XRef returns the kind of cross-reference r's role is, the one list of
// them: "doc", "ref", "numref", "term" or "any", with or without the
// "std:" domain, role names case-insensitive (docutils lower-cases them);
// external says it names another project's (Sphinx's ":external:ref:",
// ":external+inv:doc:"). Kind is "" for any other role.
func (r RSTRef) XRef() (kind string, external bool) {
	role := strings.ToLower(r.Role)
	if strings.HasPrefix(role, "external:") || strings.HasPrefix(role, "external+") {
		i := strings.IndexByte(role, ':')
		if i < 0 {
			return "", false
		}
		role, external = role[i+1:], true
	}
	switch role = strings.TrimPrefix(role, "std:"); role {
	case "doc", "ref", "numref", "term", "any":
		return role, external
	}
	return "", false
}

// rstCodeDirectives are the directives whose content is code or data, not
// rst: kept as written.
var rstCodeDirectives = map[string]bool{
	"code": true, "code-block": true, "sourcecode": true, "literalinclude": true, "highlight": true,
	"parsed-literal": true, "doctest": true, "testcode": true, "testoutput": true, "testsetup": true,
	"testcleanup": true, "ipython": true, "jupyter-execute": true, "math": true, "raw": true,
	"productionlist": true, "prompt": true, "code-cell": true, "graphviz": true, "digraph": true,
	"graph": true, "mermaid": true, "plantuml": true, "csv-table": true,
}

// rstArgHidden are the directives whose argument the page does not show
// as text: a path, URI, language, class names, a condition, index entries.
// Other directives' arguments (an admonition's or a topic's title, a
// signature, a version) are shown.
var rstArgHidden = map[string]bool{
	"image": true, "figure": true, "include": true, "literalinclude": true, "raw": true,
	"code": true, "code-block": true, "sourcecode": true, "highlight": true, "container": true,
	"class": true, "rst-class": true, "cssclass": true, "role": true, "default-role": true,
	"only": true, "tabularcolumns": true, "index": true, "meta": true, "toctree": true,
	"currentmodule": true, "module": true, "py:module": true, "py:currentmodule": true,
}

// rstQuoteChar reports whether c may start a quoted literal block: a
// printable 7-bit character that is not a letter or a digit.
func rstQuoteChar(c byte) bool {
	return c > ' ' && c < 0x7f && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9')
}

// rstRawHead reports whether directive typ's arguments are raw text,
// shown as written with their backslashes: math (LaTeX; docutils'
// math directive), the code directives, and Sphinx's object
// descriptions (a signature: strip_signature_backslash is off by
// default), named alone or with a domain ("py:function").
func rstRawHead(typ string) bool {
	return rstRawHeads[typ] || strings.Contains(typ, ":")
}

var rstRawHeads = map[string]bool{
	"math": true, "code": true, "code-block": true, "sourcecode": true, "highlight": true, "raw": true,
	// Sphinx's object descriptions in the default (py) domain and std's.
	"function": true, "data": true, "class": true, "exception": true, "method": true,
	"classmethod": true, "staticmethod": true, "attribute": true, "property": true,
	"decorator": true, "decoratormethod": true, "type": true,
	"option": true, "cmdoption": true, "envvar": true, "program": true, "describe": true, "object": true,
}

// rstRawRole reports whether role's text is raw (docutils 0.19's
// roles.py: code, math and raw take nodes.unescape(text, True), the text
// with its backslashes); role names are case-insensitive.
func rstRawRole(role string) bool {
	switch strings.ToLower(role) {
	case "code", "math", "raw":
		return true
	}
	return false
}

// rstNoArgs are the directives of rst content that take no arguments
// (docutils 0.19's admonitions but "admonition", compound, epigraph,
// highlights, pull-quote, header, footer; Sphinx's seealso, todo, hlist,
// glossary, acks): docutils' parse_directive_block reads the lines after their
// marker, before the options, as content, so content may start on the
// line after the marker with no blank line between (".. note::⏎
// 1. a⏎ 2. b", indented, is a list). A directive with arguments reads
// those lines, to the first blank line, as its arguments and options.
var rstNoArgs = map[string]bool{
	"attention": true, "caution": true, "danger": true, "error": true, "hint": true, "important": true,
	"note": true, "tip": true, "warning": true, "compound": true, "epigraph": true, "highlights": true,
	"pull-quote": true, "header": true, "footer": true, "seealso": true, "todo": true, "hlist": true,
	"glossary": true, "acks": true,
}

// rstNoOptions are the directives of rstNoArgs that take no options
// either (docutils 0.19's epigraph, highlights and pull-quote, BlockQuote
// with no option_spec, header and footer; Sphinx's acks, whose
// option_spec is empty): parse_directive_block reads every line after
// the marker as content, so ".. epigraph::⏎   :author: x" is a field
// list, shown.
var rstNoOptions = map[string]bool{
	"epigraph": true, "highlights": true, "pull-quote": true, "header": true, "footer": true, "acks": true,
}

// rstHiddenContent are the directives whose content is not shown.
var rstHiddenContent = map[string]bool{"index": true, "meta": true}

// Block kinds of readRST's stack.
const (
	bRST    = iota // content read as rst (a directive's, a footnote's)
	bCode          // a literal block, a code directive's content
	bMarkup        // a comment, a target, a substitution definition, a docinfo field: nothing shown
)

type rstBlock struct {
	indent     int // the marker's indent: the block holds the lines indented more
	kind       int
	directive  string
	head       bool // a directive's arguments and options: before its first blank line
	argShown   bool // its arguments' further lines are shown
	replace    bool // a substitution's "replace::" text: shown
	empty      bool // ".." alone: a blank line right after ends it
	untilBlank bool // a hyperlink target or a doctest block: a blank line ends it (docutils' until_blank)
	at         int  // a directive's marker line
	content    bool // a directive of rstNoArgs whose content started before its first blank line
	quote      byte // a quoted literal block's quote character: it holds the lines at its indent that start with it
	hidden     bool // a toctree with the ":hidden:" option
}

// rstIndent is the column of l's first non-blank character, tabs to the
// next multiple of 8 (docutils').
func rstIndent(l string) int {
	n := 0
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case ' ':
			n++
		case '\t':
			n = n/8*8 + 8
		default:
			return n
		}
	}
	return n
}

// rstColumn is the column after text s, which starts at column n: tabs
// to the next multiple of 8 and a character (not a byte) a column, as
// docutils counts. Its work is counted (rstWorked): callers must not
// count a line's columns again from its start for each tab.
func rstColumn(n int, s string) int {
	rstWorked(len(s))
	for _, c := range s {
		if c == '\t' {
			n = n/8*8 + 8
		} else {
			n++
		}
	}
	return n
}

// rstMarkupStart reports whether trimmed line t starts explicit markup:
// ".." then white space or the line's end.
func rstMarkupStart(t string) bool {
	return t == ".." || len(t) > 2 && t[0] == '.' && t[1] == '.' && (t[2] == ' ' || t[2] == '\t')
}

// rstField returns the body of a field list item ":name: body", ok false
// when t is not one: a name that is not empty, does not start with white
// space, ends before the first unescaped ":" followed by white space or
// the end.
func rstField(t string) (name, body string, ok bool) {
	if len(t) < 3 || t[0] != ':' || t[1] == ' ' || t[1] == '\t' || t[1] == ':' {
		return "", "", false
	}
	for i := 1; i < len(t); i++ {
		switch t[i] {
		case '\\':
			i++
		case '`':
			return "", "", false // a role (":ref:`x`"), not a field
		case ':':
			if i+1 == len(t) || t[i+1] == ' ' || t[i+1] == '\t' {
				if t[i-1] == ' ' {
					return "", "", false
				}
				return t[1:i], strings.TrimSpace(t[i+1:]), true
			}
		}
	}
	return "", "", false
}

// rstOptionMarker is docutils' option_marker: an option list item's
// options ("-a", "+b", "--long=ARG", "/V", separated by ", ") then two
// spaces or the line's end.
var rstOptionMarker = lazyre.New(`^` +
	// one option: "-a", "+b", "-a ARG", "--long=ARG", "/V"; ARG a word or <…>
	`((-|\+)[a-zA-Z0-9]( ?` + `([a-zA-Z][a-zA-Z0-9_-]*|<[^<>]+>)` + `)?|(--|/)[a-zA-Z0-9][a-zA-Z0-9_-]*([ =]` + `([a-zA-Z][a-zA-Z0-9_-]*|<[^<>]+>)` + `)?)` +
	// more, after ", "; then two spaces or the line's end
	`(, ` + `((-|\+)[a-zA-Z0-9]( ?` + `([a-zA-Z][a-zA-Z0-9_-]*|<[^<>]+>)` + `)?|(--|/)[a-zA-Z0-9][a-zA-Z0-9_-]*([ =]` + `([a-zA-Z][a-zA-Z0-9_-]*|<[^<>]+>)` + `)?)` + `)*(  +| ?$)`)

// rstLineBlock reports whether trimmed line t is a line block's line
// ("| ", "|"): its text goes on through every line after it indented
// more (docutils: a line block's line is inline text, never blocks).
func rstLineBlock(t string) bool {
	return t == "|" || strings.HasPrefix(t, "| ") || strings.HasPrefix(t, "|\t")
}

// rstIndentedBody returns the text after the marker of trimmed line t,
// ok when t starts a field list item (rstField) or an option list item
// (rstOptionMarker): docutils reads their bodies with
// get_first_known_indented, the text after the marker then every line
// after it indented more, their least indent removed. col is t's column
// in its line: docutils expands tabs before it reads a line, so an
// option then a tab ("-v⏎verbose", "-v" and six spaces) has a
// description.
func rstIndentedBody(t string, col int) (body string, ok bool) {
	if _, body, ok := rstField(t); ok {
		return body, true
	}
	if strings.IndexByte(t, '\t') >= 0 {
		t = rstDetab(t, col)
	}
	if m := rstOptionMarker().FindString(t); m != "" {
		return strings.TrimSpace(t[len(m):]), true
	}
	return "", false
}

// rstDetab is s, which starts at column col, with its tabs expanded to
// the next multiple of 8 columns (rstColumn's rule).
func rstDetab(s string, col int) string {
	var b strings.Builder
	for {
		j := strings.IndexByte(s, '\t')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		c := rstColumn(col, s[:j])
		col = c/8*8 + 8
		b.WriteString(s[:j])
		b.WriteString(strings.Repeat(" ", col-c))
		s = s[j+1:]
	}
}

// rstSimpleName returns the length of the reference name (docutils'
// simplename: words joined by single "-", ".", "_", "+" or ":") at the
// start of s, 0 when there is none.
func rstSimpleName(s string) int {
	n, sep := 0, true // sep: the previous character was a separator (or the start)
	for n < len(s) {
		r, w := utf8.DecodeRuneInString(s[n:])
		switch {
		case r != '_' && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)):
			sep = false
		case !sep && strings.ContainsRune("-._+:", r):
			sep = true
		default:
			if sep && n > 0 {
				return n - 1
			}
			return n
		}
		n += w
	}
	if sep && n > 0 {
		return n - 1
	}
	return n
}

// rstReader is readRST's state.
type rstReader struct {
	lines      []string
	out        []RSTLine
	b          Body
	styles     []rstStyle
	stack      []rstBlock
	pendingLit int       // the indent of a paragraph that ended with "::": a literal block may follow; -1 when none
	atStart    bool      // a title may start here
	lastBlank  int       // the last blank line read; -1 when none
	docinfo    int       // 0: before the first element; 1: after the first title; 2: over
	para       int       // the first line of the current text block, -1 when none
	paraItem   int       // the indent of the list item starting the text block; -1: none
	paraEdge   int       // the text block's left edge: its first line's indent, a list item's text column (rstIndentedBody: the least indent after it); -1: none (rstLineBlock)
	enums      []rstList // the open enumerated lists, innermost last
	// paraFirst, when not "", is the text block's first line's text: an
	// explicit markup line's shown part (a directive's argument, a
	// footnote's text, a replacement text), which the lines after it
	// continue.
	paraFirst string
	// paraAsIs: the text block is a definition list's term or a line
	// block's line, whose "::" is text, shown as written (no literal
	// block after it).
	paraAsIs bool
	// paraHead: the text block started on an explicit markup line (a
	// directive's head, a footnote's text, a replacement text) and goes
	// on through its block's lines.
	paraHead bool
	// paraRaw: the text block is a raw directive head (rstRawHead),
	// shown as written, with no inline markup and its backslashes.
	paraRaw bool
	// least is each line's content indent (contentIndents), built on
	// first use.
	least []int32
}

// rstStyle is a title's adornment: its character, and whether it has an
// overline. Each style is a level, in the order they first appear.
type rstStyle struct {
	c    byte
	over bool
}

// readRST reads rst document lines (Doc.Lines): each line as its reader
// sees it (Doc.RST), and the Body (titles and levels as docutils finds
// them; every line inside an explicit markup or literal block is Code).
// rstWork, when a test sets it, counts the reader's steps (bytes and
// blocks looked at), so a test can bound its work per byte without a
// clock (TestRSTLinearWork). Nil otherwise; set only by a test that does
// not run in parallel.
var rstWork *int

// rstWorked adds n steps to rstWork, if set.
func rstWorked(n int) {
	if rstWork != nil {
		*rstWork += n
	}
}

func readRST(lines []string) ([]RSTLine, Body) {
	r := &rstReader{lines: lines, out: make([]RSTLine, len(lines)), b: Body{Kinds: make([]Kind, len(lines))}, pendingLit: -1, lastBlank: -1, atStart: true, para: -1, paraItem: -1}
	for i := 0; i < len(lines); i++ {
		i = r.line(i)
	}
	r.flush(len(lines))
	return r.out, r.b
}

func (r *rstReader) blank(i int) bool {
	return i < 0 || i >= len(r.lines) || strings.TrimSpace(r.lines[i]) == ""
}

func (r *rstReader) level(s rstStyle) int {
	for i, e := range r.styles {
		if e == s {
			return min(i+1, 6)
		}
	}
	r.styles = append(r.styles, s)
	return min(len(r.styles), 6)
}

// flush reduces the inline markup of the text block that ends before end.
// A paragraph that ends with "::" shows ":" ("Paragraph::" is
// "Paragraph:"), or nothing after white space ("Paragraph ::" is
// "Paragraph"): the spec's expanded form of the literal block marker.
func (r *rstReader) flush(end int) {
	if r.para < 0 {
		return
	}
	ls := r.lines[r.para:end]
	if r.paraFirst != "" {
		ls = append([]string{r.paraFirst}, ls[1:]...)
		r.paraFirst = ""
	}
	out := r.out[r.para:end]
	r.para, r.paraItem, r.paraHead = -1, -1, false
	asIs := r.paraAsIs
	r.paraAsIs = false
	for k := 1; k < len(out); k++ {
		out[k].Cont = true
	}
	if r.paraRaw {
		r.paraRaw = false
		for k := range out {
			out[k].Shown = ls[k]
		}
		return
	}
	rstInlineLines(ls, out)
	last := &out[len(out)-1]
	lit, spaced := rstLiteralMarker(ls[len(ls)-1])
	if !lit || asIs {
		return
	}
	if shown := strings.TrimRight(last.Shown, " \t"); strings.HasSuffix(shown, "::") {
		shown = shown[:len(shown)-2]
		if spaced {
			last.Shown = strings.TrimRight(shown, " \t")
		} else {
			last.Shown = shown + ":"
		}
	}
}

// rstLiteralMarker reports whether line (as written) ends with the
// literal block marker "::" (docutils: `(?<!\\)(\\\\)*::$`, so not after
// an odd run of backslashes), and whether white space, or nothing, comes
// before it ("Paragraph ::", "Text\ ::", "::": the marker then shows
// nothing; else it shows ":").
func rstLiteralMarker(line string) (lit, spaced bool) {
	t := strings.TrimRight(line, " \t")
	if !strings.HasSuffix(t, "::") || escaped(t, len(t)-2) {
		return false, false
	}
	t = t[:len(t)-2]
	return true, t == "" || t[len(t)-1] == ' ' || t[len(t)-1] == '\t'
}

// textLine adds line i to the current text block, or starts one.
func (r *rstReader) textLine(i int) {
	if r.para < 0 {
		r.para = i
	}
}

// line reads line i and returns the last line it read (a title reads its
// underline).
func (r *rstReader) line(i int) int {
	l := r.lines[i]
	if r.blank(i) {
		r.flush(i)
		r.b.Kinds[i] = Blank
		r.atStart = true
		if n := len(r.stack); n > 0 {
			if r.stack[n-1].empty || r.stack[n-1].untilBlank {
				r.stack = r.stack[:n-1]
			}
		}
		// A blank line ends the head of every open directive, however
		// deep in it (a footnote, a comment, a nested directive in a
		// note's content): inBlock ends a head when it next reads a line
		// in it (lastBlank after its marker).
		r.lastBlank = i
		return i
	}
	n := rstIndent(l)
	depth := len(r.stack)
	for len(r.stack) > 0 && n <= r.stack[len(r.stack)-1].indent {
		r.stack = r.stack[:len(r.stack)-1]
	}
	if k := len(r.stack); k > 0 && r.stack[k-1].quote != 0 && (n != r.stack[k-1].indent+1 || l[len(l)-len(strings.TrimLeft(l, " \t"))] != r.stack[k-1].quote) {
		// A quoted literal block ends at a line indented otherwise or
		// starting with another character (docutils: "Inconsistent
		// literal block quoting", "Unexpected indentation"), which is
		// read as any.
		r.stack = r.stack[:k-1]
	}
	rstWorked(1 + len(l) + depth - len(r.stack))
	if k := len(r.stack); k > 0 {
		r.stack[k-1].empty = false
	}
	if r.pendingLit >= 0 {
		if n > r.pendingLit {
			r.stack = append(r.stack, rstBlock{indent: r.pendingLit, kind: bCode})
		} else if t := strings.TrimLeft(l, " \t"); n == r.pendingLit && t != "" && rstQuoteChar(t[0]) && r.blank(i-1) {
			// A quoted literal block: unindented lines that start with a
			// non-alphanumeric printable 7-bit character, up to a blank
			// line (docutils' QuotedLiteralBlock), after a blank line
			// (without one the line goes on with the paragraph, whose
			// "::" is then not its end: docutils 0.19 shows "a::⏎(b) x"
			// as one paragraph).
			r.stack = append(r.stack, rstBlock{indent: n - 1, kind: bCode, untilBlank: true, quote: t[0]})
		}
		r.pendingLit = -1
	}
	if len(r.stack) != depth {
		r.flush(i)
	}
	t := strings.TrimSpace(l)
	if len(r.stack) > 0 {
		if r.inBlock(i, t) {
			return i
		}
	} else {
		if end := r.title(i, n); end >= 0 {
			return end
		}
		if r.docinfoField(i, n, t) {
			return i
		}
	}
	r.body(i, n, t)
	return i
}

// inBlock reads line i (trimmed t) inside the innermost open block, and
// reports whether it is done: false for a line of rst content, which
// body reads.
func (r *rstReader) inBlock(i int, t string) bool {
	l, out := r.lines[i], &r.out[i]
	top := &r.stack[len(r.stack)-1]
	if top.head && r.lastBlank > top.at {
		top.head = false // a blank line since its marker (docutils: the arguments and options end there)
	}
	out.Directive, out.Hidden = top.directive, top.hidden
	r.b.Kinds[i] = Code
	r.atStart = false
	switch {
	case top.kind == bCode && !top.head:
		out.Kind, out.Shown = RSTCode, l
		if top.directive == "parsed-literal" {
			rstInlineText(l, out) // code whose inline markup is parsed
		}
	case top.kind == bMarkup:
		out.Kind = RSTMarkup
		if top.replace {
			r.textLine(i) // the replacement text's further lines
			return true
		}
	case top.head:
		out.Kind = RSTMarkup
		if name, body, ok := rstField(t); ok && !rstNoOptions[top.directive] && !(rstNoArgs[top.directive] && rstIndent(l) != r.contentIndent(top.at)) {
			// An option: a field at the content's indent (docutils'
			// parse_directive_options matches a field marker at the start
			// of a line of the block get_first_known_indented unindents;
			// one indented more, in a note's content, is a field list).
			out.Option = true
			if name == "caption" {
				rstInlineText(body, out)
			}
			if name == "hidden" && top.directive == "toctree" {
				top.hidden = true
				for j := top.at; j <= i; j++ {
					r.out[j].Hidden = true // its marker and options so far
					r.out[j].Shown = ""    // a caption before ":hidden:"
				}
			}
			if top.hidden {
				out.Shown = "" // a caption after it: the page shows none
			}
		} else if top.directive == "toctree" {
			rstEntry(t, out) // entries right after the marker, with no options
			if top.hidden {
				out.Shown = ""
			}
		} else if top.kind == bCode {
			out.Kind, out.Shown = RSTCode, l // code right after the marker: kept
		} else if rstNoArgs[top.directive] && (top.content || r.para < 0) {
			// Content right after the marker, which had no text: rst,
			// read as any (with text there, these lines go on with it).
			top.content = true
			return false
		} else if top.argShown {
			// The head's lines are one text block with the marker's
			// argument: a role may span them.
			if r.para < 0 {
				r.paraRaw = rstRawHead(top.directive)
			}
			r.textLine(i)
			if lit, _ := rstLiteralMarker(t); lit {
				r.pendingLit = rstIndent(l)
			}
			return true
		}
	case top.directive == "toctree":
		out.Kind = RSTMarkup
		rstEntry(t, out)
		if top.hidden {
			out.Shown = "" // the page shows nothing of a hidden toctree
		}
	case rstHiddenContent[top.directive]:
		out.Kind = RSTMarkup
	default:
		return false
	}
	r.flush(i)
	return true
}

// title reads a section title at line i (indent n) outside every block,
// and returns its last line; -1 when there is none.
func (r *rstReader) title(i, n int) int {
	lines, l := r.lines, r.lines[i]
	start := r.atStart
	r.atStart = false
	if !start {
		return -1
	}
	width := func(l string) int { return utf8.RuneCountInString(strings.TrimSpace(l)) }
	text, at, end, st := -1, -1, -1, rstStyle{}
	if c := rstAdornment(l); c != 0 && i+2 < len(lines) && !r.blank(i+1) && rstAdornment(lines[i+1]) == 0 &&
		strings.TrimRight(lines[i+2], " \t") == strings.TrimRight(l, " \t") && longEnough(len(strings.TrimRight(l, " \t")), width(lines[i+1])) {
		text, at, end, st = i+1, i, i+2, rstStyle{c, true}
	} else if n == 0 && rstAdornment(l) == 0 && i+1 < len(lines) {
		if c := rstAdornment(lines[i+1]); c != 0 && longEnough(len(strings.TrimRight(lines[i+1], " \t")), width(l)) {
			text, at, end, st = i, i, i+1, rstStyle{c, false}
		}
	}
	if text < 0 {
		return -1
	}
	r.flush(i)
	r.enums = r.enums[:0]
	for j := at; j <= end; j++ {
		r.b.Kinds[j] = HeadingCont
		r.out[j] = RSTLine{Kind: RSTTitle, Shown: lines[j]}
	}
	r.b.Kinds[text] = HeadingLine
	h := rstInlineText(strings.TrimSpace(lines[text]), &r.out[text])
	r.b.Headings = append(r.b.Headings, Heading{Level: r.level(st), Text: h, Line: at})
	r.atStart = true
	r.docinfo = min(r.docinfo+1, 2) // docinfo may follow the first title only
	return end
}

// docinfoField reads line i (indent n, trimmed t) outside every block as
// a field of the docinfo, if it is one: a field list that is the
// document's first element or the first after its first title.
func (r *rstReader) docinfoField(i, n int, t string) bool {
	r.b.Kinds[i] = Text
	if r.docinfo >= 2 || n != 0 || r.para >= 0 {
		return false
	}
	if _, _, ok := rstField(t); ok {
		r.out[i].Kind = RSTMarkup
		r.b.Kinds[i] = Code
		r.stack = append(r.stack, rstBlock{indent: 0, kind: bMarkup})
		return true
	}
	if !rstMarkupStart(t) && !strings.HasPrefix(t, "__ ") && t != "__" {
		r.docinfo = 2 // comments and targets may come before it
	}
	return false
}

// body reads line i (indent n, trimmed t) as rst body: explicit markup,
// or text (a paragraph's line; one that ends with "::" announces a
// literal block; "::" alone shows nothing, the spec's expanded form).
func (r *rstReader) body(i, n int, t string) {
	// cont: the line goes on with the open text block (see the edge
	// below). Whatever it starts with, it is then that block's text:
	// docutils reads a paragraph's next lines as its text, so "para⏎..
	// note:: x", "para⏎>>> x" and "::⏎>>> x" are each one paragraph.
	cont := r.para >= 0 && (r.paraHead || !(r.paraEdge >= 0 && n != r.paraEdge || r.paraItem >= 0 && n <= r.paraItem))
	if !cont && (rstMarkupStart(t) || t == "__" || strings.HasPrefix(t, "__ ")) {
		r.flush(i)
		r.endLists(n)
		if len(r.stack) == 0 {
			r.b.Kinds[i] = Code
		}
		blk, head := rstExplicit(t, n, &r.out[i])
		if blk.directive != "" || blk.kind == bRST {
			r.docinfo = 2 // only comments, targets and substitutions may come before docinfo
		}
		blk.at = i
		r.stack = append(r.stack, blk)
		if head != "" && rstNoArgs[blk.directive] && !rstMarkupStart(head) && head != "::" && !strings.HasPrefix(head, ">>>") {
			// The text on the marker's line of a directive that takes no
			// arguments is its content's first line (parse_directive_block),
			// at the content's indent (get_first_known_indented: the
			// least indent of the lines after it): ".. note:: 1. a⏎   2.
			// b" is a list, ".. note:: a⏎     b" a term and its
			// definition.
			c := r.contentIndent(i)
			if c < 0 {
				c = n + 3
			}
			r.stack[len(r.stack)-1].content = true
			r.text(i, c, head, head, c)
			r.paraFirst = head
			r.out[i].Kind = RSTMarkup
			return
		}
		if head != "" {
			r.para, r.paraFirst, r.paraRaw, r.paraHead = i, head, rstRawHead(blk.directive), true
			if lit, _ := rstLiteralMarker(head); lit && blk.kind == bRST {
				r.pendingLit = r.contentIndent(i)
			}
		}
		return
	}
	r.text(i, n, t, r.lines[i], 0)
}

// text reads line i (indent n, trimmed t) as text, which goes on with the
// open text block (cont) or starts one: a paragraph's line, a list item,
// a field, an option, a line block's line, a doctest. s is the line's
// text from column col (the whole line, or the text on a directive's
// marker line).
func (r *rstReader) text(i, n int, t, s string, col0 int) {
	cont := r.para >= 0 && (r.paraHead || !(r.paraEdge >= 0 && n != r.paraEdge || r.paraItem >= 0 && n <= r.paraItem))
	r.out[i].Kind = RSTProse
	if r.para >= 0 && !cont {
		// A text block's lines are flush with its left edge (a list
		// item's: its text's column): a line indented more starts a
		// block of its own (docutils: a definition after a one-line
		// paragraph, else "unexpected indentation" and a block quote;
		// after an item's marker with no text, the item's content), one
		// indented less ends the block it was in (not indented into a
		// list item: another item, or the list ends). A field's body
		// and an option's description with text on their marker's line:
		// the edge is the least indent of the lines after it (docutils
		// reads them with get_first_known_indented, which removes it). A
		// line block's line has no edge (-1): every line indented more
		// than its marker goes on with its text.
		r.flush(i)
	}
	first := r.para < 0
	if t == "::" && first && (r.blank(i+1) || rstIndent(r.lines[i+1]) < n) {
		// "::" alone, a paragraph of its own (a blank or shallower line
		// next; a deeper one makes it a term, one at its indent its
		// paragraph's next line), shown as nothing
		r.flush(i)
		r.para = -1
		r.endLists(n) // a paragraph: it ends the lists at its indent
		r.pendingLit = n
		return
	}
	if first && (t == ">>>" || strings.HasPrefix(t, ">>> ")) {
		// A doctest block: literal until the next blank line. It ends
		// the enumerated lists at its indent (docutils: "h. a⏎⏎>>> x⏎⏎i.
		// b" has one list, "i." is Roman after it).
		r.endLists(n)
		r.out[i].Kind, r.out[i].Shown = RSTCode, r.lines[i]
		r.b.Kinds[i] = Code
		r.stack = append(r.stack, rstBlock{indent: n - 1, kind: bCode, untilBlank: true})
		return
	}
	term := false // a text block that may be a definition list's term
	if first {
		r.para, r.paraEdge = i, n
		term = true
		if m := r.item(i, n, t); m != "" {
			r.out[i].Item, r.paraItem = m, n
			col, k := r.textCol(i, s, col0)
			r.paraEdge = col
			// A field, option or line block on the item's marker line
			// ("- :a: x", "1. | x", "* -v  x") is read as on a line of its
			// own at the item's text column: a line at that column ends it
			// (docutils: "Field list ends without a blank line"), a deeper
			// one goes on (its body: the least indent of the lines after
			// the marker's, if deeper than the text column, else the next
			// line's).
			rest := s[k:]
			if rstLineBlock(rest) {
				r.paraItem, r.paraEdge, r.paraAsIs = col, -1, true
			} else if body, ok := rstIndentedBody(rest, col); ok && body != "" {
				r.paraItem, term = col, false
				if r.paraEdge = r.contentIndent(i); r.paraEdge <= col && !r.blank(i+1) {
					r.paraEdge = rstIndent(r.lines[i+1])
				}
			} else if _, _, ok := rstField(rest); ok {
				// a field with no text (an option with none is text: "* -v⏎
				// x" is one paragraph, as at the top level)
				r.paraItem, term = col, false
			}
		} else if rstLineBlock(t) {
			r.paraItem, r.paraEdge, r.paraAsIs = n, -1, true
		} else if body, ok := rstIndentedBody(t, n); ok && body != "" {
			term = false
			r.paraItem, r.paraEdge = n, r.contentIndent(i)
			// A body whose text starts a nested block is read as that
			// block at the body's least indent (docutils: ":a: - x⏎
			// more" is "x" | "more"): a bullet's item goes on through
			// its text column; a line block, field or option through any
			// deeper line.
			if least := r.paraEdge; least >= 0 {
				if m := rstItemMarker(body); m > 0 && rstBullet(body) == m {
					// its text column: the bullet (one character) and the white space after it
					r.paraItem, r.paraEdge = least, least+1+len(body[m:])-len(strings.TrimLeft(body[m:], " \t"))
				} else if _, nested := rstIndentedBody(body, least); nested || rstLineBlock(body) {
					r.paraItem, r.paraEdge, r.paraAsIs = least, -1, rstLineBlock(body)
				}
			}
		} else if _, _, ok := rstField(t); ok {
			r.paraItem, term = n, false // a field with no text: a line at its indent ends it
		}
	}
	if lit, _ := rstLiteralMarker(t); lit && term && !r.blank(i+1) && rstIndent(r.lines[i+1]) > r.paraEdge {
		// A one-line paragraph (or item's text) then a line indented
		// more, no blank line between: a definition list's term, shown
		// as written (docutils: "Blank line missing before literal block
		// (after the "::")? Interpreted as a definition list item.").
		r.paraAsIs = true
	} else if lit && !r.paraAsIs {
		// The literal block is indented more than the paragraph's left
		// edge: in a list item ("* - ::"), where its text starts.
		r.pendingLit = n
		if first && r.out[i].Item != "" {
			r.pendingLit, _ = r.textCol(i, s, col0)
		}
	}
}

// contentIndent is the indent of the rst content of the directive or
// footnote whose marker is line i: the least indent of the lines after
// the marker up to the first non-blank line indented no more than the
// marker's line (docutils' get_first_known_indented removes
// it; a paragraph on the marker line, ".. note:: Example::", is at that
// indent, so a literal block after it is the lines indented more). -1
// when it has none. The least indents of every line's block are found
// once, on first use, in one pass (contentIndents), so a page of many
// nested heads stays linear however long their blocks are.
func (r *rstReader) contentIndent(i int) int {
	if r.least == nil {
		r.least = contentIndents(r.lines)
	}
	return int(r.least[i])
}

// contentIndents returns, for each line i, the least indent of the
// non-blank lines after it up to the first non-blank line indented no
// more than it (-1 when there are none; -1 for a blank line). One pass
// back with a stack: after line i+1 is read, the stack holds the lines
// after i whose indent is less than every non-blank line's between i
// and them (the prefix minima of the indents after i, least last), one
// line an indent, so the block of line i ends at the first of them
// indented no more than it, and its least indent is the last one popped
// that is indented more.
func contentIndents(lines []string) []int32 {
	least := make([]int32, len(lines))
	var stack []int32 // distinct indents, the least at the bottom
	for i := len(lines) - 1; i >= 0; i-- {
		least[i] = -1
		if strings.TrimSpace(lines[i]) == "" {
			continue
		}
		n := int32(rstIndent(lines[i]))
		rstWorked(1 + int(n))
		for len(stack) > 0 && stack[len(stack)-1] >= n {
			if stack[len(stack)-1] > n {
				least[i] = stack[len(stack)-1]
			}
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, n)
	}
	return least
}

// rstItemMarker is the length of the list marker that starts trimmed
// line t, followed by white space or the line's end; 0 when none does.
func rstItemMarker(t string) int {
	if m := rstListMarker(t); m > 0 && (m == len(t) || t[m] == ' ' || t[m] == '\t') {
		return m
	}
	return 0
}

// rstList is an open enumerated list (docutils' EnumeratedList state):
// the next item at its indent must have its format, its sequence and the
// next ordinal, or "#" (then every later one must).
type rstList struct {
	indent int
	format byte   // '.' ("1."), ')' ("1)") or '(' ("(1)")
	seq    byte   // the list's sequence (rstSeq; an auto list's is arabic)
	next   string // the ordinal the next item must have, in decimal
	auto   bool   // an item was "#": only "#" may follow
}

// item returns the list marker of line i (indent n, trimmed t), the first
// of a text block, when it starts a list item ("" when not): a bullet, or
// an enumerator where docutils starts an item (states.py, Body.enumerator
// and EnumeratedList.enumerator): the next item of the open list at this
// indent (the same format, its sequence, the next ordinal, or "#"), else
// the first of a new list; either way only when its ordinal is valid and
// its next line is blank, indented, outside its block or starts with the
// next enumerator (is_enumerated_list_item: "1. a⏎3. b" and "A. Einstein
// was⏎a smart man" are paragraphs).
func (r *rstReader) item(i, n int, t string) string {
	r.endLists(n + 1)
	var top *rstList
	if k := len(r.enums); k > 0 && r.enums[k-1].indent == n {
		top = &r.enums[k-1]
	}
	m := rstItemMarker(t)
	e, ok := rstEnumerator(t[:m])
	if m == 0 || !ok {
		r.endLists(n)
		return t[:m] // a bullet, or no item
	}
	if top != nil {
		seq, ord := rstSeq(e.text, top.seq)
		if e.format == top.format && (seq == '#' || seq == top.seq && !top.auto && ord == top.next) && r.enumItem(i, n, e.format, seq, ord) {
			top.auto = top.auto || seq == '#'
			top.next = rstIncr(ord)
			return t[:m]
		}
	}
	r.endLists(n) // a different enumeration: a new list, if any
	seq, ord := rstSeq(e.text, 0)
	if !r.enumItem(i, n, e.format, seq, ord) {
		return ""
	}
	l := rstList{indent: n, format: e.format, seq: seq, next: rstIncr(ord), auto: seq == '#'}
	if l.auto {
		l.seq = '1'
	}
	r.enums = append(r.enums, l)
	return t[:m]
}

// endLists ends the open enumerated lists at indent n or more.
func (r *rstReader) endLists(n int) {
	for len(r.enums) > 0 && r.enums[len(r.enums)-1].indent >= n {
		r.enums = r.enums[:len(r.enums)-1]
	}
}

// enumItem is docutils' is_enumerated_list_item for the enumerator of
// line i (indent n) with the given format, sequence and ordinal: the
// ordinal is valid, and the next line is blank, indented more, outside
// the item's block (indented less: docutils' end of input) or starts with
// the next enumerator or "#" in the same format, then white space; when
// the sequence has no next enumerator (make_enumerator: past "z", past
// 4,999), only a blank, indented or outside line.
func (r *rstReader) enumItem(i, n int, format, seq byte, ord string) bool {
	if ord == "" {
		return false
	}
	if r.blank(i + 1) {
		return true
	}
	next := r.lines[i+1]
	if rstIndent(next) != n {
		return true
	}
	nt := strings.TrimSpace(next)
	rstWorked(len(ord) + 8)
	starts := func(enum string) bool {
		m := rstWrapEnum(enum, format)
		return len(nt) > len(m) && strings.HasPrefix(nt, m) && (nt[len(m)] == ' ' || nt[len(m)] == '\t')
	}
	// No next ordinal ("z." is the last letter): not "#" either.
	enum := rstMakeEnum(rstIncr(ord), seq)
	return enum != "" && (starts(enum) || starts("#"))
}

// rstWrapEnum writes enumerator text enum in format ("1" in '(' is "(1)").
func rstWrapEnum(enum string, format byte) string {
	if format == '(' {
		return "(" + enum + ")"
	}
	return enum + string(format)
}

// rstEnum is an enumerator as written: its text without its format
// ("iv" of "(iv)"), and its format: '.' ("1."), ')' ("1)") or '('
// ("(1)").
type rstEnum struct {
	text   string
	format byte
}

// rstEnumerator reads the enumerator at the start of s (docutils'
// enumerator pattern): "#", a number, one letter, or a Roman numeral's
// letters all lower or all upper case; then "." or ")", or between "("
// and ")". ok is false when s is not one enumerator, whole.
func rstEnumerator(s string) (e rstEnum, ok bool) {
	open := 0
	if s != "" && s[0] == '(' {
		open = 1
	}
	k := open
	digit := func(c byte) bool { return '0' <= c && c <= '9' }
	switch {
	case k >= len(s):
		return e, false
	case s[k] == '#':
		k++
	case digit(s[k]):
		for k < len(s) && digit(s[k]) {
			k++
		}
	case 'a' <= s[k] && s[k] <= 'z' || 'A' <= s[k] && s[k] <= 'Z':
		k++
		// One letter, else a Roman numeral's letters in one case.
		roman := "ivxlcdm"
		if s[open] < 'a' {
			roman = "IVXLCDM"
		}
		if k < len(s) && strings.IndexByte(roman, s[k]) >= 0 && strings.IndexByte(roman, s[open]) >= 0 {
			for k < len(s) && strings.IndexByte(roman, s[k]) >= 0 {
				k++
			}
		}
	default:
		return e, false
	}
	if k >= len(s) || !(s[k] == ')' || open == 0 && s[k] == '.') {
		return e, false
	}
	e.text, e.format = s[open:k], s[k]
	if open == 1 {
		e.format = '('
	}
	return e, k+1 == len(s)
}

// rstSeq returns the sequence of enumerator text ('#' auto, '1' arabic,
// 'a' and 'A' alphabetic, 'i' and 'I' Roman) and its ordinal in decimal
// ("" when it is not a valid numeral: docutils' ordinal None), as
// docutils' parse_enumerator: "#" is auto (ordinal 1); expected, when
// not 0, is tried first; "i" and "I" are Roman; else the first sequence
// of arabic, lower and upper alphabetic, lower and upper Roman that the
// text matches ("v" is alphabetic, 22).
func rstSeq(text string, expected byte) (seq byte, ord string) {
	if text == "#" {
		return '#', "1"
	}
	switch {
	case expected != 0:
		if rstSeqMatch(expected, text) {
			seq = expected
		}
	case text == "i" || text == "I":
		seq = text[0]
	}
	if seq == 0 {
		for _, q := range [...]byte{'1', 'a', 'A', 'i', 'I'} {
			if rstSeqMatch(q, text) {
				seq = q
				break
			}
		}
	}
	switch seq {
	case '1':
		if ord = strings.TrimLeft(text, "0"); ord == "" {
			ord = "0"
		}
	case 'a', 'A':
		ord = strconv.Itoa(int(text[0]|0x20-'a') + 1)
	case 'i', 'I':
		if v := rstFromRoman(strings.ToUpper(text)); v > 0 {
			ord = strconv.Itoa(v)
		}
	}
	return seq, ord
}

// rstSeqMatch reports whether text is written in sequence seq (docutils'
// sequencepats, whole).
func rstSeqMatch(seq byte, text string) bool {
	set := ""
	switch seq {
	case '1':
		set = "0123456789"
	case 'a':
		return len(text) == 1 && 'a' <= text[0] && text[0] <= 'z'
	case 'A':
		return len(text) == 1 && 'A' <= text[0] && text[0] <= 'Z'
	case 'i':
		set = "ivxlcdm"
	case 'I':
		set = "IVXLCDM"
	}
	return text != "" && strings.Trim(text, set) == ""
}

// rstRomans are the Roman numerals' values, largest first.
var rstRomans = [...]struct {
	s string
	v int
}{{"M", 1000}, {"CM", 900}, {"D", 500}, {"CD", 400}, {"C", 100}, {"XC", 90}, {"L", 50}, {"XL", 40}, {"X", 10}, {"IX", 9}, {"V", 5}, {"IV", 4}, {"I", 1}}

// rstToRoman writes v (1 to 4,999, docutils' roman.toRoman; "" out of
// that range) as an upper-case Roman numeral.
func rstToRoman(v int) string {
	if v < 1 || v > 4999 {
		return ""
	}
	var b strings.Builder
	for _, r := range rstRomans {
		for ; v >= r.v; v -= r.v {
			b.WriteString(r.s)
		}
	}
	return b.String()
}

// rstFromRoman is the value of upper-case Roman numeral s, 0 when it is
// not one as docutils' roman.fromRoman reads them (its pattern,
// M{0,4}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3}), accepts
// exactly the numerals toRoman writes).
func rstFromRoman(s string) int {
	if len(s) > len("MMMMDCCCLXXXVIII") {
		return 0
	}
	v, rest := 0, s
	for _, r := range rstRomans {
		for strings.HasPrefix(rest, r.s) {
			v, rest = v+r.v, rest[len(r.s):]
		}
	}
	if rest != "" || rstToRoman(v) != s {
		return 0
	}
	return v
}

// rstIncr is decimal number d plus one.
func rstIncr(d string) string {
	b := []byte(d)
	for k := len(b) - 1; k >= 0; k-- {
		if b[k] < '9' {
			b[k]++
			return string(b)
		}
		b[k] = '0'
	}
	return "1" + string(b)
}

// rstMakeEnum writes ordinal ord (decimal) in sequence seq (docutils'
// make_enumerator); "" when the sequence has no such ordinal (past "z",
// past 4,999 in Roman numerals).
func rstMakeEnum(ord string, seq byte) string {
	switch seq {
	case '#':
		return "#"
	case '1':
		return ord
	}
	v, err := strconv.Atoi(ord)
	if err != nil {
		return ""
	}
	switch seq {
	case 'a', 'A':
		if v > 26 {
			return ""
		}
		return string(rune(seq) + rune(v) - 1)
	case 'i':
		return strings.ToLower(rstToRoman(v))
	case 'I':
		return rstToRoman(v)
	}
	return ""
}

// textCol is the column where the text of line i, which starts a list
// item, begins after its indent and its list markers ("* ", "1. ",
// "(a) ", each followed by white space): after the first, a bullet always
// (docutils starts a bullet item there), an enumerator only where
// docutils starts an item there (enumItem at its column: the next line
// blank, indented more, outside its block or the next enumerator; "- 2.
// see⏎  more" is one item whose text is "2. see more").
//
// l is the line's text from column col (the whole line, or the text on a
// directive's marker line); k is where its text starts in l.
func (r *rstReader) textCol(i int, l string, col int) (_, k int) {
	for first := true; ; first = false {
		for k < len(l) && (l[k] == ' ' || l[k] == '\t') {
			if l[k] == '\t' {
				col = col/8*8 + 8
			} else {
				col++
			}
			k++
		}
		m := rstItemMarker(l[k:])
		if m == 0 || k+m >= len(l) {
			return col, k
		}
		if e, ok := rstEnumerator(l[k : k+m]); ok && !first {
			if seq, ord := rstSeq(e.text, 0); !r.enumItem(i, col, e.format, seq, ord) {
				return col, k
			}
		}
		col += utf8.RuneCountInString(l[k : k+m])
		k += m
	}
}

// rstBullets are rst's bullet list markers (docutils' bullet pattern,
// [-+*\u2022\u2023\u2043]): their one list.
var rstBullets = [...]string{"*", "-", "+", "•", "‣", "⁃"}

// rstBullet is the length in bytes of the bullet (rstBullets, one
// character each) at the start of s, 0 when there is none.
func rstBullet(s string) int {
	for _, b := range rstBullets {
		if strings.HasPrefix(s, b) {
			return len(b)
		}
	}
	return 0
}

// rstListMarker is the length of the bullet (rstBullets) or enumerator
// (rstEnumerator) at the start of s, 0 when there is none. The one rule
// of list markers (RSTLine.Item).
func rstListMarker(s string) int {
	if b := rstBullet(s); b > 0 {
		return b
	}
	for k := 0; k < len(s); k++ {
		if c := s[k]; c == '.' || c == ')' {
			if _, ok := rstEnumerator(s[:k+1]); ok {
				return k + 1
			}
			return 0
		}
		if k > 0 && !(s[k] >= '0' && s[k] <= '9' || s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z' || s[k] == '#') {
			return 0
		}
	}
	return 0
}

// rstExplicit reads an explicit markup start (trimmed line t, at indent n)
// into line and returns the block it opens, and its shown part (a
// footnote's text, a directive's shown argument, a replacement text), the
// first line of a text block that the block's next lines may continue; ""
// when nothing is shown.
func rstExplicit(t string, n int, line *RSTLine) (rstBlock, string) {
	line.Kind = RSTMarkup
	blk := rstBlock{indent: n, kind: bMarkup}
	if t == "__" || strings.HasPrefix(t, "__ ") {
		blk.untilBlank = true
		return blk, "" // an anonymous target
	}
	rest := strings.TrimSpace(t[2:])
	switch {
	case rest == "":
		blk.empty = true // ".." alone: a comment, empty when a blank line follows
		return blk, ""
	case rest[0] == '[':
		// A footnote (".. [1]", ".. [#]", ".. [#name]", ".. [*]") or a citation.
		if j := strings.IndexByte(rest, ']'); j > 1 && (j+1 == len(rest) || rest[j+1] == ' ' || rest[j+1] == '\t') {
			label := rest[1:j]
			if label == "*" || label == "#" || strings.TrimLeft(label, "0123456789") == "" ||
				(label[0] == '#' && rstSimpleName(label[1:]) == len(label)-1) || rstSimpleName(label) == len(label) {
				line.Kind = RSTProse
				return rstBlock{indent: n, kind: bRST}, strings.TrimSpace(rest[j+1:])
			}
		}
	case rest[0] == '_':
		// A hyperlink target: "_name: URI", "_`a name`: URI", "__: URI".
		name, ok := "", false
		if strings.HasPrefix(rest, "_`") {
			if j := strings.Index(rest[2:], "`:"); j >= 0 {
				name, ok = rest[2:2+j], true
				line.Phrase = true
				rest = rest[2+j+2:]
			}
		} else {
			for j := 1; j < len(rest); j++ {
				if rest[j] == '\\' {
					j++
					continue
				}
				if rest[j] == ':' && (j+1 == len(rest) || rest[j+1] == ' ' || rest[j+1] == '\t') {
					name, ok = rest[1:j], true
					rest = rest[j+1:]
					break
				}
			}
		}
		if ok {
			if name != "_" && name != "" && strings.TrimSpace(rest) == "" {
				line.Label = name
			}
			blk.untilBlank = true
			return blk, ""
		}
	case rest[0] == '|':
		// A substitution definition: "|name| type:: data".
		if j := strings.IndexByte(rest[1:], '|'); j > 0 {
			def := strings.TrimSpace(rest[j+2:])
			if k := strings.Index(def, "::"); k > 0 && rstSimpleName(def) == k {
				head := ""
				if strings.ToLower(def[:k]) == "replace" {
					blk.replace = true
					head = strings.TrimSpace(def[k+2:])
				}
				return blk, head
			}
		}
	}
	// A directive: "type:: arguments".
	if k := rstSimpleName(rest); k > 0 && strings.HasPrefix(rest[k:], "::") && (len(rest) == k+2 || rest[k+2] == ' ' || rest[k+2] == '\t') {
		typ := strings.ToLower(rest[:k])
		line.Directive = typ
		blk = rstBlock{indent: n, kind: bRST, directive: typ, head: true, argShown: !rstArgHidden[typ]}
		if rstCodeDirectives[typ] {
			blk.kind = bCode
		}
		if blk.argShown {
			return blk, strings.TrimSpace(rest[k+2:])
		}
		return blk, ""
	}
	return blk, "" // a comment
}

// rstEntry reads toctree entry t ("target" or "Title <target>") into
// line: shown is its own title, if any (the page shows the target's
// title); its one Ref is the link.
func rstEntry(t string, line *RSTLine) {
	line.Entry = true
	r := RSTRef{Target: t, Link: true}
	if title, target, ok := rstAngle(t, true); ok {
		r.Text, r.Target, r.Titled = title, target, title != ""
		line.Shown = title
	}
	line.Refs = append(line.Refs, r)
}

// rstAngle splits "title <target>" (a role's or a toctree entry's text):
// ok false when s has no target in angle brackets at its end.
func rstAngle(s string, sphinx bool) (title, target string, ok bool) {
	s = strings.TrimSpace(s)
	if !strings.HasSuffix(s, ">") {
		return "", "", false
	}
	j := strings.LastIndexByte(s, '<')
	if j < 0 || j+2 > len(s)-1 || (j > 0 && s[j-1] != ' ' && s[j-1] != '\n' && (!sphinx || s[j-1] == '\\')) {
		return "", "", false
	}
	target = s[j+1 : len(s)-1]
	if target == "" || strings.ContainsAny(target, "<>") {
		return "", "", false
	}
	return strings.TrimSpace(s[:j]), target, true
}

// rstInlineText sets line's Shown to text with its inline markup reduced
// and adds its references; it returns the Shown text.
func rstInlineText(text string, line *RSTLine) string {
	line.Shown = RSTInline(text, func(_ int, r RSTRef) { line.Refs = append(line.Refs, r) })
	return line.Shown
}

// rstInlineLines reduces the inline markup of a text block (lines, one
// paragraph's, whose RSTLines are out): markup may span its lines. Each
// line's Shown is its text as shown; a reference is on the line it
// starts on.
func rstInlineLines(lines []string, out []RSTLine) {
	if len(lines) == 1 {
		rstInlineText(lines[0], &out[0])
		return
	}
	s := strings.Join(lines, "\n")
	starts := make([]int, len(lines)) // each line's offset in s
	for i, off := 1, len(lines[0])+1; i < len(lines); i++ {
		starts[i] = off
		off += len(lines[i]) + 1
	}
	li := 0
	shown := RSTInline(s, func(at int, r RSTRef) {
		for li+1 < len(starts) && starts[li+1] <= at {
			li++
		}
		out[li].Refs = append(out[li].Refs, r)
	})
	for i, p := range strings.Split(shown, "\n") {
		if i < len(out) {
			out[i].Shown = p
		}
	}
}

// rstStartOK reports whether inline markup may start at s[i]: at the
// text's start, or after white space, an opening bracket or quote or a
// delimiter (rule 1); not after a backslash (rule 7).
func rstStartOK(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	if r == '\\' {
		return false
	}
	return unicode.IsSpace(r) || strings.ContainsRune("\"'(<[{-/:", r) ||
		r > 127 && unicode.In(r, unicode.Ps, unicode.Pi, unicode.Pf, unicode.Pd, unicode.Po)
}

// rstEndOK reports whether inline markup may end before s[j]: at the
// text's end, or before white space, a closing bracket or quote or a
// delimiter (rule 4).
func rstEndOK(s string, j int) bool {
	if j >= len(s) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[j:])
	return unicode.IsSpace(r) || strings.ContainsRune("\"')>]}-/:\\.,;!?", r) ||
		r > 127 && unicode.In(r, unicode.Pe, unicode.Pi, unicode.Pf, unicode.Pd, unicode.Po)
}

// rstQuoted reports rule 5: a start-string between a matching opening and
// closing bracket or quote ("(*)", "'`'") is text.
func rstQuoted(s string, i, after int) bool {
	if i == 0 || after >= len(s) {
		return false
	}
	o, _ := utf8.DecodeLastRuneInString(s[:i])
	c, _ := utf8.DecodeRuneInString(s[after:])
	switch o {
	case '"', '\'':
		return c == o
	case '(':
		return c == ')'
	case '[':
		return c == ']'
	case '{':
		return c == '}'
	case '<':
		return c == '>'
	}
	return false
}

// spaceAt reports whether s has no character at j or white space there.
func spaceAt(s string, j int) bool {
	if j >= len(s) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[j:])
	return unicode.IsSpace(r)
}

// rstNameChar reports whether r is a character of a reference name's
// words (a letter, digit or mark; not "_").
func rstNameChar(r rune) bool {
	return r != '_' && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))
}

// rstNameBefore returns where the reference name that ends at s[i] (a
// "name_" reference's "_") starts, -1 when none does: the leftmost start,
// after last and at most maxRefName bytes back, where inline markup may
// start (rule 1) and a simple name runs to i. One walk back, one forward.
func rstNameBefore(s string, last, i int) int {
	m, sep := i, false
	for m > last && i-m < maxRefName {
		r, w := utf8.DecodeLastRuneInString(s[:m])
		if rstNameChar(r) {
			sep = false
		} else if !sep && m < i && strings.ContainsRune("-._+:", r) {
			sep = true
		} else {
			break
		}
		m -= w
	}
	if sep {
		m++ // a name does not start with a separator
	}
	rstWorked(2 * (i - m))
	for p := m; p < i; {
		r, w := utf8.DecodeRuneInString(s[p:])
		if rstNameChar(r) && (p == m || strings.IndexByte("-._+:", s[p-1]) >= 0) && rstStartOK(s, p) {
			return p
		}
		p += w
	}
	return -1
}

// escaped reports whether s[i] follows an odd number of backslashes.
func escaped(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// rstRoleText is what Sphinx shows of a role's content v: "text <target>"
// shows text (the target when text is empty), "~a.b" shows "b", "!x"
// shows "x".
func rstRoleText(role, v string) (text, target string, titled bool) {
	kind, _ := RSTRef{Role: role}.XRef()
	if t, tg, ok := rstAngle(v, kind == "ref" || kind == "doc"); ok {
		if t != "" {
			return t, tg, true
		}
		v = tg
	}
	target = v
	v = strings.TrimPrefix(v, "!")
	if strings.HasPrefix(v, "~") {
		v = v[1:]
		if i := strings.LastIndexByte(v, '.'); i >= 0 && i+1 < len(v) {
			v = v[i+1:]
		}
	}
	return v, strings.TrimPrefix(strings.TrimPrefix(target, "!"), "~"), false
}

// maxRefName bounds how far back a "name_" reference's name is looked for.
const maxRefName = 256

// RSTInline returns text s (one line, or a text block's lines joined by
// "\n") with its inline markup as a reader sees it (interpreted text with
// a role is its text, a hyperlink reference its text), calling ref, when
// not nil, with each one's offset in s. Each piece of markup keeps its
// line ends, so s and the result have as many lines. Linear: the first
// start-string of a kind that has no end-string means no later one of
// that kind has one (the end's rules look only at its neighbours), so
// that kind is not looked for again.
func RSTInline(s string, ref func(at int, r RSTRef)) string {
	return rstReduce(s, ref, rstUnescape)
}

// RSTInlineWritten is RSTInline with backslashes kept as written, for
// markup lines that search indexes as written (a comment, a directive's
// options: docutils reads no escapes there; "C:\dir" stays).
func RSTInlineWritten(s string) string {
	return rstReduce(s, nil, func(t string, _ int) string { return t })
}

// rstReduce is RSTInline with text's escapes read by unescape.
func rstReduce(s string, ref func(at int, r RSTRef), unescape func(string, int) string) string {
	if strings.IndexByte(s, '`') < 0 && strings.IndexByte(s, '_') < 0 {
		return unescape(s, 0)
	}
	if ref == nil {
		ref = func(int, RSTRef) {}
	}
	rstWorked(len(s))
	in := &rstInliner{s: s, ref: ref, fresh: -1, unescape: unescape}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '`' && i+1 < len(s) && s[i+1] == '`':
			i = in.delimited(i, 1, "``", false) // an inline literal: as written
		case c == '*' && i+1 < len(s) && s[i+1] == '*':
			i = in.delimited(i, 3, "**", true) // strong: as written, no markup inside
		case c == '*':
			i = in.delimited(i, 2, "*", true) // emphasis
		case c == ':' || c == '`':
			i = in.interpreted(i)
		case c == '_' && i > in.last && i > 0:
			i = in.name(i)
		default:
			i++
		}
	}
	if in.last == 0 {
		return unescape(s, 0)
	}
	in.b.WriteString(in.unesc(in.last, len(s)))
	return in.b.String()
}

// rstUnescape returns text s as docutils shows it: a backslash escapes
// the character after it ("\*" is "*", "\\" is "\"), an escaped space
// vanishes with its backslash ("H\ :sub:`2`\ O" is "H2O"), an escaped
// tab is its spaces but one (docutils expands tabs, to the next multiple
// of 8 columns from the line's start, before it reads escapes), and a
// backslash before a line end or at the end vanishes (the line end stays:
// each line keeps its place; docutils joins the lines' words).
// col is the column s starts at in its line.
func rstUnescape(s string, col int) string {
	rstWorked(len(s))
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	pos, pc := 0, col // pc is the column of s[pos]: columns are counted on from the last tab, not from the line's start (linear on a line of many tabs)
	for ; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 == len(s) {
			break
		}
		switch n := s[i+1]; n {
		case ' ':
			i++
		case '\t':
			// The backslash's column c, the tab's c+1: it runs to the next
			// multiple of 8, and the escape takes its first space.
			if ls := strings.LastIndexByte(s[pos:i], '\n'); ls >= 0 {
				pos, pc = pos+ls+1, 0
			}
			c := rstColumn(pc, s[pos:i])
			pos, pc = i, c
			b.WriteString(strings.Repeat(" ", (c+1)/8*8+8-c-2))
			i++
		case '\n':
		default:
			b.WriteByte(n)
			i++
		}
	}
	return b.String()
}

// rstInliner is RSTInline's state.
type rstInliner struct {
	s        string
	ref      func(at int, r RSTRef)
	unescape func(string, int) string // rstUnescape, or as written
	// colAt, col: the column of s[colAt] in its line (unesc's memo; it
	// is asked for columns left to right, so their cost is linear).
	colAt, col int
	b          strings.Builder
	last       int     // s[last:] is not yet written
	dead       [4]bool // per kind, no end-string is left: 0 `interpreted`, 1 ``literal``, 2 *emphasis*, 3 **strong**
	// fresh is where the text after a start-string without an end-string
	// begins: docutils reads it as a new text, where markup may start.
	fresh int
}

// unesc returns s[from:to] with its escapes as shown (unescape).
func (in *rstInliner) unesc(from, to int) string {
	return in.unescapeAt(in.s[from:to], from)
}

// unescapeAt returns t, which starts at s[at], with its escapes as
// shown; the column is looked for only when t holds a tab.
func (in *rstInliner) unescapeAt(t string, at int) string {
	if strings.IndexByte(t, '\t') < 0 {
		return in.unescape(t, 0)
	}
	if at < in.colAt {
		in.colAt, in.col = 0, 0
	}
	if ls := strings.LastIndexByte(in.s[in.colAt:at], '\n'); ls >= 0 {
		in.colAt, in.col = in.colAt+ls+1, 0
	}
	in.col = rstColumn(in.col, in.s[in.colAt:at])
	in.colAt = at
	return in.unescape(t, in.col)
}

// emit writes s[last:from] (its escapes as shown: rstUnescape), then
// shown in place of s[from:to], keeping its line ends (a line end and the
// white space around it in shown are one space).
func (in *rstInliner) emit(from, to int, shown string) {
	rstWorked(to - in.last + len(shown)) // Fields, Count and the copies
	in.b.WriteString(in.unesc(in.last, from))
	if strings.IndexByte(shown, '\n') >= 0 {
		shown = strings.Join(strings.Fields(shown), " ")
	}
	in.b.WriteString(shown)
	in.b.WriteString(strings.Repeat("\n", strings.Count(in.s[from:to], "\n")))
	in.last = to
}

// keep writes s[last:from] as emit does, then s[from:to] as written (an
// inline literal, whose backslashes are its text).
func (in *rstInliner) keep(from, to int) {
	rstWorked(to - in.last)
	in.b.WriteString(in.unesc(in.last, from))
	in.b.WriteString(in.s[from:to])
	in.last = to
}

func (in *rstInliner) startOK(i int) bool { return i == in.fresh || rstStartOK(in.s, i) }

// findEnd returns the offset of the first delim after from that may end
// kind k's content: preceded by non-white space, not escaped (when
// escapable), then an end rule (for interpreted text, its caller checks
// the suffix first); -1 when there is none, and kind k is then dead.
func (in *rstInliner) findEnd(k, from int, delim string, escapable bool) int {
	s := in.s
	for j := from + 1; j+len(delim) <= len(s); j++ {
		if s[j:j+len(delim)] != delim {
			continue
		}
		if r, _ := utf8.DecodeLastRuneInString(s[:j]); unicode.IsSpace(r) {
			continue
		}
		if escapable && escaped(s, j) {
			continue
		}
		if k == 0 || rstEndOK(s, j+len(delim)) {
			rstWorked(j - from)
			return j
		}
	}
	rstWorked(len(s) - from)
	in.dead[k] = true
	return -1
}

// delimited skips the inline literal, emphasis or strong text (kind k)
// that starts at i with delim, written as is: no markup inside it. It
// returns where reading goes on.
func (in *rstInliner) delimited(i, k int, delim string, escapable bool) int {
	at := i + len(delim)
	if !in.startOK(i) || spaceAt(in.s, at) || rstQuoted(in.s, i, at) {
		return at
	}
	j := -1
	if !in.dead[k] {
		j = in.findEnd(k, at, delim, escapable)
	}
	if j < 0 {
		in.fresh = at
		return at
	}
	in.fresh = j + len(delim) // docutils reads what follows as a new text
	if k == 1 {
		in.keep(i, in.fresh)
	}
	return in.fresh
}

// interpreted reads interpreted text at i, with a role before
// (":role:`x`") or after ("`x`:role:"), or a phrase reference ("`x`_",
// "`x <URI>`_"), and returns where reading goes on.
func (in *rstInliner) interpreted(i int) int {
	s := in.s
	start, role, tick := i, "", i
	if s[i] == ':' {
		k := rstSimpleName(s[i+1:])
		rstWorked(k)
		if k == 0 || i+2+k >= len(s) || s[i+1+k] != ':' || s[i+2+k] != '`' {
			// A name inside this one ends where it does: no role starts
			// before its end either.
			return i + 1 + k
		}
		role, tick = s[i+1:i+1+k], i+2+k
	}
	if !in.startOK(start) || spaceAt(s, tick+1) || s[tick+1] == '`' || rstQuoted(s, start, tick+1) {
		if start < tick {
			return tick // the backquote may start interpreted text with no role
		}
		return tick + 1
	}
	end, after, suffix, link := in.interpretedEnd(tick)
	if end < 0 {
		in.fresh = tick + 1
		return tick + 1
	}
	in.fresh = after // docutils reads what follows as a new text
	if role != "" && (suffix != "" || link) {
		return after // a role and a suffix: docutils' "problematic", as written
	}
	if suffix != "" {
		role = suffix
	}
	content := s[tick+1 : end]
	var r RSTRef
	switch {
	case link:
		r = RSTRef{Text: content, Link: true}
		if t, tg, ok := rstAngle(content, false); ok {
			r.Text, r.Target, r.Titled = t, tg, t != ""
			if t == "" {
				r.Text = tg
			}
		}
	case role != "":
		r.Role = role
		r.Text, r.Target, r.Titled = rstRoleText(role, content)
	default:
		return after // the default role: its words as written
	}
	if rstRawRole(r.Role) {
		r.Text = content // as written: no title, target or escapes
	} else {
		in.b.WriteString(in.unesc(in.last, start)) // the text before, first: columns left to right
		in.last = start
		r.Text = in.unescapeAt(r.Text, tick+1)
		// The target's escapes are read as the text's (docutils' refuri,
		// Sphinx's XRefRole); an embedded URI's white space is dropped
		// (docutils joins its lines' parts), not a reference name's
		// ("`x <a name_>`_").
		named := strings.HasSuffix(r.Target, "_") && !escaped(r.Target, len(r.Target)-1)
		at := tick + 1 // the target's offset in s: after the content's last '<' when titled
		if k := strings.LastIndexByte(content, '<'); r.Titled && k >= 0 {
			at += k + 1
		}
		r.Target = in.unescapeAt(r.Target, at)
		if link && r.Target != "" && !named {
			r.Target = strings.Join(strings.Fields(r.Target), "")
		}
	}
	in.ref(start, r)
	in.emit(start, after, r.Text)
	return after
}

// interpretedEnd finds the end of interpreted text whose start-string is
// the backquote at tick: a backquote preceded by non-white space, then a
// suffix (a role, "__", "_" or none), then an end rule. It returns the
// backquote's offset (-1 when none), where the suffix ends, the suffix's
// role and whether it is a hyperlink reference. A suffix is an end even
// after a role prefix (docutils then reports a mismatch; its caller keeps
// the text as written).
func (in *rstInliner) interpretedEnd(tick int) (end, after int, role string, link bool) {
	s := in.s
	for from := tick + 1; !in.dead[0]; {
		j := in.findEnd(0, from-1, "`", true)
		if j < 0 {
			break
		}
		if j == tick+1 {
			from = j + 1
			continue
		}
		p := j + 1
		if p < len(s) && s[p] == ':' {
			if k := rstSimpleName(s[p+1:]); k > 0 && p+1+k < len(s) && s[p+1+k] == ':' && rstEndOK(s, p+2+k) {
				return j, p + 2 + k, s[p+1 : p+1+k], false
			}
		}
		if p < len(s) && s[p] == '_' {
			q := p + 1
			if q < len(s) && s[q] == '_' {
				q++
			}
			if rstEndOK(s, q) {
				return j, q, "", true
			}
		}
		if rstEndOK(s, p) {
			return j, p, "", false
		}
		from = j + 1
	}
	return -1, 0, "", false
}

// name reads a reference to a name ("name_", "name__") whose "_" is at i,
// and returns where reading goes on.
func (in *rstInliner) name(i int) int {
	s := in.s
	q := i + 1
	if q < len(s) && s[q] == '_' {
		q++
	}
	if !rstEndOK(s, q) || escaped(s, i) {
		return q
	}
	st := rstNameBefore(s, in.last, i)
	if st < 0 {
		return q
	}
	text := in.unesc(st, i) // a name holds no backslash or tab
	in.ref(st, RSTRef{Text: text, Link: true})
	in.emit(st, q, text)
	in.fresh = q // docutils reads what follows as a new text
	return q
}
