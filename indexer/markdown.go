package indexer

import (
	"path"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/lazyre"
)

// Lines, front matter, headings and line kinds come from the document
// model (package indexer/markdown), which the MCP server shares: a chunk's
// line numbers are the lines get_document serves.

var tagLineRE = lazyre.New(`(?i)^\s*[*_]{0,2}tags[*_]{0,2}\s*:\s*[*_]{0,2}(.+)$`)

// chunk is one searchable piece of a document.
type chunk struct {
	Trail      []string // heading trail, outermost first
	Start, End int      // 1-based file lines, inclusive
	Text       string   // the lines Start..End
	// headsInText is how many of the trail's last headings are lines of
	// Text (0 for the continuation of a split section).
	headsInText int
	// indexed is what search indexes of Text when masked (dropJSXMarkup
	// dropped some of it; "" when all of it is markup); else search
	// indexes Text.
	indexed string
	masked  bool
	// nav: the chunk is navigation (markNav).
	nav bool
}

// headingTexts returns the text of each heading of d as written, in
// order (every heading, also those of sections too short to be chunks of
// their own), for docKind. Not markdown.Plain's: a version heading has
// little markup ("[1.0.0] - 2017-06-20" keeps its bracket either way),
// and Plain on every heading of every page costs a build more than the
// kinds gain.
func headingTexts(d markdown.Doc) []string {
	// Below the shallowest version heading, a changelog's sections
	// ("Added", "Fixed": Keep a Changelog, changesets) are not counted
	// against its versions (docKind's ratio).
	top := 6
	for _, h := range d.Body.Headings {
		if h.Level < top && versionHead(h.Text) {
			top = h.Level
		}
	}
	hs := make([]string, 0, len(d.Body.Headings))
	for _, h := range d.Body.Headings {
		if h.Level <= top {
			hs = append(hs, h.Text)
		}
	}
	return hs
}

// body is the chunk's text as search indexes it.
func (c chunk) body() string {
	if c.masked {
		return c.indexed
	}
	return c.Text
}

// chunksOf returns the document's chunks (markdown's Doc.Chunks, the one
// cut of a document into chunks, which Doc.Section agrees with) with their
// text.
func chunksOf(d markdown.Doc) []chunk {
	cs := d.Chunks()
	out := make([]chunk, len(cs))
	for i, c := range cs {
		out[i] = chunk{Trail: c.Trail, Start: c.StartLine, End: c.EndLine, Text: strings.Join(d.Lines[c.StartLine-1:c.EndLine], "\n"), headsInText: c.HeadsInText}
	}
	return out
}

var (
	// jsxTagLineRE matches a line that is one JSX tag of a component
	// (a capitalised name: <Note>, </Intro>, <Sandpack>, <InlineToc />,
	// <Diagram name="x" height={250} />), as MDX pages (react.dev,
	// Docusaurus) write them between paragraphs. HTML elements are lower
	// case and stay (Plain drops them where it matters).
	jsxTagLineRE = lazyre.New(`^\s*</?[A-Z][\w.]*(?:\s[^<>]*)?/?>\s*$`)
	// esmLineRE matches an MDX import or export statement on one line.
	esmLineRE = lazyre.New(`^(?:import\s+(?:[\w*{}\s,]+\s+from\s+)?["'][^"']+["'];?|export\s+(?:const|let|var|function|default)\b.*|export\s*\{.*)\s*$`)
	// proseAttrRE matches an attribute value of words ("Basic useState
	// examples"): kept from a tag line as text.
	proseAttrRE = lazyre.New(`[\w:-]+\s*=\s*(?:"([^"]*)"|'([^']*)')`)
)

// mdxHeadingLines returns kept (a chunk's lines as indexed; lines as
// written, body lines from off) with each .mdx heading line that has a
// tag replaced by its heading's text as markdown.ParseFile dropped its
// JSX (dropJSXTags: the one owner), so search and the snippet agree with
// the title and the trail. kept itself is not changed when it is lines.
func mdxHeadingLines(kept, lines []string, hs []markdown.Heading, off int) []string {
	for _, h := range hs {
		j := h.Line - off
		if j < 0 || j >= len(lines) || !strings.Contains(lines[j], "<") {
			continue
		}
		t := strings.TrimLeft(lines[j], " \t")
		marks := t[:len(t)-len(strings.TrimLeft(t, "#"))]
		if &kept[0] == &lines[0] {
			kept = slices.Clone(lines)
		}
		kept[j] = strings.TrimSpace(marks + " " + h.Text)
	}
	return kept
}

