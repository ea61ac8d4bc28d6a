package markdown

import (
	"strings"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

var (
	linkRE = lazyre.New(`!?\[([^\]]*)\]\([^)]*\)`)
	emph   = strings.NewReplacer("**", "", "__", "") // as the regexp \*\*|__, without its scan of every position
	autoRE = lazyre.New(`<(https?://[^>]+)>`)
	// tagRE finds what may be HTML: a comment, or a start or end tag
	// (name, then attributes or nothing, then > or />). htmlTag decides
	// whether its name is an HTML element's.
	tagRE = lazyre.New(`<!--.*?-->|</?([a-zA-Z][a-zA-Z0-9-]*)(?:[ \t][^<>]*)?/?>`)
)

// htmlElements are the names of HTML's elements (the WHATWG list, with the
// obsolete ones still seen in documentation, and svg and math), each
// between spaces. A tag whose name is not here (`<T>`, `<json>`,
// `<TARGET>`) is text, not markup.
const htmlElements = " " +
	"a abbr acronym address area article aside audio b base bdi bdo big blink " +
	"blockquote body br button canvas caption center cite code col colgroup data datalist dd del details " +
	"dfn dialog dir div dl dt em embed fieldset figcaption figure font footer form frame frameset h1 h2 h3 " +
	"h4 h5 h6 head header hgroup hr html i iframe img input ins kbd label legend li link main map mark " +
	"marquee math menu meta meter nav nobr noframes noscript object ol optgroup option output p param " +
	"picture pre progress q rp rt ruby s samp script search section select slot small source span strike " +
	"strong style sub summary sup svg table tbody td template textarea tfoot th thead time title tr track " +
	"tt u ul var video wbr "

// htmlTag reports whether m, a match of tagRE, is HTML that Plain drops: a
// comment, or a tag of an HTML element (case-insensitive).
func htmlTag(m string) bool {
	if strings.HasPrefix(m, "<!--") {
		return true
	}
	name := strings.TrimPrefix(m[1:], "/")
	end := strings.IndexAny(name, " \t/>")
	return strings.Contains(htmlElements, " "+strings.ToLower(name[:end])+" ")
}

// Plain removes markdown markup that a reader of INDEX.md or a heading
// trail does not need: links keep their text, emphasis markers (** and __)
// go, runs of white space become one space, and outside code spans HTML
// goes: comments (<!-- omit in toc -->) and the tags of HTML elements
// (<a name="x"></a>, <br>, <span class="y">, <code>, in any case), while
// angle brackets around anything else are text and stay (Option<T>,
// <json>, <TARGET>), as does everything inside a code span (`Vec<u8>`,
// `<br>`). An autolink (<https://x>) keeps its URL. The indexer's heading
// trails are the Plain texts of headings, and Doc.Section matches them.
//
// Each expression runs only when its first character is in s: Go's regexp
// tries every position of a string, and this runs on every summary and
// heading of every document.
func Plain(s string) string {
	if strings.IndexByte(s, '[') >= 0 {
		s = linkRE().ReplaceAllString(s, "$1")
	}
	if strings.IndexByte(s, '<') >= 0 {
		s = outsideCode(s, dropHTML)
	}
	s = emph.Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// dropHTML is Plain's treatment of text outside code spans.
func dropHTML(s string) string {
	if strings.IndexByte(s, '<') < 0 {
		return s
	}
	s = autoRE().ReplaceAllString(s, "$1")
	return tagRE().ReplaceAllStringFunc(s, func(m string) string {
		if htmlTag(m) {
			return ""
		}
		return m
	})
}

// outsideCode returns s with f applied to each stretch outside its code
// spans (codeSpans); the spans, backticks included, are kept as they are.
func outsideCode(s string, f func(string) string) string {
	if strings.IndexByte(s, '`') < 0 {
		return f(s)
	}
	var b strings.Builder
	text := 0 // start of the current stretch of text
	eachCodeSpan(s, func(start, end int) {
		b.WriteString(f(s[text:start]))
		b.WriteString(s[start:end])
		text = end
	})
	b.WriteString(f(s[text:]))
	return b.String()
}

// BlankCodeSpans returns s with each of its code spans (codeSpans),
// backticks included, replaced by as many spaces, so the text's offsets
// stay: what a link reader must not look into.
func BlankCodeSpans(s string) string {
	if strings.IndexByte(s, '`') < 0 {
		return s
	}
	b := []byte(s)
	eachCodeSpan(s, func(start, end int) {
		for j := start; j < end; j++ {
			b[j] = ' '
		}
	})
	return string(b)
}

// eachCodeSpan calls span with the start and end of each code span of s
// (codeSpans), backticks included, in order.
func eachCodeSpan(s string, span func(start, end int)) {
	spans := newCodeSpans(s)
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], '`')
		if k < 0 {
			break
		}
		i += k
		end, ok := spans.at(i)
		if ok {
			span(i, end)
		}
		i = end
	}
}

