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
// spans; the spans, backticks included, are kept as they are. A code span
// (CommonMark) opens with a run of backticks and closes at the next run of
// the same length; a run that is never closed is text.
func outsideCode(s string, f func(string) string) string {
	if strings.IndexByte(s, '`') < 0 {
		return f(s)
	}
	var b strings.Builder
	text := 0 // start of the current stretch of text
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		n := backticks(s, i)
		closeAt := -1
		for j := i + n; j < len(s); {
			if s[j] != '`' {
				j++
				continue
			}
			m := backticks(s, j)
			if m == n {
				closeAt = j
				break
			}
			j += m
		}
		if closeAt < 0 {
			i += n // no closing run: these backticks are text
			continue
		}
		b.WriteString(f(s[text:i]))
		b.WriteString(s[i : closeAt+n])
		i = closeAt + n
		text = i
	}
	b.WriteString(f(s[text:]))
	return b.String()
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
// A tag is read as JSX reads it (jsxTagEnd): an element's start, end or
// self-closing tag (any name: in MDX every "<name" opens JSX) or a
// fragment's ("<>", "</>"), its attributes' strings and expressions
// skipped whole, so a ">" inside them does not end it
// ('<Badge text="a > b" />', "show={x > 1}", "icon={<Icon />}"). Written
// here: no maintained Go package parses JSX fragments (esbuild's parser
// is internal and reads whole modules). One pass: a code span's run of
// backticks without a closing run of its length means no later one has
// one, a tag that is not one is skipped to where it failed, and a tag
// that never closes (MDX would not compile it) ends the search: the rest
// is text.
func dropJSXTags(s string) string {
	if strings.IndexByte(s, '<') < 0 {
		return s
	}
	var b strings.Builder
	text := 0
	var deadRun map[int]bool // code span run lengths with no closing run left
scan:
	for i := 0; i < len(s); {
		switch s[i] {
		case '`':
			n := backticks(s, i)
			i += n
			if deadRun[n] {
				continue
			}
			if c := closingRun(s, i, n); c >= 0 {
				i = c + n
			} else {
				if deadRun == nil {
					deadRun = map[int]bool{}
				}
				deadRun[n] = true
			}
		case '<':
			end, at := jsxTagEnd(s, i)
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

// closingRun returns where the first run of exactly n backticks at or
// after from starts, -1 when there is none.
func closingRun(s string, from, n int) int {
	for j := from; j < len(s); {
		if s[j] != '`' {
			j++
			continue
		}
		m := backticks(s, j)
		if m == n {
			return j
		}
		j += m
	}
	return -1
}

// jsxTagEnd reads a JSX tag at s[i] ("<"): it returns the offset after
// its ">", or 0 and where reading stopped when s[i:] is not a tag (no
// name, a "<" among its attributes), or -1 when the tag never closes.
func jsxTagEnd(s string, i int) (end, at int) {
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
	if j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '/' && s[j] != '>' {
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
