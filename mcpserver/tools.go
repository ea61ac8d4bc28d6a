package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/ctxref"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/wording"
	"github.com/ctx-dev/ctx/project"
)

// Search limits.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 50
)

// SearchIn is search's input.
type SearchIn struct {
	Query       string   `json:"query" jsonschema:"words in search's query syntax"`
	Packages    []string `json:"packages,omitempty" jsonschema:"only these package aliases"`
	Kind        string   `json:"kind,omitempty" jsonschema:"only packages of this kind: git, dir or https"`
	Tags        []string `json:"tags,omitempty" jsonschema:"only documents with any of these tags"`
	Path        string   `json:"path,omitempty" jsonschema:"only paths starting with this, such as api/"`
	Limit       int      `json:"limit,omitempty" jsonschema:"hits, default 10"`
	AllPassages bool     `json:"allPassages,omitempty" jsonschema:"every matching passage, not only the best of each document"`
	MaxTokens   int      `json:"maxTokens,omitempty" jsonschema:"answer budget in tokens, default 10000"`
	Lexical     bool     `json:"lexical,omitempty" jsonschema:"words only, no semantic ranking"`
}

func (in SearchIn) maxTokens() int { return in.MaxTokens }

// SearchHit is one search result, with its provenance: the package, the
// commit its files are from, the line range.
type SearchHit struct {
	Package string   `json:"package" jsonschema:"the package alias"`
	Path    string   `json:"path" jsonschema:"the document's path inside the package"`
	Heading string   `json:"heading,omitempty" jsonschema:"the passage's heading trail, A > B > C (get_section takes it)"`
	Lines   [2]int   `json:"lines" jsonschema:"the passage's first and last line, 1-based (get_document's offset takes the first)"`
	Score   float64  `json:"score" jsonschema:"the BM25F score, to 3 decimals; higher is better"`
	Tags    []string `json:"tags,omitempty" jsonschema:"the document's tags"`
	Snippet string   `json:"snippet" jsonschema:"text of the passage around the matches, which are in **bold**"`
	More    int      `json:"more,omitempty" jsonschema:"other matching passages of this document (allPassages with its path lists them)"`
	// Versions: the page's other copies, when its package keeps one per
	// release (indexer.Hit.Versions); the search gives one copy a page.
	Versions []string `json:"versions,omitempty" jsonschema:"the other versions this page exists in (the package keeps a copy per release); name one in the query to get its copy"`
	// Edited: the file is not what ctx installed (snapshot.edited, red22).
	Edited bool `json:"edited,omitempty" jsonschema:"the file differs from its package's revision (a local edit; ctx status lists it): its text is not that revision's"`
}

// SearchOut is search's output.
type SearchOut struct {
	Hits []SearchHit `json:"hits" jsonschema:"the passages found, best first"`
	// Revisions names, once for all its hits, the revision each hit's
	// package is from (revisionsOf): round 20's leftover, "commit" on every
	// hit was 2-3% of an answer.
	Revisions map[string]string `json:"revisions,omitempty" jsonschema:"each hit's package's locked revision, short: a git commit, an https snapshot's sha256:, or live (the project's own files, read in place)"`
	Note      string            `json:"note,omitempty" jsonschema:"what to know about the hits: none found, or cut to fit the budget"`
	Warning   string            `json:"warning,omitempty" jsonschema:"the index may be stale, and why"`
	// Unmatched are the query's words no document has (a typo, or a term
	// the documents do not use): the hits match the other words.
	Unmatched []string `json:"unmatched,omitempty" jsonschema:"query words no document has (a typo?); the hits match the other words"`
	// UnmatchedMore counts those past the first maxUnmatchedShown.
	UnmatchedMore int `json:"unmatchedMore,omitempty" jsonschema:"how many more query words no document has"`
}