// dropJSXMarkup returns lines (body lines from off, whose kinds are kinds
// [off:]) with the lines that are only JSX markup emptied: a component's
// opening, closing or self-closing tag on a line of its own, an MDX import
// or export. The prose between a component's tags (<Note>…</Note>,
// <Intro>…</Intro>) is text and stays, and so do a tag's attribute values
// of several words (titleText="Basic examples"); a tag's name and its
// other attributes are not words of the page (issue 27). lines itself is
// not changed.
func dropJSXMarkup(lines []string, kinds []markdown.Kind, off int) []string {
	var out []string
	text := func(j int) bool { i := off + j; return i >= 0 && i < len(kinds) && kinds[i] == markdown.Text }
	for j := 0; j < len(lines); j++ {
		l := lines[j]
		if !text(j) {
			continue
		}
		t := strings.TrimLeft(l, " \t")
		if t == "" || (t[0] != '<' && !strings.HasPrefix(t, "import") && !strings.HasPrefix(t, "export")) {
			continue
		}
		if end := jsxMultiLine(lines, j, text); end > j {
			// A tag or an import over several lines: markup, but for
			// the tag's strings of several words (attribute values, and
			// strings in its expressions: a tab's label).
			if out == nil {
				out = slices.Clone(lines)
			}
			var words []string
			if t[0] == '<' {
				for _, m := range jsxStringRE().FindAllStringSubmatch(strings.Join(lines[j:end+1], "\n"), -1) {
					if v := strings.TrimSpace(m[1] + m[2]); strings.ContainsAny(v, " \t") {
						words = append(words, v)
					}
				}
			}
			for k := j; k <= end; k++ {
				out[k] = ""
			}
			out[j] = strings.Join(words, " ")
			j = end
			continue
		}
		if jsxTagLineRE().MatchString(l) || esmLineRE().MatchString(t) {
			if out == nil {
				out = slices.Clone(lines)
			}
			out[j] = ""
			if t[0] == '<' {
				var words []string
				for _, m := range proseAttrRE().FindAllStringSubmatch(t, -1) {
					if v := strings.TrimSpace(m[1] + m[2]); strings.ContainsAny(v, " \t") {
						words = append(words, v)
					}
				}
				out[j] = strings.Join(words, " ")
			}
		}
	}
	if out == nil {
		return lines
	}
	return out
}

var (
	// jsxOpenRE matches the start of a component's tag left open on its
	// line (its attributes follow on the next lines).
	jsxOpenRE = lazyre.New(`^\s*<[A-Z][\w.]*(?:\s|$)`)
	// importOpenRE matches an import whose braces close on a later line,
	// importCloseRE that line.
	importOpenRE  = lazyre.New(`^import\s+(?:[\w*]+\s*,\s*)?\{[^}]*$`)
	importCloseRE = lazyre.New(`^\s*\}\s*from\s*["'][^"']+["'];?\s*$`)
	// jsxStringRE matches a string in a tag: "…" or '…' on one line.
	jsxStringRE = lazyre.New(`"([^"\n]*)"|'([^'\n]*)'`)
)

// jsxMultiLine returns the last line of the component tag or the import
// that starts at lines[j] and ends on a later line, or -1 when there is
// none: a tag is read as JSX reads it (markdown.JSXTagEnd, the reader of
// an MDX heading's tags too) and must end with nothing after its ">" on
// its line; an import ends at "} from '…'".
// Every line must be text (isText), and a tag or import longer than 100
// lines is not taken for one.
func jsxMultiLine(lines []string, j int, isText func(int) bool) int {
	t := strings.TrimLeft(lines[j], " \t")
	switch {
	case strings.HasPrefix(t, "import"):
		if !importOpenRE().MatchString(t) {
			return -1
		}
		for k := j + 1; k < len(lines) && k <= j+100 && isText(k); k++ {
			if importCloseRE().MatchString(lines[k]) {
				return k
			}
		}
		return -1
	case t != "" && t[0] == '<':
		if !jsxOpenRE().MatchString(t) {
			return -1
		}
	default:
		return -1
	}
	at := len(lines[j]) - len(t) // the tag's "<"
	if end, _ := markdown.JSXTagEnd(lines[j], at); end >= 0 {
		return -1 // ends on its line (jsxTagLineRE's), or is not a tag
	}
	last := j
	for last+1 < len(lines) && last+1 <= j+100 && isText(last+1) {
		last++
	}
	tag := strings.Join(lines[j:last+1], "\n")
	end, _ := markdown.JSXTagEnd(tag, at)
	if end <= 0 {
		return -1
	}
	k := j + strings.Count(tag[:end], "\n")
	if strings.TrimSpace(tag[end:end+strings.IndexByte(tag[end:]+"\n", '\n')]) != "" {
		return -1 // text follows
	}
	return k
}

