package mcpserver

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The navigation tools (issue 14): list_contexts (tools_list.go),
// get_outline and list_tags, each answer within its budget and paged with
// cursors.

// maxTagPackages is how many packages a tag of list_tags names with their
// counts; the others are counted in morePackages.
const maxTagPackages = 20

// addNavTools registers list_contexts, get_outline and list_tags.
func (s *Server) addNavTools() {
	s.addListTool()
	addTool(s, &mcp.Tool{
		Name:        "get_outline",
		Description: getOutlineDescription,
		Annotations: readOnly("Outline of a document"),
	}, map[string]bound{"depth": {0, 6}, "maxTokens": maxTokensBound}, s.getOutline)
	addTool(s, &mcp.Tool{
		Name:        "list_tags",
		Description: listTagsDescription,
		Annotations: readOnly("List tags"),
	}, map[string]bound{"limit": {0, maxListLimit}, "maxTokens": maxTokensBound}, s.listTags)
}

func (in GetOutlineIn) maxTokens() int { return in.MaxTokens }
func (in ListTagsIn) maxTokens() int   { return in.MaxTokens }

// GetOutlineIn is get_outline's input.
type GetOutlineIn struct {
	Package   string `json:"package,omitempty" jsonschema:"the package alias (not needed when path is a reference)"`
	Path      string `json:"path" jsonschema:"the document's path inside the package, or a reference to it: @ctx/<alias>/<path> or ctx://packages/<alias>/<path>"`
	Depth     int    `json:"depth,omitempty" jsonschema:"only headings of this level or higher: 1 for # only, 2 for # and ## (default: all, 6)"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page, with the same other arguments"`
	MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"the answer's token budget (default 10000, max 20000)"`
}

// OutlineHeading is one heading of get_outline: its section's lines and size.
type OutlineHeading struct {
	Level   int    `json:"level" jsonschema:"1 for #, … 6"`
	Heading string `json:"heading" jsonschema:"as written, without the #s"`
	Line    int    `json:"line" jsonschema:"the heading's line, 1-based: get_section's startLine"`
	EndLine int    `json:"endLine" jsonschema:"the section's last line, its sub-sections included: get_section's endLine"`
	Tokens  int    `json:"tokens" jsonschema:"about the o200k tokens of lines line..endLine"`
}

// GetOutlineOut is get_outline's output.
type GetOutlineOut struct {
	Package    string           `json:"package" jsonschema:"the package alias"`
	Path       string           `json:"path" jsonschema:"the document's path inside the package"`
	URI        string           `json:"uri" jsonschema:"the document's resource URI"`
	TotalLines int              `json:"totalLines" jsonschema:"the document's number of lines"`
	Tokens     int              `json:"tokens" jsonschema:"about the o200k tokens of the whole document"`
	Headings   []OutlineHeading `json:"headings" jsonschema:"the headings on this page, in order"`
	Total      int              `json:"total" jsonschema:"headings to list (of the depth asked), over all pages"`
	Listed     int              `json:"listed" jsonschema:"on this page"`
	Remaining  int              `json:"remaining" jsonschema:"after this page"`
	NextCursor string           `json:"nextCursor,omitempty" jsonschema:"pass it as cursor for the next page; none on the last"`
	Truncated  bool             `json:"truncated,omitempty" jsonschema:"there is a next page"`
	Note       string           `json:"note,omitempty" jsonschema:"why there are no headings, and what to do"`
}

const getOutlineDescription = "The outline of one document: its headings in order, each with its level, line, the last line of its section " +
	"(sub-sections included) and the section's size in tokens (o200k, about), and the document's lines and tokens. Use it to " +
	"choose what to read in a long document: get_section with a heading, or get_document with offset = line and limit = " +
	"endLine - line + 1 (exact even when two headings have the same text). `depth` keeps the upper levels only. Answers fit " +
	"`maxTokens` (default 10000): when `nextCursor` is set, call again with the same arguments and `cursor` = nextCursor."

func (s *Server) getOutline(ctx context.Context, _ *mcp.CallToolRequest, in GetOutlineIn) (*mcp.CallToolResult, GetOutlineOut, error) {
	if in.Depth < 0 || in.Depth > 6 {
		return nil, GetOutlineOut{}, fmt.Errorf("depth %d is out of range: give a heading level, 1 to 6", in.Depth)
	}
	if in.Depth == 0 {
		in.Depth = 6
	}
	budget, err := tokenBudget(in.MaxTokens)
	if err != nil {
		return nil, GetOutlineOut{}, err
	}
	alias, p, err := refTarget(in.Package, in.Path)
	if err != nil {
		return nil, GetOutlineOut{}, err
	}
	listing := listingKey("get_outline", alias, p, strconv.Itoa(in.Depth))
	from, started, err := decodeCursor(in.Cursor, listing)
	if err != nil {
		return nil, GetOutlineOut{}, err
	}
	clean, data, err := s.openDoc(s.snapshot(), alias, p)
	if err != nil {
		return nil, GetOutlineOut{}, err
	}
	doc := markdown.ParseFile(clean, data)
	heads, total := s.outline(doc, in.Depth)
	head := GetOutlineOut{Package: alias, Path: clean, URI: docURI(alias, clean), TotalLines: len(doc.Lines), Tokens: total, Total: len(heads), Headings: []OutlineHeading{}}
	if len(heads) == 0 {
		head.Note = "no headings"
		if in.Depth < 6 {
			head.Note += fmt.Sprintf(" of level %d or higher: try a larger depth, or", in.Depth)
		} else {
			head.Note += ":"
		}
		head.Note += " read it with get_document"
	}
	byLine := func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return cmp.Compare(x, y)
	}
	rest := after(heads, func(h OutlineHeading) string { return strconv.Itoa(h.Line) }, byLine, from, started)
	lines := make([]string, 0, len(rest))
	build := func(k int) (*mcp.CallToolResult, any) {
		out := head
		out.Headings = rest[:k:k]
		lines = lines[:0]
		for _, h := range out.Headings {
			lines = append(lines, outlineLine(h))
		}
		out.Listed, out.Remaining = k, len(rest)-k
		if k < len(rest) {
			out.Truncated, out.NextCursor = true, encodeCursor(listing, strconv.Itoa(rest[max(k-1, 0)].Line))
		}
		return outlineResult(out, lines), out
	}
	k, err := s.fitPage(budget, in.MaxTokens, len(rest), maxListLimit, func(i int) int {
		return s.rowTokens(rest[i], outlineLine(rest[i]))
	}, build)
	if err != nil {
		return nil, GetOutlineOut{}, err
	}
	res, out := build(k)
	return res, out.(GetOutlineOut), nil
}

// outline is doc's headings of level ≤ depth with their sections
// (markdown's Sections: the extent get_section serves) and sizes, and the
// document's tokens. Each run of lines from one heading to the next is
// counted once; a section's tokens are the sum of its runs.
func (s *Server) outline(doc markdown.Doc, depth int) ([]OutlineHeading, int) {
	secs := doc.Sections()
	// runs[i] is the tokens of lines secs[i].StartLine up to the next
	// heading's line (or the end); pre is those before the first heading.
	runs := make([]int, len(secs))
	count := func(from, to int) int { // 1-based lines, inclusive
		if from > to {
			return 0
		}
		return s.countTokens(strings.Join(doc.Lines[from-1:to], "\n") + "\n")
	}
	first := len(doc.Lines) + 1
	if len(secs) > 0 {
		first = secs[0].StartLine
	}
	total := count(1, first-1)
	for i, sec := range secs {
		end := len(doc.Lines)
		if i+1 < len(secs) {
			end = secs[i+1].StartLine - 1
		}
		runs[i] = count(sec.StartLine, end)
		total += runs[i]
	}
	var out []OutlineHeading
	for i, sec := range secs {
		if sec.Level > depth {
			continue
		}
		h := OutlineHeading{Level: sec.Level, Heading: clipTitle(sec.Heading), Line: sec.StartLine, EndLine: sec.EndLine}
		for j := i; j < len(secs) && secs[j].StartLine <= sec.EndLine; j++ {
			h.Tokens += runs[j]
		}
		out = append(out, h)
	}
	return out, total
}

// outlineLine is a heading's line in get_outline's text.
func outlineLine(h OutlineHeading) string {
	return fmt.Sprintf("%s%s %s — lines %d-%d, %d tokens", strings.Repeat("  ", h.Level-1), strings.Repeat("#", h.Level),
		safetext.Escape(h.Heading), h.Line, h.EndLine, h.Tokens)
}

func outlineResult(out GetOutlineOut, lines []string) *mcp.CallToolResult {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s: %d lines, about %d tokens, %d headings", out.Package, safetext.Escape(out.Path), out.TotalLines, out.Tokens, out.Total)
	if out.Listed < out.Total {
		fmt.Fprintf(&b, "; %d listed here, %d after them", out.Listed, out.Remaining)
	}
	b.WriteString("\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	if out.NextCursor != "" {
		fmt.Fprintf(&b, "More: call get_outline again with the same arguments and cursor %q.\n", out.NextCursor)
	}
	if out.Note != "" {
		b.WriteString(out.Note + "\n")
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}
}

// ListTagsIn is list_tags' input.
type ListTagsIn struct {
	Package   string `json:"package,omitempty" jsonschema:"only the tags of this package alias (default: all packages)"`
	Limit     int    `json:"limit,omitempty" jsonschema:"at most this many tags in a page (default: as many as fit maxTokens, at most 1000)"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page, with the same other arguments"`
	MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"the answer's token budget (default 10000, max 20000)"`
}

// TagInfo is one tag of list_tags.
type TagInfo struct {
	Tag          string         `json:"tag" jsonschema:"the tag"`
	Count        int            `json:"count" jsonschema:"documents with the tag"`
	Packages     map[string]int `json:"packages" jsonschema:"alias → its documents with the tag (the 20 largest)"`
	MorePackages int            `json:"morePackages,omitempty" jsonschema:"other packages with the tag, not in packages"`

	full string // the whole tag (Tag is clipped): the page cursor's key
}

// ListTagsOut is list_tags' output.
type ListTagsOut struct {
	Package    string    `json:"package,omitempty" jsonschema:"the package whose tags these are (with package)"`
	Tags       []TagInfo `json:"tags" jsonschema:"the tags on this page, most used first"`
	Total      int       `json:"total" jsonschema:"tags, over all pages"`
	Listed     int       `json:"listed" jsonschema:"on this page"`
	Remaining  int       `json:"remaining" jsonschema:"after this page"`
	NextCursor string    `json:"nextCursor,omitempty" jsonschema:"pass it as cursor for the next page; none on the last"`
	Truncated  bool      `json:"truncated,omitempty" jsonschema:"there is a next page"`
	Note       string    `json:"note,omitempty" jsonschema:"why there are no tags"`
	Warning    string    `json:"warning,omitempty" jsonschema:"the index is stale or unavailable"`
}

const listTagsDescription = "The tags of the installed documents (front matter tags and keywords, or a Tags: line), most used first, each " +
	"with its number of documents in all and per package. Give `package` for one package's tags. Filter search with them (`tags`, " +
	"or tag:NAME in the query). Answers fit `maxTokens` (default 10000): when `nextCursor` is set, call again with the same " +
	"arguments and `cursor` = nextCursor."

func (s *Server) listTags(ctx context.Context, req *mcp.CallToolRequest, in ListTagsIn) (*mcp.CallToolResult, ListTagsOut, error) {
	if in.Limit < 0 {
		return nil, ListTagsOut{}, errLimit
	}
	budget, err := tokenBudget(in.MaxTokens)
	if err != nil {
		return nil, ListTagsOut{}, err
	}
	listing := listingKey("list_tags", in.Package)
	from, started, err := decodeCursor(in.Cursor, listing)
	if err != nil {
		return nil, ListTagsOut{}, err
	}
	r, warn, err := s.linkReader(ctx, req, in.Package, "")
	if err != nil {
		return nil, ListTagsOut{}, err
	}
	var only []string
	if in.Package != "" {
		only = []string{in.Package}
	}
	counts, err := r.Tags(only)
	if err != nil {
		return nil, ListTagsOut{}, err
	}
	tags := make([]TagInfo, len(counts))
	for i, c := range counts {
		tags[i] = tagInfo(c.Tag, c.Count, c.Packages)
	}
	head := ListTagsOut{Package: in.Package, Tags: []TagInfo{}, Total: len(tags), Warning: warn}
	if len(tags) == 0 {
		head.Note = "no document has tags: they come from front matter (tags, keywords) or a Tags: line"
	}
	// Tags are ordered by count, most first, then by name: the key is both.
	key := func(t TagInfo) string { return strconv.Itoa(t.Count) + " " + t.full }
	order := func(a, b string) int {
		ca, ta, _ := strings.Cut(a, " ")
		cb, tb, _ := strings.Cut(b, " ")
		x, _ := strconv.Atoi(ca)
		y, _ := strconv.Atoi(cb)
		if x != y {
			return cmp.Compare(y, x)
		}
		return strings.Compare(ta, tb)
	}
	rest := after(tags, key, order, from, started)
	limit := in.Limit
	if limit == 0 || limit > maxListLimit {
		limit = maxListLimit
	}
	lines := make([]string, 0, len(rest))
	build := func(k int) (*mcp.CallToolResult, any) {
		out := head
		out.Tags = rest[:k:k]
		lines = lines[:0]
		for _, t := range out.Tags {
			lines = append(lines, tagLine(t))
		}
		out.Listed, out.Remaining = k, len(rest)-k
		if k < len(rest) {
			out.Truncated, out.NextCursor = true, encodeCursor(listing, key(rest[max(k-1, 0)]))
		}
		return tagsResult(out, lines), out
	}
	k, err := s.fitPage(budget, in.MaxTokens, len(rest), limit, func(i int) int {
		return s.rowTokens(rest[i], tagLine(rest[i]))
	}, build)
	if err != nil {
		return nil, ListTagsOut{}, err
	}
	res, out := build(k)
	return res, out.(ListTagsOut), nil
}

// tagInfo is a tag with at most maxTagPackages of its packages, those
// with the most documents first (then by alias).
func tagInfo(tag string, count int, per map[string]int) TagInfo {
	t := TagInfo{Tag: clipTitle(tag), Count: count, Packages: map[string]int{}, full: tag}
	aliases := make([]string, 0, len(per))
	for a := range per {
		aliases = append(aliases, a)
	}
	slices.SortFunc(aliases, func(a, b string) int {
		if per[a] != per[b] {
			return cmp.Compare(per[b], per[a])
		}
		return strings.Compare(a, b)
	})
	for i, a := range aliases {
		if i >= maxTagPackages {
			t.MorePackages = len(aliases) - maxTagPackages
			break
		}
		t.Packages[a] = per[a]
	}
	return t
}

// tagLine is a tag's line in list_tags' text.
func tagLine(t TagInfo) string {
	aliases := make([]string, 0, len(t.Packages))
	for a := range t.Packages {
		aliases = append(aliases, a)
	}
	slices.SortFunc(aliases, func(a, b string) int {
		if t.Packages[a] != t.Packages[b] {
			return cmp.Compare(t.Packages[b], t.Packages[a])
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(aliases))
	for i, a := range aliases {
		parts[i] = fmt.Sprintf("%s %d", a, t.Packages[a])
	}
	if t.MorePackages > 0 {
		parts = append(parts, fmt.Sprintf("%d more packages", t.MorePackages))
	}
	return fmt.Sprintf("%s %d (%s)", safetext.Escape(t.Tag), t.Count, strings.Join(parts, ", "))
}

func tagsResult(out ListTagsOut, lines []string) *mcp.CallToolResult {
	var b strings.Builder
	fmt.Fprintf(&b, "%d tags", out.Total)
	if out.Package != "" {
		fmt.Fprintf(&b, " in %s", out.Package)
	}
	if out.Listed < out.Total {
		fmt.Fprintf(&b, "; %d listed here, %d after them", out.Listed, out.Remaining)
	}
	b.WriteString(" (tag, documents, per package)\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	if out.NextCursor != "" {
		fmt.Fprintf(&b, "More: call list_tags again with the same arguments and cursor %q.\n", out.NextCursor)
	}
	for _, n := range []string{out.Note, out.Warning} {
		if n != "" {
			b.WriteString(n + "\n")
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}
}
