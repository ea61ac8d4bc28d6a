package mcpserver

import (
	"context"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The documents as resources (issue 14): resources/list lists every
// document of the installed packages, so that a client can offer them to
// attach, and completion/complete completes the alias and path of the
// document template. Both answer from the index catalogue at the time of
// the call, so they follow the live index; no resource is registered per
// document (thousands, changing as files do).

// maxCompletions is the most values completion/complete returns (the
// protocol's limit).
const maxCompletions = 100

// listResourcesPaged is a receiving middleware that answers resources/list
// itself: the SDK's resources (ctx://index, ctx://manifest), then every
// document of the installed packages (its ctx:// URI, alias/path as name,
// title, MIME type, size), sorted by URI, in pages within the default
// answer budget, continued with an opaque nextCursor (cursor.go). A bad
// cursor is an invalid-params error.
func (s *Server) listResourcesPaged(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		r, ok := req.(*mcp.ListResourcesRequest)
		if method != "resources/list" || !ok {
			return next(ctx, method, req)
		}
		cur := ""
		if r.Params != nil {
			cur = r.Params.Cursor
		}
		listing := listingKey("resources/list")
		from, started, err := decodeCursor(cur, listing)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		// The SDK's own resources, all of them (a handful).
		sdk, err := next(ctx, method, &mcp.ListResourcesRequest{Session: r.Session, Params: &mcp.ListResourcesParams{}, Extra: r.Extra})
		if err != nil {
			return nil, err
		}
		all := slices.Clone(sdk.(*mcp.ListResourcesResult).Resources)
		all = append(all, s.docResources(ctx, r)...)
		slices.SortFunc(all, func(a, b *mcp.Resource) int { return strings.Compare(a.URI, b.URI) })
		rest := after(all, func(x *mcp.Resource) string { return x.URI }, strings.Compare, from, started)
		budget, _ := tokenBudget(0)
		var page *mcp.ListResourcesResult
		build := func(k int) (*mcp.CallToolResult, any) {
			page = &mcp.ListResourcesResult{Resources: rest[:k:k]}
			if k < len(rest) {
				page.NextCursor = encodeCursor(listing, rest[max(k-1, 0)].URI)
			}
			return nil, page
		}
		k, err := s.fitPage(budget, 0, len(rest), maxListLimit, func(i int) int { return s.rowTokens(rest[i]) }, build)
		if err != nil {
			return nil, err
		}
		build(k)
		return page, nil
	}
}

// docResources is every document of the installed packages as a resource,
// from the index catalogue (made fresh first), leaving out what is never
// served (hidden paths).
func (s *Server) docResources(ctx context.Context, req mcp.Request) []*mcp.Resource {
	snap := s.snapshot()
	if snap.unusable() {
		return nil
	}
	s.freshen(ctx, req, snap)
	docs := s.catalogue(snap, "")
	out := make([]*mcp.Resource, 0, len(docs))
	for _, d := range docs {
		out = append(out, &mcp.Resource{URI: docURI(d.Package, d.Path), Name: d.Package + "/" + d.Path, Title: clipTitle(d.Title),
			MIMEType: markdown.FormatOf(d.Path).MIMEType(), Size: d.Size})
	}
	return out
}

// catalogue is the indexed documents of alias (all packages for "") that
// the server serves: of installed packages, no hidden path. Without an
// index, a package's documents are those on disk (no titles).
func (s *Server) catalogue(snap snapshot, alias string) []indexer.Document {
	var docs []indexer.Document
	r, err := s.reader()
	if err == nil {
		docs, err = r.Documents(alias)
	}
	if err != nil {
		if alias == "" {
			return nil
		}
		for _, p := range listMarkdown(s.files(snap, alias), 100_000) {
			docs = append(docs, indexer.Document{Package: alias, Path: p})
		}
	}
	out := docs[:0]
	for _, d := range docs {
		if snap.has(d.Package) && served(d.Path) {
			out = append(out, d)
		}
	}
	return out
}

// complete answers completion/complete for the document template
// ctx://packages/{alias}/{+path}: the installed aliases, or the documents
// of the alias already chosen (context.arguments.alias), that start with
// the value typed (case-insensitive), then those that contain it, at most
// maxCompletions, with the total and hasMore. Anything else completes to
// nothing.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	p := req.Params
	if p == nil || p.Ref == nil || p.Ref.Type != "ref/resource" || p.Ref.URI != docTemplate {
		return res, nil
	}
	snap := s.snapshot()
	if snap.unusable() {
		return res, nil
	}
	var candidates []string
	switch p.Argument.Name {
	case "alias":
		candidates = snap.aliases
	case "path":
		alias := ""
		if p.Context != nil {
			alias = p.Context.Arguments["alias"]
		}
		if checkAlias(alias) != nil || !snap.has(alias) {
			return res, nil
		}
		for _, d := range s.catalogue(snap, alias) {
			candidates = append(candidates, d.Path)
		}
	default:
		return res, nil
	}
	want := strings.ToLower(p.Argument.Value)
	var prefixed, inside []string
	for _, c := range candidates {
		switch lc := strings.ToLower(c); {
		case strings.HasPrefix(lc, want):
			prefixed = append(prefixed, c)
		case strings.Contains(lc, want):
			inside = append(inside, c)
		}
	}
	all := append(prefixed, inside...)
	res.Completion.Total = len(all)
	res.Completion.HasMore = len(all) > maxCompletions
	res.Completion.Values = all[:min(len(all), maxCompletions)]
	return res, nil
}