// codeSpans reads a string's code spans, the one owner of their rule
// (CommonMark): a run of n backticks opens a span that closes at the next
// run of exactly n backticks; a run with no such run after it is text.
// One pass records the runs' starts by length; then each length's cursor
// only moves forward (at's calls come in the order of the string), so
// the whole read is linear however many runs of distinct lengths are
// left unclosed (review14b R3: scanning ahead from each run was N^1.5).
type codeSpans struct {
	s    string
	runs map[int][]int // run length -> starts of the runs of that length, in order
	next map[int]int   // run length -> index in runs of the first run after the last read
}

func newCodeSpans(s string) *codeSpans {
	c := &codeSpans{s: s, runs: map[int][]int{}, next: map[int]int{}}
	codeWorked(len(s))
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], '`')
		if k < 0 {
			break
		}
		i += k
		n := backticks(s, i)
		c.runs[n] = append(c.runs[n], i)
		i += n
	}
	return c
}

// at reads the run of backticks at s[i], at or after the last run read:
// it returns the offset after the code span the run opens, and true, or
// the offset after the run, and false, when it opens none (its backticks
// are text).
func (c *codeSpans) at(i int) (end int, span bool) {
	n := backticks(c.s, i)
	starts, k := c.runs[n], c.next[n]
	for k < len(starts) && starts[k] <= i {
		k++
		codeWorked(1)
	}
	c.next[n] = k
	if k == len(starts) {
		return i + n, false
	}
	return starts[k] + n, true
}

// backticks is the length of the run of backticks at s[i].
func backticks(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// MaxHeadingBytes bounds a heading's text in a trail (Doc.Trails) and a
// document's title: a trail is stored with every chunk under it and shown
// in every hit, so a heading of a megabyte would be too.
const MaxHeadingBytes = 200

// Clip shortens s to at most n bytes (and the mark) at a word boundary
// when one is in the second half, else at a character boundary, marking
// the cut with "…".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	return strings.TrimRight(s[:cut], " ,;:") + "…"
}

// dropJSXTags returns an MDX heading's text without its JSX tags, outside
// code spans; an element's children stay ("Status <Badge>beta</Badge>" is
// "Status beta"). A heading that is only tags is kept as written.
//
// A tag is read as JSX reads it (JSXTagEnd): an element's start, end or
// self-closing tag (any name: in MDX every "<name" opens JSX) or a
// fragment's ("<>", "</>"), its attributes' strings and expressions
// skipped whole, so a ">" inside them does not end it
// ('<Badge text="a > b" />', "show={x > 1}", "icon={<Icon />}"). Written
// here: no maintained Go package parses JSX fragments (esbuild's parser
// is internal and reads whole modules). One pass: code spans are read
// by codeSpans, a tag that is not one is skipped to where it failed, and
// a tag that never closes (MDX would not compile it) ends the search: the
// rest is text.
func dropJSXTags(s string) string {
	if strings.IndexByte(s, '<') < 0 {
		return s
	}
	codeWorked(len(s))
	var b strings.Builder
	text := 0
	var spans *codeSpans // read at the first backtick
scan:
	for i := 0; i < len(s); {
		switch s[i] {
		case '`':
			if spans == nil {
				spans = newCodeSpans(s)
			}
			i, _ = spans.at(i)
		case '<':
			end, at := JSXTagEnd(s, i)
			switch {
			case end > 0:
				b.WriteString(s[text:i])
				b.WriteByte(' ')
				i, text = end, end
			case end < 0:
				break scan
			default:
				i = max(i+1, at)
			}
		default:
			i++
		}
	}
	b.WriteString(s[text:])
	out := strings.Join(strings.Fields(b.String()), " ")
	if out == "" {
		return s
	}
	return out
}

// JSXTagEnd reads a JSX tag at s[i] ("<"): it returns the offset after
// its ">", or 0 and where reading stopped when s[i:] is not a tag (no
// name, a "<" among its attributes), or -1 when the tag never closes.
// Its attributes may span lines (a component's props, one a line): the
// one reader of a tag for an MDX heading (dropJSXTags) and for a page's
// tags over several lines (the indexer's jsxMultiLine).
func JSXTagEnd(s string, i int) (end, at int) {
	j := i + 1
	if j < len(s) && s[j] == '/' {
		j++
	}
	if j < len(s) && s[j] == '>' {
		return j + 1, 0 // a fragment
	}
	if j >= len(s) || !(s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
		return 0, j
	}
	for j < len(s) && (s[j] == '_' || s[j] == '.' || s[j] == ':' || s[j] == '-' ||
		s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
		j++
	}
	if j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '/' && s[j] != '>' {
		return 0, j // "<a+b": not a tag
	}
	for j < len(s) {
		switch c := s[j]; c {
		case '>':
			return j + 1, 0
		case '<':
			return 0, j
		case '"', '\'':
			k := strings.IndexByte(s[j+1:], c)
			if k < 0 {
				return -1, 0
			}
			j += k + 2
		case '{':
			if j = jsxBraceEnd(s, j); j < 0 {
				return -1, 0
			}
		default:
			j++
		}
	}
	return -1, 0
}

