package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/project"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Search limits.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 50
)

// SearchIn is search's input.
type SearchIn struct {
	Query           string   `json:"query" jsonschema:"what to look for, in plain words; \"exact phrase\", -word, package:ALIAS, path:PREFIX, tag:TAG and kind:KIND also work (see the tool's description); at most 1000 words and 8 KB"`
	Packages        []string `json:"packages,omitempty" jsonschema:"only these package aliases (default: all)"`
	Kind            string   `json:"kind,omitempty" jsonschema:"only packages of this source kind: git, dir (the project's own files, live) or https"`
	Tags            []string `json:"tags,omitempty" jsonschema:"only documents with any of these front-matter tags"`
	Limit           int      `json:"limit,omitempty" jsonschema:"number of hits (default 10, max 50)"`
	BestPerDocument bool     `json:"bestPerDocument,omitempty" jsonschema:"return only the best passage of each document"`
}

// SearchHit is one search result.
type SearchHit struct {
	Package string   `json:"package"`
	Path    string   `json:"path"`
	Heading string   `json:"heading,omitempty"` // heading trail "A > B > C"
	Lines   [2]int   `json:"lines"`             // first and last line, 1-based
	Score   float64  `json:"score"`
	Tags    []string `json:"tags,omitempty"` // the document's tags
	Snippet string   `json:"snippet"`
	URI     string   `json:"uri"`
}

// SearchOut is search's output.
type SearchOut struct {
	Hits    []SearchHit `json:"hits"`
	Note    string      `json:"note,omitempty"`
	Warning string      `json:"warning,omitempty"`
}

// GetDocumentIn is get_document's input.
type GetDocumentIn struct {
	Package string `json:"package,omitempty" jsonschema:"the package alias, as in search hits or list_contexts (not needed when path is a reference)"`
	Path    string `json:"path" jsonschema:"the document's path inside the package, such as docs/setup.md, or a reference to it: @ctx/<alias>/<path> or ctx://packages/<alias>/<path>"`
	Offset  int    `json:"offset,omitempty" jsonschema:"first line to return, 1-based (use nextOffset from the previous page; default 1 or the section's first line)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"at most this many lines (default: as many as fit the size cap)"`
	Section string `json:"section,omitempty" jsonschema:"only the section under this heading (case-insensitive)"`
}

// GetSectionIn is get_section's input.
type GetSectionIn struct {
	Package string `json:"package,omitempty" jsonschema:"the package alias (not needed when path is a reference)"`
	Path    string `json:"path" jsonschema:"the document's path inside the package, or a reference to it: @ctx/<alias>/<path> or ctx://packages/<alias>/<path>"`
	Heading string `json:"heading" jsonschema:"the heading text, case-insensitive, without the #s (a search hit's heading trail works too)"`
	Offset  int    `json:"offset,omitempty" jsonschema:"continue a long section from this line (nextOffset of the previous page)"`
}

// GetOverviewIn is get_overview's input.
type GetOverviewIn struct {
	Offset int `json:"offset,omitempty" jsonschema:"first line to return, 1-based (nextOffset of the previous page)"`
}

// DocumentOut is a window of a document (get_document, get_section,
// get_overview).
type DocumentOut struct {
	Package    string `json:"package,omitempty"`
	Path       string `json:"path"`
	URI        string `json:"uri"`
	Section    string `json:"section,omitempty"`
	Text       string `json:"text"`
	StartLine  int    `json:"startLine"`
	EndLine    int    `json:"endLine"`
	TotalLines int    `json:"totalLines"`
	NextOffset int    `json:"nextOffset,omitempty"` // 0 when there is nothing more
	Truncated  bool   `json:"truncated"`
	Note       string `json:"note,omitempty"`
}

func boolp(b bool) *bool { return &b }

func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true,
		DestructiveHint: boolp(false), OpenWorldHint: boolp(false)}
}