// GetDocumentIn is get_document's input.
type GetDocumentIn struct {
	Package   string `json:"package,omitempty" jsonschema:"package alias, not needed with a reference"`
	Path      string `json:"path" jsonschema:"document path in the package; without package, <alias>/<path> or @ctx/<alias>/<path>"`
	Offset    int    `json:"offset,omitempty" jsonschema:"first line, 1-based, as the footer says to read on"`
	Limit     int    `json:"limit,omitempty" jsonschema:"at most this many lines"`
	Section   string `json:"section,omitempty" jsonschema:"only the section under this heading"`
	MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"answer budget in tokens, default 10000"`
}

func (in GetDocumentIn) maxTokens() int { return in.MaxTokens }

// GetSectionIn is get_section's input.
type GetSectionIn struct {
	Package   string `json:"package,omitempty" jsonschema:"package alias, not needed with a reference"`
	Path      string `json:"path" jsonschema:"document path in the package; without package, <alias>/<path> or @ctx/<alias>/<path>"`
	Heading   string `json:"heading" jsonschema:"heading text or a search hit's heading trail"`
	Offset    int    `json:"offset,omitempty" jsonschema:"as the footer says, to read on"`
	MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"answer budget in tokens, default 10000"`
}

func (in GetSectionIn) maxTokens() int { return in.MaxTokens }

// DocumentOut is a window of a document (get_document, get_section,
// get_overview). These tools have no structured output: the answer's
// content is the window's text, a footer line that says where the window
// is, what it is from and how to read on, and a resource link to the
// document; the numbers below are the answer's _meta, for programs (Text
// is the first content, not in _meta).
type DocumentOut struct {
	Package    string `json:"package,omitempty"`
	Path       string `json:"path"`
	URI        string `json:"uri"`
	Commit     string `json:"commit,omitempty"` // the revision the package's files are from, short (revOf: the installed one, the lock's unless a pull brought a new lock); none for a live package
	Live       bool   `json:"live,omitempty"`   // a dir source, read in place: no commit
	Edited     bool   `json:"edited,omitempty"` // the file is not Commit's text: a local edit (snapshot.edited, red22)
	Section    string `json:"section,omitempty"`
	Text       string `json:"-"`
	StartLine  int    `json:"startLine"`
	EndLine    int    `json:"endLine"`
	TotalLines int    `json:"totalLines"`
	NextOffset int    `json:"nextOffset,omitempty"` // 0 when there is nothing more
	NextCursor string `json:"nextCursor,omitempty"` // get_overview: the cursor of the next page, in place of nextOffset
	Truncated  bool   `json:"truncated"`
	Note       string `json:"note,omitempty"`
	// Outline says that Text is not a window of lines but the document's
	// outline (get_overview's first answer on a large project).
	Outline bool `json:"outline,omitempty"`
}

func boolp(b bool) *bool { return &b }

// readOnly is every tool's annotations: read-only and idempotent, over a
// closed world. destructiveHint, which the spec reads only when a tool is
// not read-only, is left out: tools/list is paid on every turn.
// idempotentHint is true because the SDK (v1.8) always writes it, and
// false would say something untrue to a client that reads it anyway.
func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: boolp(false)}
}

// Bounds of the tools' numeric inputs (their input schemas' minimum and
// maximum).
var (
	offsetBound    = bound{min: 0}
	maxTokensBound = bound{min: 0, max: MaxMaxTokens} // 0: the default (tokenBudget)
)

func (s *Server) addTools() {
	s.addOverviewTool()
	addTool(s, &mcp.Tool{
		Name: "search",
		Description: "Full-text search of the installed documentation: the best passages, each with a snippet " +
			"(matches in **bold**) and `more`, its document's other matches. Read a hit with get_section (heading) or get_document (offset); " +
			"its URI: ctx://packages/<package>/<path>, path elements percent-encoded. " +
			"Query syntax (read_relevant's too): " + strings.Join(strings.Fields(indexer.QuerySyntax), " "),
		Annotations: readOnly("Search documentation"),
	}, map[string]bound{"limit": {min: 1, max: MaxSearchLimit}, "maxTokens": maxTokensBound}, s.search)
	addTool(s, &mcp.Tool{
		Name: "get_document",
		Description: "Read a document (markdown, text, rst, AsciiDoc, YAML, JSON, TOML) as a window of lines. " +
			"Its footer says how to read on.",
		Annotations: readOnly("Read a document"),
	}, map[string]bound{"offset": offsetBound, "limit": {min: 0}, "maxTokens": maxTokensBound}, s.getDocument)
	addTool(s, &mcp.Tool{
		Name: "get_section",
		Description: "Read one section of a document: its heading (case-insensitive) to the next heading of the same " +
			"or higher level, sub-sections included.",
		Annotations: readOnly("Read a section"),
	}, map[string]bound{"offset": offsetBound, "maxTokens": maxTokensBound}, s.getSection)
}

