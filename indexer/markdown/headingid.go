package markdown

import (
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// Heading-ID markers and rst roles in headings (issue 26). Documentation
// sites set a heading's anchor by hand at its end: MDX as react.dev writes
// it, "## Usage {/*usage*/}", and Python-Markdown's attr_list (mkdocs,
// FastAPI) or Pandoc/kramdown, "## Usage { #usage }", "{#usage .cls}",
// "{: #usage}". HashiCorp's MDX (Consul, Vault, Terraform) gives a heading
// more anchors in double parentheses, "## Register Check ((#register-check))"
// or "((#a, #b))"; the first is its id. The marker is not a word of the
// heading: Scan strips it,
// so trails, titles and search see "Usage", and Doc.Section still finds
// the section by the id ("usage" or "#usage"). reStructuredText headings
// write code with roles (":mod:`json`", ":func:`~os.path.join`",
// ":ref:`the guide <guide-label>`"); the rst reader (readRST, RSTInline)
// reduces each to the text Sphinx shows ("json", "join", "the guide").

var (
	// headingIDRE matches a heading-ID marker at the end of a heading's
	// text: {/*id*/} (MDX), or an attribute list of #ids, .classes and
	// key=value pairs, optionally opened with ":" (attr_list, kramdown).
	headingIDRE = lazyre.New(`[ \t]*\{(?:/\*[ \t]*([^*{}]*?)[ \t]*\*/|:?[ \t]*((?:(?:[#.][\w\-:.]+|[\w-]+=(?:"[^"]*"|'[^']*'|[^\s}"']+))[ \t]*)+))\}[ \t]*$`)
	idAttrRE    = lazyre.New(`(?:^|[ \t])#([\w\-:.]+)`)
	// aliasIDRE matches HashiCorp's anchor aliases at the end of a heading:
	// "((#id))", "((#a, #b))" (one or more #s before each).
	aliasIDRE = lazyre.New(`[ \t]*\(\([ \t]*#+([\w\-:.]+)(?:[ \t]*,[ \t]*#+[\w\-:.]+)*[ \t]*\)\)[ \t]*$`)
)

// StripHeadingID splits a heading's text into its words and the id its
// heading-ID marker gives ("" when it has none; a marker of classes only,
// "{.unnumbered}", is stripped with no id).
func StripHeadingID(text string) (clean, id string) {
	if strings.Contains(text, "((") {
		if m := aliasIDRE().FindStringSubmatchIndex(text); m != nil && m[0] > 0 {
			return strings.TrimRight(text[:m[0]], " \t"), text[m[2]:m[3]]
		}
	}
	if strings.IndexByte(text, '{') < 0 {
		return text, ""
	}
	m := headingIDRE().FindStringSubmatchIndex(text)
	if m == nil || m[0] == 0 {
		return text, "" // a heading that is only a marker stays as written
	}
	clean = strings.TrimRight(text[:m[0]], " \t")
	switch {
	case m[2] >= 0:
		id = text[m[2]:m[3]]
	case m[4] >= 0:
		if a := idAttrRE().FindStringSubmatch(text[m[4]:m[5]]); a != nil {
			id = a[1]
		}
	}
	return clean, id
}

// headingID returns the id that outline heading h (1-based Line) sets with
// a heading-ID marker in a markdown document, "" when none: the marker is
// at the end of its line (ATX) or of its last text line (setext).
func (d Doc) headingID(h Heading) string {
	if d.Format != FormatMarkdown {
		return ""
	}
	for i := h.Line - 1; i >= 0 && i < len(d.Lines) && i < h.Line+8; i++ {
		l := d.Lines[i]
		if i > h.Line-1 && (strings.TrimSpace(l) == "" || setextRE().MatchString(l)) {
			break
		}
		if _, id := StripHeadingID(strings.TrimRight(atxEndRE().ReplaceAllString(strings.TrimRight(l, " \t"), ""), " \t")); id != "" {
			return id
		}
	}
	return ""
}
