package mcpserver

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/ctxref"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/suggest"
	"github.com/ctx-dev/ctx/internal/wording"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The link and metadata tools (issue 16): get_links, get_metadata,
// find_documents and related, over the indexer's link graph and typed
// front matter (indexer/graph.go, indexer/find.go).

// Limits of the link tools.
const (
	maxLinksListed         = 500  // links (or backlinks) in one get_links answer
	defaultRelatedTokens   = 2000 // related's maxTokens when 0
	relatedSearchCandidate = 50   // documents of the query's search whose scores rank neighbours
)

// GetLinksIn is get_links' input.
type GetLinksIn struct {
	Package string `json:"package,omitempty" jsonschema:"package alias, not needed with a URI"`
	Path    string `json:"path" jsonschema:"document path in the package, or its ctx://packages/ URI"`
	Cursor  string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page"`
}

// GetLinksOut is get_links' output.
type GetLinksOut struct {
	Package    string    `json:"package" jsonschema:"the document's package alias"`
	Path       string    `json:"path" jsonschema:"the document's path inside the package"`
	Links      []LinkRow `json:"links" jsonschema:"the document's links, in the order they appear"`
	Backlinks  []LinkRow `json:"backlinks" jsonschema:"the links of other documents to this one"`
	Truncated  bool      `json:"truncated,omitempty" jsonschema:"some links or backlinks are on later pages (see note)"`
	NextCursor string    `json:"nextCursor,omitempty" jsonschema:"give it as cursor for the next page; none on the last"`
	Note       string    `json:"note,omitempty" jsonschema:"what was left out to fit the budget"`
	Warning    string    `json:"warning,omitempty" jsonschema:"the index may be stale, and why"`
}

// LinkRow is a link as get_links answers it. The document asked about is
// the answer's package and path, so a link leaves out its from and a
// backlink its to: they would repeat it on every row (39% of the answer
// for a document with 71 links and 15 backlinks).
type LinkRow struct {
	indexer.Link
	From *indexer.DocRef `json:"from,omitempty" jsonschema:"the document the link is in (backlinks)"`
	To   *indexer.DocRef `json:"to,omitempty" jsonschema:"the document it leads to, when resolved (links)"`
}

// linkRows is get_links' rows of l: links (back false) without their
// from, backlinks without their to. A label and a title are clipped as a
// listing clips a title (clipTitle): neither is bounded in a document, and
// a row over the budget alone would end the pages there (a target is at
// most 2048 bytes, the indexer's bound). The index's links are not changed.
func linkRows(l []indexer.Link, back bool) []LinkRow {
	rows := make([]LinkRow, len(l))
	for i := range l {
		rows[i] = LinkRow{Link: l[i]}
		rows[i].Label = clipTitle(l[i].Label)
		if back {
			from := l[i].From
			from.Title = clipTitle(from.Title)
			rows[i].From = &from
		} else if l[i].To != nil {
			to := *l[i].To
			to.Title = clipTitle(to.Title)
			rows[i].To = &to
		}
	}
	return rows
}

// GetMetadataIn is get_metadata's input.
type GetMetadataIn struct {
	Package string `json:"package,omitempty" jsonschema:"package alias, not needed with a URI"`
	Path    string `json:"path" jsonschema:"document path in the package, or its ctx://packages/ URI"`
}

// GetMetadataOut is get_metadata's output.
type GetMetadataOut struct {
	indexer.DocMeta
	// Edited: the file is not Commit's text (snapshot.edited), as the
	// document tools and search say (rv-red22).
	Edited  bool   `json:"edited,omitempty" jsonschema:"the file differs from what ctx installed at commit (a local edit; ctx status lists it): its text is not that commit's"`
	Note    string `json:"note,omitempty" jsonschema:"what was left out to fit the budget"`
	Warning string `json:"warning,omitempty" jsonschema:"the index may be stale, and why"`
}

// FindDocumentsIn is find_documents' input.
type FindDocumentsIn struct {
	Where   map[string]any `json:"where,omitempty" jsonschema:"field: value for equality, a list matching one element, or field: {op: value}, op one of $in, $gt, $gte, $lt, $lte, $between [a, b] of numbers or dates, $exists, $contains; all keys must match"`
	Package string         `json:"package,omitempty" jsonschema:"only this package"`
	Tag     string         `json:"tag,omitempty" jsonschema:"only documents with this tag"`
	Limit   int            `json:"limit,omitempty" jsonschema:"documents per page, default 50"`
	Cursor  string         `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page"`
}