// docURI is the resource URI of a document (ctxref's URI form).
func docURI(alias, p string) string {
	return ctxref.Ref{Form: ctxref.FormURI, Name: alias, Path: p}.String()
}

// checkKind makes a kind filter a source kind (project.ParseKind: any
// case) or refuses it.
func checkKind(kind *string) error {
	if *kind == "" {
		return nil
	}
	k, err := project.ParseKind(*kind)
	if err != nil {
		return fmt.Errorf("unknown kind: %w", err)
	}
	*kind = k
	return nil
}

// revOf is the provenance of alias's files: the revision ctx installed
// them at (installedRev: a package behind its lock, red22), else its lock
// entry's revision (snapshot.entry: a git commit, an https "sha256:"
// snapshot; shortSHA shortens it), or live for a dir source the lock does
// not pin, which is read in place and has none.
func (s snapshot) revOf(alias string) (rev string, live bool) {
	if _, ok := s.live[alias]; ok {
		return "", true
	}
	if rev := s.installedRev(alias); rev != "" {
		return rev, false
	}
	e, _ := s.entry(alias)
	return e.Rev, false
}

// provenance says where a package's text is from, for a footer or a hit:
// a file edited since ctx installed it is a local edit of the commit, not
// its text (red22).
func provenance(commit string, live, edited bool) string {
	switch {
	case live:
		return "live, no commit"
	case edited:
		return "a local edit of commit " + commit + ": this file is not that commit's text; `ctx status` lists it"
	}
	return "commit " + commit
}

// docLink is the resource link to a document (or to INDEX.md), with the
// media type of its format (name ends with its file name).
func docLink(uri, name, desc string) *mcp.ResourceLink {
	return &mcp.ResourceLink{URI: uri, Name: name, Description: desc, MIMEType: markdown.FormatOf(name).MIMEType()}
}

func (s *Server) search(ctx context.Context, req *mcp.CallToolRequest, in SearchIn) (*mcp.CallToolResult, SearchOut, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, SearchOut{}, errors.New("empty query: say what to look for, for example \"how to configure logging\"")
	}
	if err := indexer.CheckQuery(in.Query); err != nil {
		return nil, SearchOut{}, err
	}
	if err := checkKind(&in.Kind); err != nil {
		return nil, SearchOut{}, err
	}
	if len(in.Path) > indexer.MaxQueryBytes {
		return nil, SearchOut{}, fmt.Errorf("path prefix of %d bytes: give at most %d, the start of a path inside a package such as docs/api/", len(in.Path), indexer.MaxQueryBytes)
	}
	budget, err := tokenBudget(in.MaxTokens)
	if err != nil {
		return nil, SearchOut{}, err
	}
	limit := in.Limit
	switch {
	case limit <= 0:
		limit = DefaultSearchLimit
	case limit > MaxSearchLimit:
		return nil, SearchOut{}, fmt.Errorf("limit %d: ask for 1 to %d hits", limit, MaxSearchLimit)
	}
	snap, r, warn, err := s.indexFor(ctx, req, "", in.Packages...)
	if err != nil {
		return nil, SearchOut{}, err
	}
	out := SearchOut{Hits: []SearchHit{}, Warning: warn}
	q := indexer.Query{Text: in.Query, Packages: in.Packages, Tags: in.Tags, Limit: limit, BestPerDocument: !in.AllPassages}
	if in.Kind != "" {
		q.Kinds = []string{in.Kind}
	}
	if in.Path != "" {
		q.Paths = []string{in.Path}
	}
	hits, semNote, err := s.searchHybrid(ctx, r, q, in.Lexical)
	if err != nil {
		return nil, SearchOut{}, err
	}
	out.Warning = joinNotes(out.Warning, semNote)
	if indexer.OnlyExclusions(q) { // searched as written: say so
		out.Warning = joinNotes(out.Warning, indexer.OnlyExclusionsNote)
	}
	unmatched, common, err := r.Unmatched(ctx, q)
	if err != nil {
		return nil, SearchOut{}, err
	}
	out.Unmatched, out.UnmatchedMore = shownUnmatched(unmatched)
	if common {
		out.Note = unmatchedNote(nil, 0, true, len(hits) > 0)
	}
	for _, h := range hits {
		if !served(h.Path) {
			continue // a hidden file the index holds is never served
		}
		out.Hits = append(out.Hits, SearchHit{Package: h.Package, Path: h.Path, Heading: h.Heading, Lines: h.Lines,
			Score: shownScore(h.Score), Tags: h.Tags, Snippet: h.Snippet, More: h.More, Versions: h.Versions, Edited: snap.edited(h.Package, h.Path, nil)})
	}
	if len(hits) == 0 {
		out.Note = strings.TrimSpace(searchNoMatchNote(q) + " " + out.Note)
	}
	// Every hit's revision while the hits are fitted (an upper bound),
	// then only those of the hits kept.
	out.Revisions = revisionsOf(snap, out.Hits)
	out, err = s.fitHits(out, budget, in.MaxTokens)
	if err != nil {
		return nil, SearchOut{}, err
	}
	out.Revisions = revisionsOf(snap, out.Hits)
	return nil, out, nil
}

