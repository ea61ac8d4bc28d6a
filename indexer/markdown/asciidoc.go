package markdown

import (
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// AsciiDoc section titles, as Asciidoctor reads them: "= Title" is level
// 1 (the document title), "== Section" level 2, and so on to "======"
// (level 6); the markdown-style "#" form counts the same. A title is
// never inside a delimited block (listing ----, literal ...., passthrough
// ++++, fenced ```, comment ////, and example ====, sidebar ****, quote
// ____, which close on the same line) nor a "//" comment line. The lines
// right after the document title (author, revision) and attribute entries
// (":toc:") and block attributes ("[source,go]") are Comment: metadata,
// not prose.

var (
	adocTitleRE = lazyre.New(`^(={1,6}|#{1,6})[ \t]+(\S.*?)(?:[ \t]+=+)?[ \t]*$`)
	adocAttrRE  = lazyre.New(`^:!?[\w][\w-]*!?:(?:[ \t]|$)`)
	adocBlockRE = lazyre.New(`^\[[^\]]*\][ \t]*$`)
)

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
	for i, l := range lines {
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