// jsxBraceEnd returns the offset after the "}" that closes the JSX
// expression whose "{" is s[i] (braces nest; strings and template
// literals are skipped), -1 when none does.
func jsxBraceEnd(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch c := s[j]; c {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return j + 1
			}
		case '"', '\'', '`':
			k := strings.IndexByte(s[j+1:], c)
			if k < 0 {
				return -1
			}
			j += k + 1
		}
	}
	return -1
}

// codeWork, when a test sets it, counts the code-span scanners' steps
// (bytes and backtick runs looked at; in Highlight, the marks and the
// code spans passed finding theirs), so a test can bound their work per
// byte without a clock (TestCodeSpanLinearWork, TestHighlightLinearWork).
// Nil otherwise; set only by a test that does not run in parallel.
var codeWork *int

// codeWorked adds n steps to codeWork, if set.
func codeWorked(n int) {
	if codeWork != nil {
		*codeWork += n
	}
}

// Highlight returns s[from:], a stretch of a document's text, as a search
// snippet shows it; s starts at the start of a line, so that its code
// spans pair as in the document. Each of marks (byte ranges of s at or
// after from, in order, not overlapping, none inside markup) is put
// between ** and **, and the source's own markup that would read as a
// mark or show as text goes, so ** means a match and only that: emphasis
// markers outside code spans (**, and __ where CommonMark could read it
// as one: shownText), and an ATX heading's opening #s (atxLine, on the
// whole line). A mark inside a code span marks the whole span (from from
// on), outside its backquotes, where ** would show as text; the span is
// marked once. A mark that starts where the one before ends joins it.
func Highlight(s string, from int, marks [][2]int) string {
	var code [][2]int // the code spans, cut at from
	if strings.IndexByte(s, '`') >= 0 {
		eachCodeSpan(s, func(start, end int) {
			if end > from {
				code = append(code, [2]int{max(start, from), end})
			}
		})
	}
	var b strings.Builder
	b.Grow(len(s) - from + 4*len(marks))
	pos := from
	// text writes s[pos:end] as shown: code spans as they are, the text
	// between them by shownText.
	ci := 0
	text := func(end int) {
		for ; ci < len(code) && code[ci][0] < end; ci++ {
			if code[ci][1] <= pos {
				continue
			}
			b.WriteString(shownText(s, pos, code[ci][0]))
			b.WriteString(s[code[ci][0]:code[ci][1]])
			pos = code[ci][1]
		}
		b.WriteString(shownText(s, pos, end))
		pos = end
	}
	// pend is the mark not yet written: one that starts where it ends
	// joins it (adjacent matches, as CJK ideographs are, make one mark,
	// not "****").
	pend := [2]int{-1, -1}
	flush := func() {
		if pend[0] >= 0 {
			text(pend[0])
			b.WriteString("**")
			text(pend[1])
			b.WriteString("**")
			pend[0] = -1
		}
	}
	cj := 0 // the code spans before cj end at or before the marks' starts
	for _, m := range marks {
		codeWorked(1)
		for cj < len(code) && code[cj][1] <= m[0] {
			codeWorked(1)
			cj++
		}
		if cj < len(code) && code[cj][0] <= m[0] && m[1] <= code[cj][1] {
			m = code[cj]
		}
		end := pos
		if pend[0] >= 0 {
			end = pend[1]
		}
		switch {
		case m[0] < end:
			continue // a second match in a code span already marked
		case m[0] == end && pend[0] >= 0:
			pend[1] = m[1]
			continue
		}
		flush()
		pend = m
	}
	flush()
	text(len(s))
	return b.String()
}

// shownText is Highlight's treatment of s[start:end], text outside code
// spans: ** goes (it would read as a mark), and the opening #s of an ATX
// heading (the whole line of s tested, not the piece before a mark) at
// the start of each of its lines. __ stays, paired or not: it never reads
// as the mark ** to one reading the text, and what CommonMark takes for
// emphasis (__init__ alone, __init next to a match) is, in docs, most
// often a dunder identifier written outside a code span.
func shownText(s string, start, end int) string {
	t := s[start:end]
	if strings.IndexByte(t, '#') >= 0 {
		lines := strings.SplitAfter(t, "\n")
		at := start
		for i, l := range lines {
			lineAt := at
			at += len(l)
			if i == 0 && start > 0 && s[start-1] != '\n' {
				continue // not the start of a line
			}
			whole := s[lineAt:]
			if nl := strings.IndexByte(whole, '\n'); nl >= 0 {
				whole = whole[:nl]
			}
			if u, indent3 := afterIndent(whole); atxLine(u, indent3, whole) != nil {
				u, _ := afterIndent(l)
				lines[i] = strings.TrimLeft(strings.TrimLeft(u, "#"), " \t")
			}
		}
		t = strings.Join(lines, "")
	}
	return strings.ReplaceAll(t, "**", "")
}