// revisionsOf is the revision of each package of hits, as search names it
// once (SearchOut.Revisions): the lock's, short (naming.ShortRev), or
// "live" for a dir source (none for a package the lock does not pin); nil
// when there are no hits.
func revisionsOf(snap snapshot, hits []SearchHit) map[string]string {
	var revs map[string]string
	for _, h := range hits {
		if _, ok := revs[h.Package]; ok {
			continue
		}
		if revs == nil {
			revs = map[string]string{}
		}
		switch rev, live := snap.revOf(h.Package); {
		case live:
			revs[h.Package] = "live"
		case rev != "":
			revs[h.Package] = naming.ShortRev(rev, 12)
		}
	}
	return revs
}

// Shortened hits, when a search answer does not fit its budget whole.
const (
	shortSnippetBytes = 120
	shortHeadingBytes = 160
	shortTags         = 8
)

// fitHits cuts out's hits to fit budget tokens, as addTool sends them
// (their JSON, jsonAnswer): first every hit is shortened (snippet, heading trail, tags), then
// the last hits are left out (fitPage); the note says which was done. A
// budget that holds no hit is an error naming the maxTokens it needs.
func (s *Server) fitHits(out SearchOut, budget, maxTokens int) (SearchOut, error) {
	// An answer of over 4 bytes a token of the budget is not counted whole
	// first: o200k makes about 4 bytes a token of prose, so it would not
	// fit (if it does, the hits are only shortened, never dropped).
	if parts := answerParts(nil, out); partsBytes(parts) <= 4*budget && s.partsFit(parts, budget) {
		return out, nil
	}
	all := out.Hits
	short := make([]SearchHit, len(all))
	shortened := false
	for i, h := range all {
		h.Snippet = clipText(h.Snippet, shortSnippetBytes)
		h.Heading = clipText(h.Heading, shortHeadingBytes)
		if len(h.Tags) > shortTags {
			h.Tags = h.Tags[:shortTags:shortTags]
		}
		shortened = shortened || h.Snippet != all[i].Snippet || h.Heading != all[i].Heading || len(h.Tags) != len(all[i].Tags)
		short[i] = h
	}
	at := func(k int) SearchOut {
		o := out
		o.Hits = short[:k]
		var cuts []string
		if shortened {
			cuts = append(cuts, "snippets, heading trails and tags shortened")
		}
		if k < len(all) {
			cuts = append(cuts, fmt.Sprintf("%d of %d hits shown", k, len(all)))
		}
		cut := fmt.Sprintf("cut to fit %s: %s; ask for fewer hits (limit), a narrower query", budgetName(maxTokens), strings.Join(cuts, "; "))
		if maxTokens < MaxMaxTokens {
			cut += fmt.Sprintf(", or a larger maxTokens (up to %d)", MaxMaxTokens)
		}
		o.Note = strings.TrimSpace(out.Note + " " + cut + ".") // a stop-word query's note kept
		return o
	}
	none := SearchOut{Hits: []SearchHit{}}
	base := s.answerTokens(nil, none)
	k, err := s.fitPage(budget, maxTokens, len(short), len(short),
		func(i int) int {
			one := SearchOut{Hits: short[i : i+1]}
			return s.answerTokens(nil, one) - base
		},
		func(k int) (*mcp.CallToolResult, any) {
			return nil, at(k)
		})
	if err != nil {
		return SearchOut{}, err
	}
	return at(k), nil
}