func (s *Server) addTools() {
	mcp.AddTool(s.srv, &mcp.Tool{
		Name: "get_overview",
		Description: "Get INDEX.md: the catalogue of all installed documentation, with titles and summaries, sized to fit " +
			"a context window. Read it first to see what exists, then use search or get_document.",
		Annotations: readOnly("Documentation overview"),
	}, s.getOverview)
	mcp.AddTool(s.srv, &mcp.Tool{
		Name: "search",
		Description: "Full-text search (BM25F over heading trails and text) of the installed documentation. Returns passages " +
			"with package, path, heading trail, line range, the document's tags, a snippet with matches in **bold**, and a " +
			"score. Filter with `packages`, `kind` and `tags`, or in the query. Query syntax: " + indexer.QuerySyntax +
			" Read a hit with get_section (its heading) or get_document (offset = its first line).",
		Annotations: readOnly("Search documentation"),
	}, s.search)
	mcp.AddTool(s.srv, &mcp.Tool{
		Name: "get_document",
		Description: "Read a markdown document of a package, as a window of lines. Answers are capped (about 20k tokens): " +
			"when `truncated` is true, call again with `offset` = `nextOffset`. Use `section` to read only the part under " +
			"one heading.",
		Annotations: readOnly("Read a document"),
	}, s.getDocument)
	mcp.AddTool(s.srv, &mcp.Tool{
		Name: "get_section",
		Description: "Read one section of a document: from its heading (matched case-insensitively) up to the next " +
			"heading of the same or higher level, including its sub-sections.",
		Annotations: readOnly("Read a section"),
	}, s.getSection)
}

// docURI is the resource URI of a document.
func docURI(alias, p string) string {
	parts := strings.Split(p, "/")
	for i, x := range parts {
		parts[i] = url.PathEscape(x)
	}
	return "ctx://packages/" + url.PathEscape(alias) + "/" + strings.Join(parts, "/")
}

// checkKind refuses a kind filter that is not a source kind.
func checkKind(kind string) error {
	if kind != "" && !slices.Contains(project.Kinds, kind) {
		return fmt.Errorf("unknown kind %q: a source kind is one of %s", kind, strings.Join(project.Kinds, ", "))
	}
	return nil
}

func shortSHA(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

func (s *Server) search(ctx context.Context, req *mcp.CallToolRequest, in SearchIn) (*mcp.CallToolResult, SearchOut, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, SearchOut{}, errors.New("empty query: say what to look for, for example \"how to configure logging\"")
	}
	if err := indexer.CheckQuery(in.Query); err != nil {
		return nil, SearchOut{}, err
	}
	if err := checkKind(in.Kind); err != nil {
		return nil, SearchOut{}, err
	}
	snap := s.snapshot()
	if snap.unusable() {
		return nil, SearchOut{}, snap.lockErr
	}
	for _, p := range in.Packages {
		if err := s.checkPackage(snap, p); err != nil {
			return nil, SearchOut{}, err
		}
	}
	out := SearchOut{Hits: []SearchHit{}}
	limit := in.Limit
	switch {
	case limit <= 0:
		limit = DefaultSearchLimit
	case limit > MaxSearchLimit:
		out.Note = fmt.Sprintf("limit %d lowered to the maximum, %d", limit, MaxSearchLimit)
		limit = MaxSearchLimit
	}
	out.Warning = s.freshen(ctx, req, snap)
	r, err := s.reader()
	if err != nil {
		return nil, SearchOut{}, err
	}
	q := indexer.Query{Text: in.Query, Packages: in.Packages, Tags: in.Tags, Limit: limit, BestPerDocument: in.BestPerDocument}
	if in.Kind != "" {
		q.Kinds = []string{in.Kind}
	}
	hits, err := r.Search(ctx, q)
	if err != nil {
		return nil, SearchOut{}, fmt.Errorf("search failed: %w", err)
	}
	for _, h := range hits {
		if checkRelPathOnce(h.Path) != nil {
			continue // a hidden file the index holds is never served
		}
		out.Hits = append(out.Hits, SearchHit{Package: h.Package, Path: h.Path, Heading: h.Heading, Lines: h.Lines,
			Score: h.Score, Tags: h.Tags, Snippet: h.Snippet, URI: docURI(h.Package, h.Path)})
	}
	if len(hits) == 0 {
		n := "no matches."
		if len(in.Packages) > 0 || len(in.Tags) > 0 || in.Kind != "" {
			n += " Try without the package, kind or tag filters,"
		} else {
			n += " Try"
		}
		out.Note = strings.TrimSpace(out.Note + " " + n + " other words, or get_overview to see what is there.")
	}
	return nil, out, nil
}