var quoteRE = lazyre.New(`^ {0,3}>\s?`)

// firstParagraph returns the first paragraph of prose: block quotes are
// unwrapped, list items kept; headings, code, HTML, tables, images and tag
// lines are skipped.
func firstParagraph(lines []string, s markdown.Body) string {
	var para []string
	for i, l := range lines {
		k := s.Kinds[i]
		if k != markdown.Text {
			if len(para) > 0 && (k == markdown.Blank || k == markdown.HeadingLine || k == markdown.Code) {
				break
			}
			continue
		}
		t := strings.TrimSpace(quoteRE().ReplaceAllString(l, ""))
		if t == "" {
			if len(para) > 0 {
				break
			}
			continue
		}
		if strings.HasPrefix(t, "<") || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "![") ||
			strings.HasPrefix(t, "[![") || tagLineRE().MatchString(t) || isRule(t) || isLinkDef(t) ||
			linkItemRE().MatchString(t) || checkItemRE().MatchString(t) {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, t)
		if len(para) >= 20 {
			break
		}
	}
	return markdown.Plain(strings.Join(para, " "))
}

var (
	linkDefRE   = lazyre.New(`^\[[^\]]+\]:\s`)
	linkItemRE  = lazyre.New(`^(?:(?:[-*+]|\d+[.)])\s+)?\[[^\]]*\]\([^)]*\)\s*$`) // a table-of-contents or navigation entry
	checkItemRE = lazyre.New(`^(?:[-*+]|\d+[.)])\s+\[[ xX]\]\s`)                  // a checklist item
	summaryHdRE = lazyre.New(`(?i)^(summary|overview|abstract|tl;?dr)$`)
)

// sectionSummary returns the first paragraph of a section headed
// "Summary", "Overview", "Abstract" or "TL;DR", when the document has one
// (design documents and KEPs put a title, a table of contents and
// checklists before it).
func sectionSummary(lines []string, s markdown.Body) string {
	for i, h := range s.Headings {
		if h.Level > 3 || !summaryHdRE().MatchString(strings.TrimSpace(markdown.Plain(h.Text))) {
			continue
		}
		end := len(lines)
		for _, n := range s.Headings[i+1:] {
			if n.Level <= 3 {
				end = n.Line
				break
			}
		}
		from := h.Line + 1
		for from < end && s.Kinds[from] == markdown.HeadingCont {
			from++
		}
		if from >= end {
			return ""
		}
		return firstParagraph(lines[from:end], markdown.Body{Kinds: s.Kinds[from:end]})
	}
	return ""
}

func isLinkDef(t string) bool { return linkDefRE().MatchString(t) }

func isRule(t string) bool {
	t = strings.ReplaceAll(t, " ", "")
	if len(t) < 3 {
		return false
	}
	return strings.Trim(t, "-") == "" || strings.Trim(t, "*") == "" || strings.Trim(t, "_") == ""
}

// inlineTags finds a "Tags: a, b" line outside code.
func inlineTags(lines []string, s markdown.Body) []string {
	for i, l := range lines {
		if s.Kinds[i] != markdown.Text {
			continue
		}
		if m := tagLineRE().FindStringSubmatch(l); m != nil {
			return cleanTags(strings.Split(strings.Trim(m[1], "*_ "), ","))
		}
	}
	return nil
}

// parsed is everything ctx learns from one document.
type parsed struct {
	Title   string
	Summary string
	Tags    []string
	Type    string
	Lines   int
	Chunks  []chunk
	Meta    map[string]any // normalised front matter (normalizeMeta)
	Links   []rawLink      // front matter links, then body links in line order
	Labels  []string       // the rst labels the document defines (rstLabel)
	Heads   []string       // the headings' text as written, in order, down to the level of the shallowest version heading (headingTexts); none for data files

	summaryFromFM bool
	// keyTitle: the title is a data file's key value (dataTitle), which
	// its key's chunk holds; it is not put in front of every chunk as a
	// document's title is.
	keyTitle bool
	// titleFallback: a markdown document whose front matter has no title
	// (or page_title) is titled from its body or file name; its bundle
	// page's title wins (bundle.go): the site shows that page's title
	// above the document's text, headings and all.
	titleFallback bool
}

// mdxExportTitleRE matches an MDX page's `export const title = "…"`.
var mdxExportTitleRE = lazyre.New("^export\\s+const\\s+title\\s*=\\s*(?:\"([^\"]*)\"|'([^']*)'|`([^`$]*)`)\\s*;?\\s*$")