// budgetName names the budget a call asked for, for a note.
func budgetName(maxTokens int) string {
	if maxTokens == 0 {
		return fmt.Sprintf("the default budget of %d tokens", DefaultMaxTokens)
	}
	return fmt.Sprintf("maxTokens %d", maxTokens)
}

// clipText shortens s to at most n bytes at a rune boundary, marking the
// cut with "…".
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return truncUTF8(s, n-len("…")) + "…"
}

// openDoc validates (alias, p) and reads the document.
func (s *Server) openDoc(snap snapshot, alias, p string) (string, []byte, error) {
	if err := s.checkPackage(snap, alias); err != nil {
		return "", nil, err
	}
	if err := snap.servable(alias); err != nil {
		return "", nil, err
	}
	clean, err := checkRelPath(p)
	if err != nil {
		if checkRelPathOnce(p) != nil {
			return "", nil, fmt.Errorf("refused: %w", err) // it names p (the audit of round 21: "refused path \"../x\": path \"../x\" has …")
		}
		return "", nil, fmt.Errorf("refused path %q: %w", p, err) // it names p decoded
	}
	if !markdown.IsDocument(clean) {
		return "", nil, fmt.Errorf("%q is not a document: only %s files are served.%s",
			p, markdown.ExtensionList(), didYouMean(s.suggestPaths(snap, alias, strings.TrimSuffix(clean, filepath.Ext(clean))+".md")))
	}
	data, err := readDocument(s.files(snap, alias), clean)
	if errors.Is(err, errNotFound) {
		return "", nil, s.docNotFound(snap, alias, p, clean, err)
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

// openedDoc is the document a tool was asked for, read and parsed.
type openedDoc struct {
	snap  snapshot     // the project's state it was read in
	alias string       // its package
	path  string       // its path as asked (a reference's path when one was given)
	clean string       // its path, cleaned (checkRelPath)
	doc   markdown.Doc // its lines, outline and sections
	text  []byte       // its bytes as read (snapshot.edited hashes them)
}

// document is the preamble of every tool that reads one document: the
// package and path (refTarget: a reference may stand as the path), the
// document opened (openDoc: the package checked, the path checked, the
// file read, binary refused, not found answered by docNotFound) and
// parsed. The tool's own logic follows.
func (s *Server) document(alias, p string) (openedDoc, error) {
	snap := s.snapshot()
	alias, p, err := refTarget(alias, p, snap.has)
	if err != nil {
		return openedDoc{}, err
	}
	clean, data, err := s.openDoc(snap, alias, p)
	if err != nil {
		return openedDoc{}, err
	}
	return openedDoc{snap: snap, alias: alias, path: p, clean: clean, doc: markdown.ParseFile(clean, data), text: data}, nil
}

// docNotFound is the one answer of every tool that takes a path for a
// document that is not there (issue 26): what was asked, the nearest paths
// the package has (suggestPaths), or where to look. cause, when it says
// more than errNotFound (a symlink to a missing file), is quoted.
func (s *Server) docNotFound(snap snapshot, alias, p, clean string, cause error) error {
	msg := fmt.Sprintf("document %q not found in package %q.", p, alias)
	if cause != nil && cause.Error() != errNotFound.Error() {
		msg = fmt.Sprintf("document %q not found in package %q: %v.", p, alias, cause)
	}
	// The path asked for is never its own suggestion: it is there now
	// only when it was missing for a moment (a file being replaced).
	near := slices.DeleteFunc(s.suggestPaths(snap, alias, clean), func(q string) bool { return q == clean })
	if dym := didYouMean(near); dym != "" {
		msg += dym
	} else {
		msg += fmt.Sprintf(" Call list_contexts with package %q to see its documents, or search.", alias)
	}
	return notFound(msg)
}

// indexDocErr is err of an index lookup of alias's document p, with a
// document the index does not hold answered as docNotFound.
func (s *Server) indexDocErr(alias, p string, err error) error {
	if errors.Is(err, indexer.ErrUnknownDocument) {
		return s.docNotFound(s.snapshot(), alias, p, p, nil)
	}
	return err
}

// windowResult builds a document tool's answer: the window's text (each
// line unforged: a document cannot write ctx's footer or notes), then a
// footer line saying what it is from, where the window is and how to read
// on, with ctx's notes (ctxMark), then a resource link to the document;
// out (without its text) is the answer's _meta.
func windowResult(out DocumentOut, what string) *mcp.CallToolResult {
	what = safetext.Escape(what) // a document's path: one line (red22)
	if out.Package != "" {
		what += " (" + provenance(out.Commit, out.Live, out.Edited) + ")"
	}
	var foot, desc string
	switch {
	case out.TotalLines == 0:
		foot = fmt.Sprintf("[ctx: %s is empty]", what)
		desc = "empty"
	case out.Outline:
		desc = fmt.Sprintf("outline of %d lines", out.TotalLines)
		foot = fmt.Sprintf("[ctx: %s's outline (its %d lines are over this answer's %d tokens); truncated: read a package's part with package=<alias>, or all of it from the top with maxTokens (up to %d)]",
			what, out.TotalLines, overviewTokens, MaxMaxTokens)
	case out.StartLine == 0:
		foot = fmt.Sprintf("[ctx: nothing at offset; %s has %d lines]", what, out.TotalLines)
		desc = fmt.Sprintf("%d lines", out.TotalLines)
	default:
		desc = fmt.Sprintf("lines %d-%d of %d", out.StartLine, out.EndLine, out.TotalLines)
		foot = fmt.Sprintf("[ctx: %s, %s", what, desc)
		switch {
		case out.Truncated && out.NextCursor != "":
			foot += fmt.Sprintf("; truncated: call again with cursor=%q for more", out.NextCursor)
		case out.Truncated:
			foot += fmt.Sprintf("; truncated: call again with offset=%d for more", out.NextOffset)
		}
		foot += "]"
	}
	if out.Note != "" {
		foot += "\n" + ctxWords(out.Note)
	}
	if f := openFenceAtEnd(out.Path, out.Text, out.StartLine); f != "" {
		foot = f + "\n" + foot
	}
	name := out.Path
	if out.Package != "" {
		name = out.Package + "/" + out.Path
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: unforgedText(out.Text)}, &mcp.TextContent{Text: foot}, docLink(out.URI, name, desc)}}
	if b, err := marshalJSON(out); err == nil {
		_ = json.Unmarshal(b, &res.Meta)
	}
	return res
}