// FindDocumentsOut is find_documents' output.
type FindDocumentsOut struct {
	indexer.FindResult
	// Revisions names each package's revision once (liftRevisions), not
	// on every document (agent21, as search's).
	Revisions map[string]string `json:"revisions,omitempty" jsonschema:"each document's package's locked revision, short, or live (a dir source: the project's own files, read in place)"`
	Note      string            `json:"note,omitempty" jsonschema:"what was left out to fit the budget"`
	Warning   string            `json:"warning,omitempty" jsonschema:"the index may be stale, and why"`
}

// RelatedIn is related's input.
type RelatedIn struct {
	Query     string `json:"query,omitempty" jsonschema:"start from the best search hit for these words"`
	Package   string `json:"package,omitempty" jsonschema:"or start from this package's document at path"`
	Path      string `json:"path,omitempty" jsonschema:"document path in the package, or its ctx://packages/ URI"`
	Hops      int    `json:"hops,omitempty" jsonschema:"links away, both ways, default 2"`
	MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"answer budget in tokens, default 2000"`
}

// maxTokens is related's budget: its own default, 2,000, when not given.
func (in RelatedIn) maxTokens() int { return cmp.Or(in.MaxTokens, defaultRelatedTokens) }

// RelatedDoc is one neighbour.
type RelatedDoc struct {
	Package  string   `json:"package" jsonschema:"the package alias"`
	Path     string   `json:"path" jsonschema:"the document's path inside the package"`
	Title    string   `json:"title,omitempty" jsonschema:"the document's title"`
	Summary  string   `json:"summary,omitempty" jsonschema:"the document's summary"`
	Distance int      `json:"distance" jsonschema:"how many links away from the start"`
	Via      []string `json:"via" jsonschema:"the link types that lead to it (the first 16): >type from the nearer document, <type to it"`
	Score    float64  `json:"score,omitempty" jsonschema:"the query's best search score in the document"`
}

// RelatedOut is related's output.
type RelatedOut struct {
	Start     indexer.DocRef `json:"start" jsonschema:"the starting document"`
	Documents []RelatedDoc   `json:"documents" jsonschema:"the linked documents, nearest first, then by the query's score"`
	Total     int            `json:"total" jsonschema:"neighbours found, before the budget"`
	Truncated bool           `json:"truncated,omitempty" jsonschema:"some neighbours were left out to fit maxTokens"`
	Note      string         `json:"note,omitempty" jsonschema:"why none were found, or how many were left out and how to see them"`
	Warning   string         `json:"warning,omitempty" jsonschema:"the index may be stale, and why"`
}

func (s *Server) addLinkTools() {
	addTool(s, &mcp.Tool{
		Name: "get_links",
		Description: "A document's links and backlinks (markdown, [[wikilinks]], typed front-matter links such as " +
			"depends_on), each with type, line, target, status and the document it resolves to.",
		Annotations: readOnly("Links and backlinks"),
	}, nil, s.getLinks)
	addTool(s, &mcp.Tool{
		Name:        "get_metadata",
		Description: "A document's typed front matter, title, summary, tags, link counts and its package's commit.",
		Annotations: readOnly("Document metadata"),
	}, nil, s.getMetadata)
	addTool(s, &mcp.Tool{
		Name: "find_documents",
		Description: "Find documents by front-matter fields, such as where = {\"status\": \"implementable\", " +
			"\"creation-date\": {\"$gt\": \"2023-01-01\"}}.",
		Annotations: readOnly("Find documents by metadata"),
	}, map[string]bound{"limit": {min: 1, max: indexer.MaxFindLimit}}, s.findDocuments)
	addTool(s, &mcp.Tool{
		Name: "related",
		Description: "Documents linked to a start (the best search hit for `query`, or `package` + `path`), up to " +
			"`hops` links away both ways, nearest first, with title, summary and `via`, the link types that lead there " +
			"(>type: the nearer document links to it; <type: it links to the nearer one).",
		Annotations: readOnly("Related documents"),
	}, map[string]bound{"hops": {min: 1, max: indexer.MaxHops}, "maxTokens": maxTokensBound}, s.related)
}

// needDoc resolves the document a link tool is asked about: package and
// path, or a reference or read_relevant's <alias>/<path> as path
// (refTarget; with package, a reference must agree); an empty one is
// refused.
func (s *Server) needDoc(alias, p *string) error {
	if ctxref.IsRef(*p) || (*alias == "" && *p != "") {
		// A reference as path names both, as the document tools take it
		// (refTarget; the agent21 audit: a ctx:// URI was refused as a
		// path "outside the package").
		a, q, err := refTarget(*alias, *p, s.snapshot().has)
		if err != nil {
			return err
		}
		*alias, *p = a, q
	}
	if *alias == "" || *p == "" {
		return errors.New("give package and path of a document, as in search hits")
	}
	return nil
}

func (s *Server) getLinks(ctx context.Context, req *mcp.CallToolRequest, in GetLinksIn) (*mcp.CallToolResult, GetLinksOut, error) {
	if err := s.needDoc(&in.Package, &in.Path); err != nil {
		return nil, GetLinksOut{}, err
	}
	_, r, warn, err := s.indexFor(ctx, req, in.Path, optional(in.Package)...)
	if err != nil {
		return nil, GetLinksOut{}, err
	}
	out, back, err := r.Links(in.Package, in.Path)
	if err != nil {
		return nil, GetLinksOut{}, s.indexDocErr(in.Package, in.Path, err)
	}
	state := linksState(out, back)
	off, err := linksOffset(in, state, max(len(out), len(back)))
	if err != nil {
		return nil, GetLinksOut{}, err
	}
	nOut, nBack := len(out), len(back)
	out, back = out[min(off, nOut):], back[min(off, nBack):]
	budget, _ := tokenBudget(0)
	at := func(k int) GetLinksOut {
		res := GetLinksOut{Package: in.Package, Path: in.Path, Links: linkRows(firstN(out, k), false), Backlinks: linkRows(firstN(back, k), true), Warning: warn}
		if len(res.Links) < len(out) || len(res.Backlinks) < len(back) {
			res.Truncated = true
			res.Note = fmt.Sprintf("%d of %d links and %d of %d backlinks shown", len(res.Links), nOut, len(res.Backlinks), nBack)
			if off > 0 {
				res.Note += fmt.Sprintf(", after the first %d of each", off)
			}
			if k == 0 {
				res.Note += fmt.Sprintf(": not one fits the default budget of %d tokens; `ctx links` in a terminal lists them all", DefaultMaxTokens)
				return res
			}
			if k < maxLinksListed {
				res.Note += fmt.Sprintf(" (all that fit the default budget of %d tokens)", DefaultMaxTokens)
			}
			res.NextCursor = encodeCursor(linksListing(in), fmt.Sprintf("%s:%d", state, off+k))
			res.Note += ": call again with cursor = nextCursor for the next"
		}
		return res
	}
	n := min(max(len(out), len(back)), maxLinksListed)
	if o := at(n); s.fitsJSON(o, budget) {
		return nil, o, nil
	}
	k, err := fitJSON(s, budget, 0, n, n, func(i int) any {
		var pair []LinkRow
		if i < len(out) {
			pair = append(pair, linkRows(out[i:i+1], false)...)
		}
		if i < len(back) {
			pair = append(pair, linkRows(back[i:i+1], true)...)
		}
		return pair
	}, at)
	if err != nil {
		k = 0 // not one link fits: the note says how many there are
	}
	return nil, at(k), nil
}

// linksListing is get_links' listing key (listingKey): its cursor is for
// this document's links only.
func linksListing(in GetLinksIn) string {
	return listingKey("get_links", in.Package, in.Path)
}

// linksState identifies what get_links pages: a hash of the document's
// links and backlinks as the index has them, each by where it is (the
// document it is in, its line) and what it is (its type, its target). A
// cursor carries it with the position of the next page, so that a page
// read after the links changed (the index is live: an edit of the
// document, or of one linking to it) is refused rather than sent with
// links repeated or skipped. What may change without moving a link (a
// title, whether a target resolves) is left out: a new title of a linked
// document does not refuse the next page.
func linksState(out, back []indexer.Link) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, l := range slices.Concat(out, []indexer.Link{{}}, back) {
		_ = enc.Encode([]any{l.From.Package, l.From.Path, l.Line, l.Type, l.Target})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// linksOffset is the position get_links' cursor continues from (0 on the
// first page), checked against the links' state now and their count n.
func linksOffset(in GetLinksIn, state string, n int) (int, error) {
	after, started, err := decodeCursor(in.Cursor, linksListing(in))
	if err != nil || !started {
		return 0, err
	}
	was, pos, _ := strings.Cut(after, ":")
	off, err := strconv.Atoi(pos)
	if err != nil || was == "" || off <= 0 || (was == state && off >= n) {
		// The same links with a position past them: not a page it gave.
		return 0, fmt.Errorf("the cursor is not one this server gave for %s: call again without cursor to start over", in.Path)
	}
	if was != state || off >= n {
		return 0, fmt.Errorf("the links of %s changed since the previous page (the index was updated): call again without cursor to start over", in.Path)
	}
	return off, nil
}

// firstN is the first n elements of l (all when it has fewer), never nil.
func firstN[T any](l []T, n int) []T {
	if len(l) > n {
		l = l[:n]
	}
	if l == nil {
		l = []T{}
	}
	return l
}

// fitsJSON reports whether a tool's structured output fits budget as
// addTool sends it (jsonAnswer), counted once.
func (s *Server) fitsJSON(out any, budget int) bool {
	res, err := jsonAnswer(nil, out)
	return err == nil && s.fits(res, out, budget)
}

// fitJSON is fitPage for a tool whose answer is its structured output
// (jsonAnswer): how many of n items at(k)
// can hold within budget (at most limit), item(i) being what item i adds
// to its JSON.
func fitJSON[T any](s *Server, budget, maxTokens, n, limit int, item func(i int) any, at func(k int) T) (int, error) {
	return s.fitPage(budget, maxTokens, n, limit,
		func(i int) int {
			b, _ := marshalJSON(item(i))
			return s.countTokens(string(b)) + 1
		},
		func(k int) (*mcp.CallToolResult, any) {
			o := at(k)
			res, _ := jsonAnswer(nil, o)
			return res, o
		})
}

func (s *Server) getMetadata(ctx context.Context, req *mcp.CallToolRequest, in GetMetadataIn) (*mcp.CallToolResult, GetMetadataOut, error) {
	if err := s.needDoc(&in.Package, &in.Path); err != nil {
		return nil, GetMetadataOut{}, err
	}
	snap, r, warn, err := s.indexFor(ctx, req, in.Path, optional(in.Package)...)
	if err != nil {
		return nil, GetMetadataOut{}, err
	}
	m, err := r.Metadata(in.Package, in.Path)
	if err != nil {
		return nil, GetMetadataOut{}, s.indexDocErr(in.Package, in.Path, err)
	}
	if rev, live := snap.revOf(m.Package); !live && rev != "" {
		m.Commit = rev // the installed one, as the document tools say (red22)
	}
	res := GetMetadataOut{DocMeta: shownOnce(m), Edited: snap.edited(m.Package, m.Path, nil), Warning: warn}
	budget, _ := tokenBudget(0)
	if !s.fitsJSON(res, budget) {
		// Front matter over the budget: it is in the document's first lines.
		leanMeta(&res.DocMeta)
		res.Note = fmt.Sprintf("the front matter is left out (and the title, summary and tags shortened): it is over the default budget of %d tokens; read it with get_document (it is at the top of the document)", DefaultMaxTokens)
	}
	return nil, res, nil
}

// shownOnce is d as an agent reads it: its front matter (Meta) less the
// fields d gives already as Title, Summary, Type and Tags (the same
// value; tags as a set), so each is read once, and less the fields that
// are null (a KEP's "replaces: null": nothing to read; agent20); its
// commit short, as every tool shows a revision (naming.ShortRev; agent20:
// the full 40 digits on every document of find_documents). Meta is
// copied, not changed.
func shownOnce(d indexer.DocMeta) indexer.DocMeta {
	d.Commit = naming.ShortRev(d.Commit, 12)
	if len(d.Meta) == 0 {
		return d
	}
	same := func(k string, v any) bool {
		switch k {
		case "title":
			return v == d.Title
		case "summary":
			return v == d.Summary
		case "description":
			// The indexer's summary is the description when there is no
			// summary (decodeFrontMatter).
			_, hasSummary := d.Meta["summary"]
			return !hasSummary && v == d.Summary
		case "type":
			return v == d.Type
		case "tags":
			// The same tags as the index keeps them (agent22: "Release"
			// was sent again beside "release"); a value that is not a
			// list or a string (a map, a number) gives no tags and is
			// said nowhere else (review of agent22).
			switch v.(type) {
			case string, []any:
				return slices.Equal(indexer.TagsOf(v), d.Tags)
			}
			return false
		}
		return false
	}
	m := make(map[string]any, len(d.Meta))
	for k, v := range d.Meta {
		if v != nil && !same(k, v) {
			m[k] = v
		}
	}
	if len(m) == 0 {
		m = nil
	}
	d.Meta = m
	return d
}

// leanMeta leaves out d's front matter and shortens its title, summary
// and tags, for an answer they do not fit.
func leanMeta(d *indexer.DocMeta) {
	d.Meta = nil
	d.Title = clipText(d.Title, shortHeadingBytes)
	d.Summary = clipText(d.Summary, shortHeadingBytes)
	if len(d.Tags) > shortTags {
		d.Tags = d.Tags[:shortTags:shortTags]
	}
}

func (s *Server) findDocuments(ctx context.Context, req *mcp.CallToolRequest, in FindDocumentsIn) (*mcp.CallToolResult, FindDocumentsOut, error) {
	if len(in.Where) == 0 && in.Package == "" && in.Tag == "" {
		return nil, FindDocumentsOut{}, errors.New("give a filter `where`, as in {\"status\": \"implementable\"} (or a package or tag)")
	}
	if err := indexer.CheckWhere(in.Where); err != nil {
		return nil, FindDocumentsOut{}, err
	}
	snap, r, warn, err := s.indexFor(ctx, req, "", optional(in.Package)...)
	if err != nil {
		return nil, FindDocumentsOut{}, err
	}
	q := indexer.FindQuery{Where: in.Where, Limit: in.Limit, Cursor: in.Cursor}
	if in.Package != "" {
		q.Packages = []string{in.Package}
	}
	if in.Tag != "" {
		q.Tags = []string{in.Tag}
	}
	res, err := r.Find(ctx, q)
	if err != nil {
		return nil, FindDocumentsOut{}, cmp.Or(filterTypo(err), err)
	}
	for i := range res.Documents {
		res.Documents[i] = shownOnce(res.Documents[i])
	}
	out := FindDocumentsOut{FindResult: res, Revisions: liftRevisions(snap, res.Documents), Warning: warn}
	if res.Total == 0 {
		out.Note = noDocumentNote(r, in.Where, q.Packages, q.Tags)
		return nil, out, nil
	}
	budget, _ := tokenBudget(0)
	if s.fitsJSON(out, budget) {
		return nil, out, nil
	}
	// Fewer documents; or, when even one is too large, without their front
	// matter. The page is asked for again with that limit, so its cursor is
	// the indexer's.
	full := res.Documents
	asked := len(full)
	at := func(k int, lean bool) FindDocumentsOut {
		o := out
		o.Documents = slices.Clone(full[:k])
		if lean {
			for i := range o.Documents {
				leanMeta(&o.Documents[i])
			}
		}
		return o
	}
	fit := func(lean bool) (int, error) {
		return fitJSON(s, budget, 0, len(full), len(full), func(i int) any {
			d := full[i]
			if lean {
				leanMeta(&d)
			}
			return d
		}, func(k int) FindDocumentsOut { return at(k, lean) })
	}
	lean := false
	k, err := fit(false)
	if err != nil {
		lean = true
		if k, err = fit(true); err != nil {
			return nil, FindDocumentsOut{}, fmt.Errorf("the next document's metadata is over the default budget of %d tokens even without its front matter; narrow the filter", DefaultMaxTokens)
		}
	}
	q.Limit = k
	if res, err = r.Find(ctx, q); err != nil {
		return nil, FindDocumentsOut{}, err
	}
	for i := range res.Documents {
		res.Documents[i] = shownOnce(res.Documents[i])
	}
	out.Revisions = liftRevisions(snap, res.Documents)
	full = res.Documents
	out.FindResult = res
	out = at(min(k, len(full)), lean)
	// Only the packages of the documents kept (the map counted while the
	// page was fitted held them all: fewer only shrinks it).
	maps.DeleteFunc(out.Revisions, func(pkg string, _ string) bool {
		return !slices.ContainsFunc(out.Documents, func(d indexer.DocMeta) bool { return d.Package == pkg })
	})
	var notes []string
	if k < asked && out.NextCursor != "" {
		notes = append(notes, fmt.Sprintf("%d of %d documents on this page to fit the default budget of %d tokens; the next page has the others (nextCursor)", len(out.Documents), out.Total, DefaultMaxTokens))
	}
	if lean {
		// get_metadata has the same budget: a front matter too large here
		// alone is too large there; its lines are at the document's top.
		notes = append(notes, "front matter left out (and titles, summaries and tags shortened): get_metadata shows a document's, or get_document its first lines when it is over get_metadata's budget too")
	}
	out.Note = strings.Join(notes, "; ")
	return nil, out, nil
}

// liftRevisions takes each document's commit (shownOnce's, short) off it
// and returns them once per package, "live" for a dir source's as search's
// revisions say (review21-agent21: it said nothing); nil when there is
// none: a revision is its package's, the same for all its documents.
func liftRevisions(snap snapshot, docs []indexer.DocMeta) map[string]string {
	var revs map[string]string
	for i := range docs {
		rev := docs[i].Commit
		switch r, live := snap.revOf(docs[i].Package); {
		case live:
			rev = "live"
		case r != "":
			rev = naming.ShortRev(r, 12) // the installed one, as search says (red22)
		}
		if rev == "" {
			continue
		}
		if revs == nil {
			revs = map[string]string{}
		}
		revs[docs[i].Package] = rev
		docs[i].Commit = ""
	}
	return revs
}

// noDocumentNote is the note of a find_documents answer with no document:
// it says so, and names each key of where that no indexed document the
// other filters keep (of packages, tagged one of tags, when named) has,
// with the field it may be a typo of (suggest.Hint) or, when there is
// none, the first few fields in use.
func noDocumentNote(r *indexer.Reader, where map[string]any, packages, tags []string) string {
	note := "no document matches the filter"
	fields, err := r.Fields(packages, tags)
	if err != nil {
		return note
	}
	var keys []string
	for k := range where {
		// "a.b" reaches into a (or is a key of its own): unknown when
		// neither a nor a.b is a field.
		if head, _, _ := strings.Cut(k, "."); !slices.Contains(fields, k) && !slices.Contains(fields, head) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	of := ""
	if len(packages) > 0 {
		of = " of package " + strings.Join(packages, ", ")
	}
	// A field's name is a document's front-matter key: escaped and
	// clipped (safetext.Clip) as any text a package wrote.
	shownNames := func(names []string) []string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = safetext.Clip(n, 0)
		}
		return out
	}
	if len(tags) > 0 {
		of += " tagged " + strings.Join(shownNames(tags), " or ")
	}
	hinted := false
	for _, k := range keys {
		head, _, _ := strings.Cut(k, ".")
		h := suggest.Phrase(shownNames(suggest.For(head, fields)))
		hinted = hinted || h != ""
		note += fmt.Sprintf("; no document%s has the field %s%s", of, safetext.Quote(k), h)
	}
	switch {
	case len(keys) > 0 && !hinted:
		const shown = 12
		note += "; fields in use: " + strings.Join(shownNames(firstN(fields, shown)), ", ")
		if len(fields) > shown {
			note += fmt.Sprintf(" and %d more", len(fields)-shown)
		}
	case len(keys) == 0:
		note += ": try other values; get_metadata shows a document's fields and values"
	}
	return note
}

func (s *Server) related(ctx context.Context, req *mcp.CallToolRequest, in RelatedIn) (*mcp.CallToolResult, RelatedOut, error) {
	hops := in.Hops
	if hops == 0 {
		hops = indexer.MaxHops
	}
	if hops < 1 || hops > indexer.MaxHops {
		return nil, RelatedOut{}, fmt.Errorf("hops %d: walk 1 or %d links away", hops, indexer.MaxHops)
	}
	budget, err := tokenBudget(in.maxTokens())
	if err != nil {
		return nil, RelatedOut{}, err
	}
	byQuery := strings.TrimSpace(in.Query) != ""
	if byQuery == (in.Package != "" || in.Path != "") {
		return nil, RelatedOut{}, errors.New("give either query, or package and path of the starting document")
	}
	if !byQuery {
		if err := s.needDoc(&in.Package, &in.Path); err != nil {
			return nil, RelatedOut{}, err
		}
	} else if err := indexer.CheckQuery(in.Query); err != nil {
		return nil, RelatedOut{}, err
	}
	_, r, warn, err := s.indexFor(ctx, req, in.Path, optional(in.Package)...)
	if err != nil {
		return nil, RelatedOut{}, err
	}
	start := indexer.DocRef{Package: in.Package, Path: in.Path}
	scores := map[[2]string]float64{}
	if byQuery {
		q := indexer.Query{Text: in.Query, Limit: relatedSearchCandidate, BestPerDocument: true}
		hits, _, err := s.searchHybrid(ctx, r, q, true)
		if err != nil {
			return nil, RelatedOut{}, err
		}
		if indexer.OnlyExclusions(q) { // searched as written: say so, as search does
			warn = joinNotes(warn, indexer.OnlyExclusionsNote)
		}
		for _, h := range hits {
			if !served(h.Path) {
				continue
			}
			if start.Path == "" {
				start = indexer.DocRef{Package: h.Package, Path: h.Path}
			}
			scores[[2]string{h.Package, h.Path}] = h.Score
		}
		if start.Path == "" {
			return nil, RelatedOut{Documents: []RelatedDoc{}, Warning: warn}, errors.New("no document matches the query: try other words, or give package and path")
		}
	}
	ns, err := r.Neighbours(ctx, start.Package, start.Path, hops)
	if err != nil {
		return nil, RelatedOut{}, s.indexDocErr(start.Package, start.Path, err)
	}
	sort.SliceStable(ns, func(i, j int) bool {
		if ns[i].Distance != ns[j].Distance {
			return ns[i].Distance < ns[j].Distance
		}
		return scores[[2]string{ns[i].Package, ns[i].Path}] > scores[[2]string{ns[j].Package, ns[j].Path}]
	})
	out := RelatedOut{Start: start, Documents: []RelatedDoc{}, Total: len(ns), Warning: warn}
	if m, err := r.Metadata(start.Package, start.Path); err == nil {
		out.Start.Title = clipTitle(m.Title) // as listings clip it: a document may make its title the answer's size
	}
	var docs []RelatedDoc
	for _, n := range ns {
		if !served(n.Path) {
			continue
		}
		d := RelatedDoc{Package: n.Package, Path: n.Path, Title: clipTitle(n.Title), Distance: n.Distance, Via: n.Via,
			Score: shownScore(scores[[2]string{n.Package, n.Path}])}
		if m, err := r.Metadata(n.Package, n.Path); err == nil {
			d.Summary = m.Summary
		}
		docs = append(docs, d)
	}
	if len(docs) == 0 {
		out.Note = fmt.Sprintf("no document links to or from %s within %s: search for its topic instead", start.Path, wording.Count(hops, "link", "links"))
	}
	at := func(k int) RelatedOut {
		o := out
		o.Documents = firstN(docs, k)
		if o.Truncated = k < len(docs); o.Truncated {
			o.Note = fmt.Sprintf("%d of %d shown to fit maxTokens %d: give a larger maxTokens (up to %d)", k, len(docs), in.maxTokens(), MaxMaxTokens)
			if hops > 1 {
				o.Note += " or hops 1"
			}
		}
		return o
	}
	if o := at(len(docs)); s.fitsJSON(o, budget) {
		return nil, o, nil
	}
	k, err := fitJSON(s, budget, in.maxTokens(), len(docs), len(docs), func(i int) any { return docs[i] }, at)
	if err != nil {
		return nil, RelatedOut{}, err
	}
	return nil, at(k), nil
}
