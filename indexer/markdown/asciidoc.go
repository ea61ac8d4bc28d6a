package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// AsciiDoc section titles, as Asciidoctor reads them: "= Title" is level
// 1 (the document title), "== Section" level 2, and so on to "======"
// (level 6); the markdown-style "#" form counts the same. A title is
// never inside a delimited block (listing ----, literal ...., passthrough
// ++++, fenced ```, comment ////, and example ====, sidebar ****, quote
// ____, which close on the same line) nor a "//" comment line. The lines
// right after the document title (author, revision) and attribute entries
// (":toc:") and block attributes ("[source,go]", anchors "[[id]]") are
// Comment: metadata, not prose.
//
// Asciidoctor also reads two-line (setext) titles, as git's documentation
// writes every page: a line with a letter or digit, not starting with
// ".", underlined with one repeated character of "=", "-", "~", "^", "+"
// (levels 0 to 4, here 1 to 5), the underline's length within one of the
// title's (Parser.is_two_line_section_title?). Asciidoctor looks for a
// section title where a block starts, before it looks for a delimiter, so
// "NAME" over "----" is a title and not a listing; a title line must start
// a block here too (the first line, after a blank line, a title or
// metadata).

var (
	adocTitleRE = lazyre.New(`^(={1,6}|#{1,6})[ \t]+(\S.*?)(?:[ \t]+=+)?[ \t]*$`)
	adocAttrRE  = lazyre.New(`^:!?[\w][\w-]*!?:(?:[ \t]|$)`)
	adocBlockRE = lazyre.New(`^(?:\[[^\]]*\]|\[\[[^\]]*\]\])[ \t]*$`)
)

// adocSetextLevels are the levels of Asciidoctor's two-line titles, by
// the underline's character.
var adocSetextLevels = map[byte]int{'=': 1, '-': 2, '~': 3, '^': 4, '+': 5}

// adocSetext returns the level of the two-line title whose title line is
// l and underline u, or 0 when they are not one.
func adocSetext(l, u string) int {
	l, u = strings.TrimRight(l, " \t"), strings.TrimRight(u, " \t")
	level := 0
	if u != "" {
		level = adocSetextLevels[u[0]]
	}
	if level == 0 || l == "" || l[0] == '.' || !strings.ContainsFunc(l, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return 0
	}
	for i := 1; i < len(u); i++ {
		if u[i] != u[0] {
			return 0
		}
	}
	if d := utf8.RuneCountInString(l) - len(u); d < -1 || d > 1 {
		return 0
	}
	if strings.HasPrefix(l, "//") || adocAttrRE().MatchString(l) || adocBlockRE().MatchString(l) {
		return 0 // metadata, read before a title is looked for
	}
	if adocTitleRE().MatchString(l) {
		return 0 // a one-line title, which Asciidoctor looks for first
	}
	return level
}

// adocDelimiter returns the kind of the lines inside the delimited block
// that l opens or closes, and whether l is a delimiter line.
func adocDelimiter(l string) (Kind, bool) {
	l = strings.TrimRight(l, " \t")
	if strings.HasPrefix(l, "```") {
		return Code, true
	}
	if len(l) < 4 {
		return 0, false
	}
	for i := 1; i < len(l); i++ {
		if l[i] != l[0] {
			return 0, false
		}
	}
	switch l[0] {
	case '-', '.', '+':
		return Code, true
	case '/':
		return Comment, true
	case '=', '*', '_':
		return Text, true
	}
	return 0, false
}

func scanAsciiDoc(lines []string) Body {
	b := Body{Kinds: make([]Kind, len(lines))}
	var delim string // the delimiter line of the open block, "" when none
	var inner Kind
	header := false // right after the document title, before a blank line
	skip := false   // the line is a two-line title's underline
	for i, l := range lines {
		if skip {
			skip = false
			b.Kinds[i] = HeadingCont
			continue
		}
		if delim != "" {
			t := strings.TrimRight(l, " \t")
			if t == delim || (strings.HasPrefix(delim, "```") && strings.HasPrefix(t, "```")) {
				b.Kinds[i] = Comment // the delimiter is markup
				delim = ""
				continue
			}
			b.Kinds[i] = inner
			continue
		}
		if strings.TrimSpace(l) == "" {
			b.Kinds[i] = Blank
			header = false
			continue
		}
		if header {
			b.Kinds[i] = Comment
			continue
		}
		if start := i == 0 || b.Kinds[i-1] != Text && b.Kinds[i-1] != Code; start && i+1 < len(lines) {
			if level := adocSetext(l, lines[i+1]); level > 0 {
				b.Kinds[i] = HeadingLine
				b.Headings = append(b.Headings, Heading{Level: level, Text: strings.TrimSpace(l), Line: i})
				header = level == 1 && len(b.Headings) == 1
				skip = true
				continue
			}
		}
		if k, ok := adocDelimiter(l); ok {
			delim, inner = strings.TrimRight(l, " \t"), k
			b.Kinds[i] = Comment // the delimiter is markup
			continue
		}
		if strings.HasPrefix(l, "//") {
			b.Kinds[i] = Comment
			continue
		}
		if m := adocTitleRE().FindStringSubmatch(l); m != nil {
			b.Kinds[i] = HeadingLine
			b.Headings = append(b.Headings, Heading{Level: len(m[1]), Text: strings.TrimSpace(m[2]), Line: i})
			header = len(m[1]) == 1 && len(b.Headings) == 1 && m[1][0] == '='
			continue
		}
		if adocAttrRE().MatchString(l) || adocBlockRE().MatchString(l) {
			b.Kinds[i] = Comment
			continue
		}
		b.Kinds[i] = Text
	}
	return b
}