// openFenceAtEnd is the fence a reader of text alone (a window of the
// markdown document at path) is still inside at its end, as
// markdown.Doc.OpenFence reads it, or "": windowResult closes it before the
// footer, which was read as code (agent22). Read alone, a window that
// starts inside a block opens one at that block's closing fence. Only a
// window from line 1 (start) can hold front matter: further down, a
// "---" is a break, not front matter that hides the fences up to the next
// "---" (review of agent22: a window from a break into a YAML block with
// a "---" separator left the block open).
func openFenceAtEnd(path, text string, start int) string {
	if markdown.FormatOf(path) != markdown.FormatMarkdown || !strings.Contains(text, "```") && !strings.Contains(text, "~~~") {
		return ""
	}
	if start <= 1 {
		d := markdown.Parse([]byte(text))
		return d.OpenFence(len(d.Lines))
	}
	lines := markdown.Lines([]byte(text))
	d := markdown.Doc{Format: markdown.FormatMarkdown, Lines: lines, Body: markdown.Scan(lines)}
	return d.OpenFence(len(lines))
}

// windowTooSmall is cutWindow's error when a budget leaves no room for a
// window's text: used is what comes with the text, need the maxTokens
// that holds a few tokens of it.
type windowTooSmall struct {
	what       string
	used, need int
}

func (e *windowTooSmall) Error() string {
	return fmt.Sprintf("the budget leaves nothing for the text of %s: what comes with it (provenance, footer, link) takes %d tokens; give maxTokens %d or more (up to %d)",
		e.what, e.used, min(e.need, MaxMaxTokens), MaxMaxTokens)
}

