package markdown

import (
	"regexp"
	"strings"
)

var (
	linkRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	emph   = strings.NewReplacer("**", "", "__", "") // as the regexp \*\*|__, without its scan of every position
	autoRE = regexp.MustCompile(`<(https?://[^>]+)>`)
	tagsRE = regexp.MustCompile(`</?[a-zA-Z][^>]*>`)
)

// Plain removes markdown markup that a reader of INDEX.md or a heading
// trail does not need: links keep their text, emphasis markers (** and __)
// and HTML tags go, runs of white space become one space. The indexer's
// heading trails are the Plain texts of headings.
//
// Each expression runs only when its first character is in s: Go's regexp
// tries every position of a string, and this runs on every summary and
// heading of every document.
func Plain(s string) string {
	if strings.IndexByte(s, '[') >= 0 {
		s = linkRE.ReplaceAllString(s, "$1")
	}
	if strings.IndexByte(s, '<') >= 0 {
		s = autoRE.ReplaceAllString(s, "$1")
		s = tagsRE.ReplaceAllString(s, "")
	}
	s = emph.Replace(s)
	return strings.Join(strings.Fields(s), " ")
}