// mdxTitle returns the title an MDX page sets with
// `export const title = "…"` on a line of its own, outside code; "" when
// none does.
func mdxTitle(lines []string, s markdown.Body) string {
	for i, l := range lines {
		if s.Kinds[i] != markdown.Text || !strings.HasPrefix(l, "export") {
			continue
		}
		if m := mdxExportTitleRE().FindStringSubmatch(l); m != nil {
			return strings.TrimSpace(m[1] + m[2] + m[3])
		}
	}
	return ""
}

// parseMarkdown parses one markdown document (parseDocument parses any
// format). name is used for the fallback title and in warnings; warn may
// be nil.
func parseMarkdown(name string, content []byte, warn func(string)) parsed {
	d := markdown.ParseFile(name, content) // an .mdx page's headings without their JSX
	lines := d.Lines
	p := parsed{Lines: len(lines)}
	var fm frontMatter
	block, err := d.FrontMatter, d.FrontMatterErr
	if err != nil {
		if warn != nil {
			warn(name + ":" + strings.TrimPrefix(err.Error(), "line ") + "; front matter ignored, body indexed")
		}
	} else if block.Format != "" {
		fm, err = decodeFrontMatter(block)
		if err != nil && warn != nil {
			warn(name + ":" + strings.TrimPrefix(err.Error(), "line ") + "; front matter ignored, body indexed")
		}
	}
	body := lines[block.End:]
	s := d.Body
	p.Title = fm.Title
	if p.Title == "" && fm.PageTitle != "" && (len(s.Headings) == 0 || s.Headings[0].Level > 1) {
		// the front matter's page_title, which the site shows as the
		// page's title, before a section's heading; an H1 says what the
		// page shows and wins over it.
		p.Title = fm.PageTitle
	}
	// A title from the body or the file name gives way to the title of
	// the bundle page that includes the document (bundle.go).
	p.titleFallback = p.Title == ""
	if p.Title == "" && len(s.Headings) > 0 {
		p.Title = markdown.Plain(s.Headings[0].Text)
	}
	if p.Title == "" {
		p.Title = mdxTitle(body, s)
	}
	if p.Title == "" {
		base := path.Base(name)
		p.Title = strings.TrimSuffix(base, path.Ext(base))
	}
	p.Title = markdown.Clip(p.Title, markdown.MaxHeadingBytes)
	p.Summary = fm.Summary
	p.summaryFromFM = p.Summary != ""
	if p.Summary == "" {
		p.Summary = sectionSummary(body, s)
	}
	if p.Summary == "" {
		p.Summary = firstParagraph(body, s)
	}
	p.Summary = markdown.Clip(p.Summary, 300)
	p.Tags = fm.Tags
	if len(p.Tags) == 0 {
		p.Tags = inlineTags(body, s)
	}
	p.Type = fm.Type
	p.Heads = headingTexts(d)
	p.Chunks = boundChunks(chunksOf(d))
	markNav(p.Chunks, nil)
	for i, c := range p.Chunks {
		lines := strings.Split(c.Text, "\n")
		kept := dropJSXMarkup(lines, s.Kinds, c.Start-1-block.End)
		if markdown.IsMDX(name) {
			kept = mdxHeadingLines(kept, lines, s.Headings, c.Start-1-block.End)
		}
		if &kept[0] != &lines[0] {
			p.Chunks[i].indexed, p.Chunks[i].masked = strings.Join(kept, "\n"), true
		}
	}
	p.Meta = normalizeMeta(fm.Fields)
	for _, l := range frontMatterLinks(fm.Fields, block.First+1) {
		l.Line = keyLine(lines, block, l.Type)
		p.Links = append(p.Links, l)
	}
	p.Links = append(p.Links, extractLinks(lines, s, block.End)...)
	if len(p.Links) > maxLinksPerDoc {
		p.Links = p.Links[:maxLinksPerDoc]
	}
	return p
}

// keyLine returns the 1-based line of key in the front matter block (the
// block's first line when it cannot be told).
func keyLine(lines []string, block markdown.FrontMatter, key string) int {
	for i := block.First; i < block.End && i < len(lines); i++ {
		t := strings.TrimLeft(lines[i], " \t\"'")
		if strings.HasPrefix(t, key) {
			rest := strings.TrimLeft(t[len(key):], " \t\"'")
			if strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "=") {
				return i + 1
			}
		}
	}
	return block.First + 1
}

// firstSentence returns the first sentence of s (at most 160 bytes).
func firstSentence(s string) string {
	for i := 0; i+1 < len(s); i++ {
		switch s[i] {
		case '.', '!', '?':
			if s[i+1] == ' ' && i > 10 {
				return markdown.Clip(s[:i+1], 160)
			}
		}
	}
	return markdown.Clip(s, 160)
}