// tooSmallFor is err, or when it is a windowTooSmall, the same in the
// words every tool uses: the maxTokens the call gave and the one to give
// (the audit of round 21: get_document with maxTokens 1 said "the budget
// of 0 tokens" and "a larger maxTokens").
func tooSmallFor(err error, maxTokens int) error {
	var e *windowTooSmall
	if !errors.As(err, &e) {
		return err
	}
	return fmt.Errorf("maxTokens %d is too small for a window of %s: what comes with its text (provenance, footer, link) takes %d tokens, and an answer may use %d%% of maxTokens: give maxTokens %d or more (up to %d)",
		cmp.Or(maxTokens, DefaultMaxTokens), e.what, e.used, headroomPercent, min(e.need, MaxMaxTokens), MaxMaxTokens)
}

// cutWindow cuts lines first..last from offset (as cutTokens) so that the
// answer windowResult makes of it fits budget tokens: the text gets what
// the rest of the answer (the footer, the link, _meta, at their largest)
// leaves, and a window that still does not fit (the lines' counts summed
// are an estimate of the text's) is cut again, shorter by the excess.
func (s *Server) cutWindow(out DocumentOut, what string, lines []string, offset, last, limit, budget int) (DocumentOut, error) {
	frame := out
	fill(&frame, window{StartLine: last, EndLine: last, NextOffset: last, Truncated: true, CutLine: true})
	used := s.answerTokens(windowResult(frame, what), nil)
	textBudget := budget - used
	if textBudget < 1 {
		return out, &windowTooSmall{what: what, used: used, need: (used+readMinCut)*100/headroomPercent + 1}
	}
	for {
		w := cutTokens(lines, offset, last, limit, textBudget, s.countTokens)
		o := out
		fill(&o, w)
		n := s.answerTokens(windowResult(o, what), nil)
		if n <= budget || textBudget <= n-budget {
			return o, nil // fits, or cannot: addTool refuses it
		}
		textBudget -= n - budget
	}
}

func (s *Server) getDocument(ctx context.Context, _ *mcp.CallToolRequest, in GetDocumentIn) (*mcp.CallToolResult, any, error) {
	if in.Offset < 0 || in.Limit < 0 {
		return nil, nil, errors.New("offset and limit must be positive (offset is a 1-based line number)")
	}
	budget, err := tokenBudget(in.MaxTokens)
	if err != nil {
		return nil, nil, err
	}
	d, err := s.document(in.Package, in.Path)
	if err != nil {
		return nil, nil, err
	}
	in.Package, in.Path = d.alias, d.path
	doc, clean := d.doc, d.clean
	lines := doc.Lines
	first, last := 1, len(lines)
	out := DocumentOut{Package: in.Package, Path: clean, URI: docURI(in.Package, clean), TotalLines: len(lines)}
	rev, live := d.snap.revOf(in.Package)
	out.Commit, out.Live = naming.ShortRev(rev, 12), live
	out.Edited = d.snap.edited(in.Package, clean, d.text)
	if in.Section != "" {
		sec, hs, ok := doc.Section(in.Section)
		if !ok {
			return nil, nil, headingNotFound(in.Section, clean, hs)
		}
		first, last = sec.StartLine, sec.EndLine
		out.Section = sec.Heading
	}
	off := first
	if in.Offset > 0 {
		off = in.Offset
		if off < first || off > last {
			if in.Section != "" {
				return nil, nil, fmt.Errorf("offset %d is outside section %q (lines %d-%d)", off, out.Section, first, last)
			}
		}
	}
	what := in.Package + "/" + clean
	out, err = s.cutWindow(out, what, lines, off, last, in.Limit, budget)
	if err != nil {
		return nil, nil, tooSmallFor(err, in.MaxTokens)
	}
	if out.StartLine == 0 && len(lines) > 0 {
		return nil, nil, fmt.Errorf("offset %d is past the end: %s has %d lines", off, clean, len(lines))
	}
	return windowResult(out, what), nil, nil
}

func fill(out *DocumentOut, w window) {
	out.Text, out.StartLine, out.EndLine, out.NextOffset, out.Truncated = w.Text, w.StartLine, w.EndLine, w.NextOffset, w.Truncated
	if w.CutLine {
		out.Note = strings.TrimSpace(out.Note + "\n" + cutLineNote(w.EndLine))
	}
}