// openDoc validates (alias, p) and reads the document.
func (s *Server) openDoc(snap snapshot, alias, p string) (string, []byte, error) {
	if err := s.checkPackage(snap, alias); err != nil {
		return "", nil, err
	}
	clean, err := checkRelPath(p)
	if err != nil {
		return "", nil, fmt.Errorf("refused path %q: %w", p, err)
	}
	if !markdown.IsDocument(clean) {
		return "", nil, fmt.Errorf("%q is not a markdown document: only .md, .markdown and .mdx files are served.%s",
			p, didYouMean(s.suggestPaths(snap, alias, strings.TrimSuffix(clean, filepath.Ext(clean))+".md")))
	}
	data, err := readDocument(s.files(snap, alias), clean)
	if errors.Is(err, errNotFound) {
		msg := fmt.Sprintf("document %q not found in package %q.", p, alias)
		if err.Error() != errNotFound.Error() {
			msg = fmt.Sprintf("document %q not found in package %q: %v.", p, alias, err)
		}
		if dym := didYouMean(s.suggestPaths(snap, alias, clean)); dym != "" {
			msg += dym
		} else {
			msg += fmt.Sprintf(" Call list_contexts with package %q to see its documents, or search.", alias)
		}
		return "", nil, notFound(msg)
	}
	if errors.Is(err, errOutside) {
		return "", nil, fmt.Errorf("refused path %q: %w", p, err)
	}
	if err != nil {
		return "", nil, err
	}
	if markdown.IsBinary(data) {
		return "", nil, fmt.Errorf("%q is not a text document (it holds binary data)", p)
	}
	return clean, data, nil
}

// windowResult builds the tool result: the text first, then a line saying
// where the window is and how to get more.
func windowResult(out DocumentOut, what string) *mcp.CallToolResult {
	var foot string
	switch {
	case out.TotalLines == 0:
		foot = fmt.Sprintf("[ctx: %s is empty]", what)
	case out.StartLine == 0:
		foot = fmt.Sprintf("[ctx: nothing at offset; %s has %d lines]", what, out.TotalLines)
	default:
		foot = fmt.Sprintf("[ctx: %s, lines %d-%d of %d", what, out.StartLine, out.EndLine, out.TotalLines)
		if out.Truncated {
			foot += fmt.Sprintf("; truncated: call again with offset=%d for more", out.NextOffset)
		}
		foot += "]"
	}
	if out.Note != "" {
		foot += "\n" + out.Note
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out.Text}, &mcp.TextContent{Text: foot}}}
}

func (s *Server) getDocument(ctx context.Context, _ *mcp.CallToolRequest, in GetDocumentIn) (*mcp.CallToolResult, DocumentOut, error) {
	if in.Offset < 0 || in.Limit < 0 {
		return nil, DocumentOut{}, errors.New("offset and limit must be positive (offset is a 1-based line number)")
	}
	alias, p, err := refTarget(in.Package, in.Path)
	if err != nil {
		return nil, DocumentOut{}, err
	}
	in.Package, in.Path = alias, p
	snap := s.snapshot()
	clean, data, err := s.openDoc(snap, in.Package, in.Path)
	if err != nil {
		return nil, DocumentOut{}, err
	}
	doc := markdown.Parse(data)
	lines := doc.Lines
	first, last := 1, len(lines)
	out := DocumentOut{Package: in.Package, Path: clean, URI: docURI(in.Package, clean), TotalLines: len(lines)}
	if in.Section != "" {
		sec, hs, ok := doc.Section(in.Section)
		if !ok {
			return nil, DocumentOut{}, headingNotFound(in.Section, clean, hs)
		}
		first, last = sec.StartLine, sec.EndLine
		out.Section = sec.Heading
	}
	off := first
	if in.Offset > 0 {
		off = in.Offset
		if off < first || off > last {
			if in.Section != "" {
				return nil, DocumentOut{}, fmt.Errorf("offset %d is outside section %q (lines %d-%d)", off, out.Section, first, last)
			}
		}
	}
	w := cut(lines, off, last, in.Limit, s.countTokens)
	fill(&out, w)
	if w.StartLine == 0 && len(lines) > 0 {
		return nil, DocumentOut{}, fmt.Errorf("offset %d is past the end: %s has %d lines", off, clean, len(lines))
	}
	return windowResult(out, in.Package+"/"+clean), out, nil
}

