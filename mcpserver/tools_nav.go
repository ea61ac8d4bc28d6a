package mcpserver

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/indexer/markdown"
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
	Package   string `json:"package,omitempty" jsonschema:"package alias, not needed with a reference"`
	Path      string `json:"path" jsonschema:"document path in the package; without package, <alias>/<path> or @ctx/<alias>/<path>"`
	Depth     int    `json:"depth,omitempty" jsonschema:"deepest heading level, default 6"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page"`
	MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"answer budget in tokens, default 10000"`
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
	TotalLines int              `json:"totalLines" jsonschema:"the document's number of lines"`
	Tokens     int              `json:"tokens" jsonschema:"about the o200k tokens of the whole document"`
	Headings   []OutlineHeading `json:"headings" jsonschema:"the headings on this page, in order"`
	Total      int              `json:"total" jsonschema:"headings to list (of the depth asked), over all pages"`
	Listed     int              `json:"listed,omitempty" jsonschema:"on this page, when it does not hold them all"`
	Remaining  int              `json:"remaining,omitempty" jsonschema:"after this page"`
	NextCursor string           `json:"nextCursor,omitempty" jsonschema:"pass it as cursor for the next page; none on the last"`
	Truncated  bool             `json:"truncated,omitempty" jsonschema:"there is a next page"`
	Note       string           `json:"note,omitempty" jsonschema:"why there are no headings, and what to do"`
}

const getOutlineDescription = "A document's headings: level, line, the section's last line and size in tokens. Read one with " +
	"get_section, or get_document with offset = line, limit = endLine - line + 1."

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
	d, err := s.document(in.Package, in.Path)
	if err != nil {
		return nil, GetOutlineOut{}, err
	}
	alias, doc, clean := d.alias, d.doc, d.clean
	listing := listingKey("get_outline", alias, d.path, strconv.Itoa(in.Depth))
	from, started, err := decodeCursor(in.Cursor, listing)
	if err != nil {
		return nil, GetOutlineOut{}, err
	}
	heads, total := s.outline(doc, in.Depth)
	head := GetOutlineOut{Package: alias, Path: clean, TotalLines: len(doc.Lines), Tokens: total, Total: len(heads), Headings: []OutlineHeading{}}
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
	build := func(k int) (*mcp.CallToolResult, any) {
		out := head
		out.Headings = rest[:k:k]
		out.Listed, out.Remaining = pageCounts(k, len(rest), out.Total)
		if k < len(rest) {
			out.Truncated, out.NextCursor = true, encodeCursor(listing, strconv.Itoa(rest[max(k-1, 0)].Line))
		}
		return nil, out
	}
	k, err := s.fitPage(budget, in.MaxTokens, len(rest), maxListLimit, func(i int) int {
		return s.rowTokens(rest[i])
	}, build)
	if err != nil {
		return nil, GetOutlineOut{}, err
	}
	_, out := build(k)
	return nil, out.(GetOutlineOut), nil
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

// ListTagsIn is list_tags' input.
type ListTagsIn struct {
	Package   string `json:"package,omitempty" jsonschema:"only this package's tags"`
	Limit     int    `json:"limit,omitempty" jsonschema:"tags per page, default as many as fit"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page"`
	MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"answer budget in tokens, default 10000"`
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
	Listed     int       `json:"listed,omitempty" jsonschema:"on this page, when it does not hold them all"`
	Remaining  int       `json:"remaining,omitempty" jsonschema:"after this page"`
	NextCursor string    `json:"nextCursor,omitempty" jsonschema:"pass it as cursor for the next page; none on the last"`
	Truncated  bool      `json:"truncated,omitempty" jsonschema:"there is a next page"`
	Note       string    `json:"note,omitempty" jsonschema:"why there are no tags"`
	Warning    string    `json:"warning,omitempty" jsonschema:"the index is stale or unavailable"`
}

const listTagsDescription = "The tags of the installed documents, most used first, with their documents in all and per " +
	"package; search filters on them."

func (s *Server) listTags(ctx context.Context, req *mcp.CallToolRequest, in ListTagsIn) (*mcp.CallToolResult, ListTagsOut, error) {
	if in.Limit < 0 {
		return nil, ListTagsOut{}, errLimit
	}
	budget, err := tokenBudget(in.MaxTokens)
	if err != nil {
		return nil, ListTagsOut{}, err
	}
	listing := listingKey("list_tags", optional(in.Package)...)
	from, started, err := decodeCursor(in.Cursor, listing)
	if err != nil {
		return nil, ListTagsOut{}, err
	}
	_, r, warn, err := s.indexFor(ctx, req, "", optional(in.Package)...)
	if err != nil {
		return nil, ListTagsOut{}, err
	}
	var only []string
	if in.Package != "" {
		only = []string{in.Package}
	}
	counts, err := r.Tags(ctx, only)
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
	build := func(k int) (*mcp.CallToolResult, any) {
		out := head
		out.Tags = rest[:k:k]
		out.Listed, out.Remaining = pageCounts(k, len(rest), out.Total)
		if k < len(rest) {
			out.Truncated, out.NextCursor = true, encodeCursor(listing, key(rest[max(k-1, 0)]))
		}
		return nil, out
	}
	k, err := s.fitPage(budget, in.MaxTokens, len(rest), limit, func(i int) int {
		return s.rowTokens(rest[i])
	}, build)
	if err != nil {
		return nil, ListTagsOut{}, err
	}
	_, out := build(k)
	return nil, out.(ListTagsOut), nil
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