func cutLineNote(line int) string {
	return fmt.Sprintf("line %d is longer than the budget and was cut", line)
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

func (s *Server) getSection(ctx context.Context, _ *mcp.CallToolRequest, in GetSectionIn) (*mcp.CallToolResult, any, error) {
	if strings.TrimSpace(in.Heading) == "" {
		return nil, nil, errors.New("empty heading: give the heading text of the section to read")
	}
	return s.getDocument(ctx, nil, GetDocumentIn{Package: in.Package, Path: in.Path, Section: in.Heading, Offset: in.Offset, MaxTokens: in.MaxTokens})
}

// readIndexMD reads .context/INDEX.md after freshening the index for req
// and rendering INDEX.md when it is behind (awaitIndexMD).
func (s *Server) readIndexMD(ctx context.Context, req mcp.Request) ([]byte, string, error) {
	snap := s.snapshot()
	warn := s.freshen(ctx, req, snap)
	if !snap.unusable() {
		if w := s.awaitIndexMD(ctx); warn == "" {
			warn = w
		}
	}
	// Bounded, never waiting on a fifo (internal/boundedfile, red23).
	data, err := boundedfile.ReadFile(s.proj.Path(project.IndexName), maxFileBytes)
	if err != nil {
		if snap.unusable() {
			return nil, "", fmt.Errorf("no INDEX.md: %w", snap.lockErr)
		}
		return nil, "", fmt.Errorf("no INDEX.md yet (%w): run `ctx index`", err)
	}
	return data, warn, nil
}

// countTokens counts BPE tokens (o200k), loading the tokenizer on first use.
// If it cannot be loaded, every byte counts as a token (an upper bound).
// The counts of the last few large texts are remembered (countCache), and
// those of the pieces the texts are cut into (tokens.Counter).
func (s *Server) countTokens(text string) int {
	big := len(text) >= countCacheMin
	if big {
		if n, ok := s.counts.get(text); ok {
			return n
		}
	}
	n := s.tokens.Count(text)
	if big {
		s.counts.put(text, n)
	}
	return n
}

// searchHybrid is the index's search, hybrid when the user configured an
// embedding endpoint and lexical is false; note says in one line why the
// semantic half was left out when it was.
func (s *Server) searchHybrid(ctx context.Context, r *indexer.Reader, q indexer.Query, lexical bool) ([]indexer.Hit, string, error) {
	var hits []indexer.Hit
	var note string
	var err error
	if lexical {
		hits, err = r.Search(ctx, q)
	} else {
		hits, note, err = r.SearchHybrid(ctx, q, s.sem)
		if s.semNote != "" && note == "" {
			note = s.semNote
		}
	}
	switch {
	case filterTypo(err) != nil:
		return nil, "", filterTypo(err)
	case err != nil:
		return nil, "", fmt.Errorf("search failed: %w", err)
	}
	return hits, note, nil
}

// filterTypo is err as a filter's typo (an unknown tag or package: a
// mistake of the caller, not a failure), naming the tool that lists what
// there is; nil for any other err.
func filterTypo(err error) error {
	what := "list_contexts lists the packages"
	switch {
	case errors.Is(err, indexer.ErrUnknownTag):
		what = "list_tags lists the tags"
	case !errors.Is(err, indexer.ErrUnknownPackage):
		return nil
	}
	return fmt.Errorf("%s; %s", strings.TrimPrefix(err.Error(), "indexer: "), what)
}

// searchNoMatchNote is the note of a search with no hits (search,
// read_relevant): it names the filters the search had (q.Filters: the
// arguments and the query's qualifiers), which may be what left nothing.
func searchNoMatchNote(q indexer.Query) string {
	if f := q.Filters(); len(f) > 0 {
		return "no matches. Try without the " + wording.List(f, "and") + " " + wording.Plural(len(f), "filter", "filters") + ", other words, or get_overview to see what is there."
	}
	return "no matches. Try other words, or get_overview to see what is there."
}

// joinNotes joins the non-empty of a and b with "; ".
func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// shownScore is a search score as an answer shows it: three decimals
// (a float64's 17 digits cost tokens and say nothing more).
func shownScore(f float64) float64 { return math.Round(f*1000) / 1000 }
