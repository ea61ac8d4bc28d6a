package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The one reStructuredText reader (readRST): what a reader of an rst page
// sees on each line, by the docutils spec
// (https://docutils.sourceforge.io/docs/ref/rst/restructuredtext.html).
// The outline (scanRST's Body), the indexed text and the summary
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
//   - a literal block: the lines indented more than a paragraph that ends
//     with "::" (code: kept as written, for search);
//   - docinfo: a field list that is the document's first element, or the
//     first after its first title (":orphan:", ":tocdepth: 2"), is not
//     shown;
//   - a section title (scanRST's rules) only outside every block.
//
// Inline markup (rstInline), in each text block (a paragraph's lines
// together) by the spec's recognition rules: interpreted text with a role
// shows its text (":ref:`the guide <label>`" is "the guide",
// ":func:`~a.b`" is "b"), a hyperlink reference its text ("`text <URI>`_"
// is "text", "name_" is "name"), inline literals, emphasis and
// substitutions are left as written (their words are the reader's).

// RSTKind is what a line of an rst document is to its reader (ReadRST).
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

// ReadRST reads rst document lines (Doc.Lines).
func ReadRST(lines []string) []RSTLine {
	out, _ := readRST(lines)
	return out
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

// rstHiddenContent are the directives whose content is not shown.
var rstHiddenContent = map[string]bool{"index": true, "meta": true}

// Block kinds of readRST's stack.
const (
	bRST    = iota // content read as rst (a directive's, a footnote's)
	bCode          // a literal block, a code directive's content
	bMarkup        // a comment, a target, a substitution definition, a docinfo field: nothing shown
)

type rstBlock struct {
	indent    int // the marker's indent: the block holds the lines indented more
	kind      int
	directive string
	head      bool // a directive's arguments and options: before its first blank line
	argShown  bool // its arguments' further lines are shown
	replace   bool // a substitution's "replace::" text: shown
	empty     bool // ".." alone: a blank line right after ends it
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

// readRST is ReadRST, with the Body scanRST gives (the same titles and
// levels as before; every line inside an explicit markup or literal block
// is Code).
func readRST(lines []string) ([]RSTLine, Body) {
	out := make([]RSTLine, len(lines))
	b := Body{Kinds: make([]Kind, len(lines))}
	type style struct {
		c    byte
		over bool
	}
	var styles []style
	level := func(s style) int {
		for i, e := range styles {
			if e == s {
				return i + 1
			}
		}
		styles = append(styles, s)
		return len(styles)
	}
	blank := func(i int) bool { return i < 0 || i >= len(lines) || strings.TrimSpace(lines[i]) == "" }
	width := func(l string) int { return utf8.RuneCountInString(strings.TrimSpace(l)) }
	var stack []rstBlock
	pendingLit := -1 // the indent of a paragraph that ended with "::": a literal block may follow
	atStart := true  // a title may start here
	docinfo := 0     // 0: before the first element; 1: after the first title; 2: over
	para := -1       // the first line of the current text block, -1 when none
	flush := func(end int) {
		if para >= 0 {
			rstInlineLines(lines[para:end], out[para:end])
			para = -1
		}
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if blank(i) {
			flush(i)
			b.Kinds[i] = Blank
			atStart = true
			if n := len(stack); n > 0 {
				if stack[n-1].empty {
					stack = stack[:n-1]
				} else {
					stack[n-1].head = false
				}
			}
			continue
		}
		n := rstIndent(l)
		depth := len(stack)
		for len(stack) > 0 && n <= stack[len(stack)-1].indent {
			stack = stack[:len(stack)-1]
		}
		if k := len(stack); k > 0 {
			stack[k-1].empty = false
		}
		if pendingLit >= 0 {
			if n > pendingLit {
				stack = append(stack, rstBlock{indent: pendingLit, kind: bCode})
			}
			pendingLit = -1
		}
		if len(stack) != depth {
			flush(i)
		}
		t := strings.TrimSpace(l)
		if k := len(stack); k > 0 {
			top := &stack[k-1]
			out[i].Directive = top.directive
			b.Kinds[i] = Code
			atStart = false
			switch {
			case top.kind == bCode && !top.head:
				flush(i)
				out[i].Kind, out[i].Shown = RSTCode, l
				continue
			case top.kind == bMarkup:
				flush(i)
				out[i].Kind = RSTMarkup
				if top.replace {
					out[i].Shown = l
					rstInlineLines(lines[i:i+1], out[i:i+1])
					out[i].Kind = RSTMarkup
				}
				continue
			case top.head:
				flush(i)
				out[i].Kind = RSTMarkup
				if name, body, ok := rstField(t); ok {
					out[i].Option = true
					if name == "caption" {
						rstInlineText(body, &out[i])
					}
				} else if top.directive == "toctree" {
					rstEntry(t, &out[i]) // entries right after the marker, with no options
				} else if top.kind == bCode {
					out[i].Kind, out[i].Shown = RSTCode, l // code right after the marker: kept
				} else if top.argShown {
					rstInlineText(l, &out[i])
				}
				continue
			case top.directive == "toctree":
				flush(i)
				out[i].Kind = RSTMarkup
				rstEntry(t, &out[i])
				continue
			case rstHiddenContent[top.directive]:
				flush(i)
				out[i].Kind = RSTMarkup
				continue
			}
		} else {
			// Outside every block: a section title may start here.
			start := atStart
			atStart = false
			if c := rstAdornment(l); c != 0 && start && i+2 < len(lines) && !blank(i+1) && rstAdornment(lines[i+1]) == 0 &&
				strings.TrimRight(lines[i+2], " \t") == strings.TrimRight(l, " \t") && longEnough(len(strings.TrimRight(l, " \t")), width(lines[i+1])) {
				flush(i)
				b.Kinds[i], b.Kinds[i+1], b.Kinds[i+2] = HeadingCont, HeadingLine, HeadingCont
				text := rstInlineText(strings.TrimSpace(lines[i+1]), &out[i+1])
				b.Headings = append(b.Headings, Heading{Level: min(level(style{c, true}), 6), Text: text, Line: i})
				out[i] = RSTLine{Kind: RSTTitle, Shown: l}
				out[i+1].Kind = RSTTitle
				out[i+2] = RSTLine{Kind: RSTTitle, Shown: lines[i+2]}
				i += 2
				atStart = true
				if docinfo == 0 {
					docinfo = 1
				} else {
					docinfo = 2
				}
				continue
			}
			if start && n == 0 && rstAdornment(l) == 0 && i+1 < len(lines) {
				if c := rstAdornment(lines[i+1]); c != 0 && longEnough(len(strings.TrimRight(lines[i+1], " \t")), width(l)) {
					flush(i)
					b.Kinds[i], b.Kinds[i+1] = HeadingLine, HeadingCont
					text := rstInlineText(strings.TrimSpace(l), &out[i])
					b.Headings = append(b.Headings, Heading{Level: min(level(style{c, false}), 6), Text: text, Line: i})
					out[i].Kind = RSTTitle
					out[i+1] = RSTLine{Kind: RSTTitle, Shown: lines[i+1]}
					i++
					atStart = true
					if docinfo == 0 {
						docinfo = 1
					} else {
						docinfo = 2
					}
					continue
				}
			}
			b.Kinds[i] = Text
			if docinfo < 2 && n == 0 && para < 0 {
				if _, _, ok := rstField(t); ok {
					out[i].Kind = RSTMarkup
					b.Kinds[i] = Code
					stack = append(stack, rstBlock{indent: 0, kind: bMarkup})
					continue
				}
				if !rstMarkupStart(t) && !strings.HasPrefix(t, "__ ") && t != "__" {
					docinfo = 2
				}
			}
		}
		// rst body: explicit markup, or text.
		if rstMarkupStart(t) || t == "__" || strings.HasPrefix(t, "__ ") {
			flush(i)
			if len(stack) == 0 {
				b.Kinds[i] = Code
			}
			stack = append(stack, rstExplicit(t, n, &out[i], i+1 < len(lines) && blank(i+1)))
			continue
		}
		out[i].Kind = RSTProse
		if para < 0 {
			para = i
		}
		if t == "::" {
			out[i].Shown = ""
		}
		if strings.HasSuffix(t, "::") {
			pendingLit = n
		}
	}
	flush(len(lines))
	// A "::" line alone shows nothing (the spec's expanded form).
	for i := range out {
		if out[i].Kind == RSTProse && strings.TrimSpace(lines[i]) == "::" {
			out[i].Shown = ""
		}
	}
	return out, b
}

// rstExplicit reads an explicit markup start (trimmed line t, at indent n)
// into line and returns the block it opens. blankNext: the next line is
// blank (".." alone is then an empty comment).
func rstExplicit(t string, n int, line *RSTLine, blankNext bool) rstBlock {
	line.Kind = RSTMarkup
	blk := rstBlock{indent: n, kind: bMarkup}
	if t == "__" || strings.HasPrefix(t, "__ ") {
		return blk // an anonymous target
	}
	rest := strings.TrimSpace(t[2:])
	switch {
	case rest == "":
		blk.empty = true // ".." alone: a comment, empty when a blank line follows
		_ = blankNext
		return blk
	case rest[0] == '[':
		// A footnote (".. [1]", ".. [#]", ".. [#name]", ".. [*]") or a citation.
		if j := strings.IndexByte(rest, ']'); j > 1 && (j+1 == len(rest) || rest[j+1] == ' ' || rest[j+1] == '\t') {
			label := rest[1:j]
			if label == "*" || label == "#" || strings.TrimLeft(label, "0123456789") == "" ||
				(label[0] == '#' && rstSimpleName(label[1:]) == len(label)-1) || rstSimpleName(label) == len(label) {
				line.Kind = RSTProse
				rstInlineText(strings.TrimSpace(rest[j+1:]), line)
				return rstBlock{indent: n, kind: bRST}
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
			return blk
		}
	case rest[0] == '|':
		// A substitution definition: "|name| type:: data".
		if j := strings.IndexByte(rest[1:], '|'); j > 0 {
			def := strings.TrimSpace(rest[j+2:])
			if k := strings.Index(def, "::"); k > 0 && rstSimpleName(def) == k {
				if strings.ToLower(def[:k]) == "replace" {
					blk.replace = true
					rstInlineText(strings.TrimSpace(def[k+2:]), line)
				}
				return blk
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
			rstInlineText(strings.TrimSpace(rest[k+2:]), line)
		}
		return blk
	}
	return blk // a comment
}

// rstEntry reads toctree entry t ("target" or "Title <target>") into
// line: shown is its own title, if any (the page shows the target's
// title); its one Ref is the link.
func rstEntry(t string, line *RSTLine) {
	line.Entry = true
	r := RSTRef{Target: t, Link: true}
	if title, target, ok := rstAngle(t); ok {
		r.Text, r.Target, r.Titled = title, target, title != ""
		line.Shown = title
	}
	line.Refs = append(line.Refs, r)
}

// rstAngle splits "title <target>" (a role's or a toctree entry's text):
// ok false when s has no target in angle brackets at its end.
func rstAngle(s string) (title, target string, ok bool) {
	s = strings.TrimSpace(s)
	if !strings.HasSuffix(s, ">") {
		return "", "", false
	}
	j := strings.LastIndexByte(s, '<')
	if j < 0 || j+2 > len(s)-1 || (j > 0 && s[j-1] != ' ' && s[j-1] != '\n') {
		return "", "", false
	}
	target = s[j+1 : len(s)-1]
	if target == "" || strings.ContainsAny(target, "<>") {
		return "", "", false
	}
	return strings.TrimSpace(s[:j]), target, true
}

// RSTInline is text (one line, or a paragraph's lines joined by "\n")
// with its inline markup as a reader sees it: interpreted text with a
// role is its text, a hyperlink reference its text (rstInline).
func RSTInline(text string) string { return rstInline(text, func(int, RSTRef) {}) }

// rstInlineText sets line's Shown to text with its inline markup reduced
// and adds its references; it returns the Shown text.
func rstInlineText(text string, line *RSTLine) string {
	line.Shown = rstInline(text, func(_ int, r RSTRef) { line.Refs = append(line.Refs, r) })
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
	shown := rstInline(s, func(at int, r RSTRef) {
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
func rstRoleText(v string) (text, target string, titled bool) {
	if t, tg, ok := rstAngle(v); ok {
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

// rstInline returns text s (one text block; lines joined by "\n") with
// its interpreted text and hyperlink references as a reader sees them,
// calling ref with each one's offset in s. Each piece of markup keeps its
// line ends, so s and the result have as many lines. Linear: the first
// start-string of a kind that has no end-string means no later one of
// that kind has one (the end's rules look only at its neighbours), so
// that kind is not looked for again.
func rstInline(s string, ref func(at int, r RSTRef)) string {
	if strings.IndexByte(s, '`') < 0 && strings.IndexByte(s, '_') < 0 {
		return s
	}
	var b strings.Builder
	last := 0 // s[last:] is not yet written
	emit := func(from, to int, shown string) {
		b.WriteString(s[last:from])
		shown = strings.ReplaceAll(shown, "\n", " ")
		b.WriteString(shown)
		b.WriteString(strings.Repeat("\n", strings.Count(s[from:to], "\n")))
		last = to
	}
	var dead [4]bool // per kind: 0 `interpreted`, 1 ``literal``, 2 *emphasis*, 3 **strong**
	// fresh is where the text after a start-string without an end-string
	// begins: docutils reads it as a new text, where markup may start.
	fresh := -1
	startOK := func(i int) bool { return i == fresh || rstStartOK(s, i) }
	// findEnd returns the end-string's offset for kind k's content
	// starting at from, -1 if none: delim preceded by non-white space
	// (escapes aside), then end rules.
	findEnd := func(k int, from int, delim string, escapable bool) int {
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
			if k == 0 {
				return j // its suffix is checked by the caller
			}
			if rstEndOK(s, j+len(delim)) {
				return j
			}
		}
		dead[k] = true
		return -1
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '`' && i+1 < len(s) && s[i+1] == '`':
			// An inline literal: written as is.
			if !startOK(i) || spaceAt(s, i+2) || rstQuoted(s, i, i+2) {
				i += 2
				continue
			}
			j := -1
			if !dead[1] {
				j = findEnd(1, i+2, "``", false)
			}
			if j < 0 {
				i += 2
				fresh = i
				continue
			}
			i = j + 2
		case c == '*':
			k, d := 2, "*"
			if i+1 < len(s) && s[i+1] == '*' {
				k, d = 3, "**"
			}
			at := i + len(d)
			if !startOK(i) || spaceAt(s, at) || rstQuoted(s, i, at) {
				i = at
				continue
			}
			j := -1
			if !dead[k] {
				j = findEnd(k, at, d, true)
			}
			if j < 0 {
				i = at
				fresh = i
				continue
			}
			i = j + len(d) // emphasis: its words as written, no markup inside
		case c == ':' || c == '`':
			// Interpreted text, with a role before (":role:`x`") or after
			// ("`x`:role:"), or a phrase reference ("`x`_", "`x <URI>`_").
			start, role := i, ""
			tick := i
			if c == ':' {
				k := rstSimpleName(s[i+1:])
				if k == 0 || i+2+k >= len(s) || s[i+1+k] != ':' || s[i+2+k] != '`' {
					// A name inside this one ends where it does: no role
					// starts before its end either.
					i += 1 + k
					continue
				}
				role, tick = s[i+1:i+1+k], i+2+k
			}
			if !startOK(start) || spaceAt(s, tick+1) || s[tick+1] == '`' || rstQuoted(s, start, tick+1) {
				if start < tick {
					i = tick // the backquote may start interpreted text with no role
				} else {
					i = tick + 1
				}
				continue
			}
			// The end: a backquote preceded by non-white space, with a
			// suffix (":role:", "__", "_" or none) then an end rule.
			end, after, link := -1, 0, false
			for from := tick + 1; !dead[0]; {
				j := findEnd(0, from-1, "`", true)
				if j < 0 || j <= tick {
					break
				}
				if j == tick+1 {
					from = j + 1
					continue
				}
				p := j + 1
				if role == "" && p < len(s) && s[p] == ':' {
					if k := rstSimpleName(s[p+1:]); k > 0 && p+1+k < len(s) && s[p+1+k] == ':' && rstEndOK(s, p+2+k) {
						role, end, after = s[p+1:p+1+k], j, p+2+k
						break
					}
				}
				if p < len(s) && s[p] == '_' {
					q := p + 1
					if q < len(s) && s[q] == '_' {
						q++
					}
					if rstEndOK(s, q) {
						end, after, link = j, q, true
						break
					}
				}
				if rstEndOK(s, p) {
					end, after = j, p
					break
				}
				from = j + 1
			}
			if end < 0 {
				i = tick + 1
				fresh = i
				continue
			}
			content := s[tick+1 : end]
			var r RSTRef
			switch {
			case link && role == "":
				r = RSTRef{Text: content, Link: true}
				if t, tg, ok := rstAngle(content); ok {
					r.Text, r.Target, r.Titled = t, tg, t != ""
					if t == "" {
						r.Text = tg
					}
				}
			case role != "":
				r.Role = role
				r.Text, r.Target, r.Titled = rstRoleText(content)
			default:
				// The default role: its words as written.
				i = after
				continue
			}
			ref(start, r)
			emit(start, after, r.Text)
			i = after
		case c == '_' && i > last && i > 0:
			// A reference to a name: "name_", "name__".
			q := i + 1
			if q < len(s) && s[q] == '_' {
				q++
			}
			if !rstEndOK(s, q) || escaped(s, i) {
				i = q
				continue
			}
			st := rstNameBefore(s, last, i)
			if st < 0 {
				i = q
				continue
			}
			ref(st, RSTRef{Text: s[st:i], Link: true})
			emit(st, q, s[st:i])
			i = q
		default:
			i++
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