func fill(out *DocumentOut, w window) {
	out.Text, out.StartLine, out.EndLine, out.NextOffset, out.Truncated = w.Text, w.StartLine, w.EndLine, w.NextOffset, w.Truncated
	if w.CutLine {
		out.Note = fmt.Sprintf("line %d is longer than the size cap and was cut", w.EndLine)
	}
}

func headingNotFound(h, p string, hs []markdown.Heading) error {
	msg := fmt.Sprintf("no heading %q in %s.", h, p)
	if dym := didYouMean(nearest(h, headingTexts(hs), 3)); dym != "" {
		msg += dym
	} else if len(hs) > 0 {
		names := headingTexts(hs)
		if len(names) > 20 {
			names = append(names[:20], "…")
		}
		msg += " Its headings: " + strings.Join(names, "; ") + "."
	} else {
		msg += " It has no headings; use get_document."
	}
	return errors.New(msg)
}

func (s *Server) getSection(ctx context.Context, _ *mcp.CallToolRequest, in GetSectionIn) (*mcp.CallToolResult, DocumentOut, error) {
	if strings.TrimSpace(in.Heading) == "" {
		return nil, DocumentOut{}, errors.New("empty heading: give the heading text of the section to read")
	}
	return s.getDocument(ctx, nil, GetDocumentIn{Package: in.Package, Path: in.Path, Section: in.Heading, Offset: in.Offset})
}

// readIndexMD reads .context/INDEX.md after freshening the index for req.
func (s *Server) readIndexMD(ctx context.Context, req mcp.Request) ([]byte, string, error) {
	snap := s.snapshot()
	warn := s.freshen(ctx, req, snap)
	data, err := os.ReadFile(s.proj.Path(project.IndexName))
	if err != nil {
		if snap.unusable() {
			return nil, "", fmt.Errorf("no INDEX.md: %w", snap.lockErr)
		}
		return nil, "", fmt.Errorf("no INDEX.md yet (%w): run `ctx index`", err)
	}
	return data, warn, nil
}

func (s *Server) getOverview(ctx context.Context, req *mcp.CallToolRequest, in GetOverviewIn) (*mcp.CallToolResult, DocumentOut, error) {
	data, warn, err := s.readIndexMD(ctx, req)
	if err != nil {
		return nil, DocumentOut{}, err
	}
	lines := markdown.Lines(data)
	out := DocumentOut{Path: "INDEX.md", URI: "ctx://index", TotalLines: len(lines)}
	w := cut(lines, max(in.Offset, 1), len(lines), 0, s.countTokens)
	fill(&out, w)
	if warn != "" {
		out.Note = strings.TrimSpace(out.Note + "\n" + warn)
	}
	return windowResult(out, "INDEX.md"), out, nil
}

// countTokens counts BPE tokens (o200k), loading the tokenizer on first use.
// If it cannot be loaded, every byte counts as a token (an upper bound).
func (s *Server) countTokens(text string) int {
	c := s.codec()
	if c == nil {
		return len(text)
	}
	n, err := c.Count(text)
	if err != nil {
		return len(text)
	}
	return n
}
