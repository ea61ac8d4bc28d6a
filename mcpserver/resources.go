package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/ctxref"
	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Manifest is the JSON of ctx://manifest: the installed packages and the
// state of their lock entries and index, in pages (by alias) within the
// default answer budget.
type Manifest struct {
	Lock       string            `json:"lock"` // "ok", or why there is none
	Packages   []ManifestPackage `json:"packages"`
	Total      int               `json:"total"`                // packages, over all pages
	Remaining  int               `json:"remaining"`            // packages after this page
	NextCursor string            `json:"nextCursor,omitempty"` // the cursor of the next page
	Next       string            `json:"next,omitempty"`       // the URI of the next page: ctx://manifest?cursor=…
	Note       string            `json:"note,omitempty"`       // on a page with a next: how to read on
	Index      ManifestIndex     `json:"index"`
}

// ManifestPackage is one package in ctx://manifest.
type ManifestPackage struct {
	Alias     string    `json:"alias"`
	Kind      string    `json:"kind"` // git, dir or https
	Source    string    `json:"source"`
	Path      string    `json:"path,omitempty"`
	Ref       string    `json:"ref,omitempty"`
	Commit    string    `json:"commit,omitempty"` // the lock's rev; none for a dir source (live, not locked)
	Tree      string    `json:"tree,omitempty"`
	Hash      string    `json:"hash,omitempty"`
	Updated   time.Time `json:"updated,omitzero"`
	Installed bool      `json:"installed"`
	URI       string    `json:"uri"` // prefix of its documents' URIs
}

// ManifestIndex is the search index's state in ctx://manifest.
type ManifestIndex struct {
	Fresh   bool      `json:"fresh"`
	BuiltAt time.Time `json:"builtAt,omitempty"`
	Stale   []string  `json:"stale,omitempty"`
	Error   string    `json:"error,omitempty"`
}

const docTemplate = "ctx://packages/{alias}/{+path}"

// Where the manifest is: its first page, and the template of all its pages.
const (
	manifestURI      = "ctx://manifest"
	manifestTemplate = "ctx://manifest{?cursor}"
)

const manifestDescription = "The installed context packages with their lock state (source, ref, commit, tree, hash) and the search " +
	"index's freshness, as JSON, in pages of about 8,000 tokens sorted by alias. When a page has `next`, read that URI " +
	"(ctx://manifest?cursor=<nextCursor>) for the following packages."

func (s *Server) addResources() {
	s.srv.AddResource(&mcp.Resource{
		URI: "ctx://index", Name: "INDEX.md", Title: "Documentation overview",
		Description: "The catalogue of all installed documentation (INDEX.md), sized to fit a context window.",
		MIMEType:    "text/markdown",
	}, s.readIndexResource)
	s.srv.AddResource(&mcp.Resource{
		URI: manifestURI, Name: "manifest", Title: "Installed packages",
		Description: manifestDescription,
		MIMEType:    "application/json",
	}, s.readManifest)
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: manifestTemplate, Name: "manifest-page", Title: "Installed packages (a page)",
		Description: manifestDescription,
		MIMEType:    "application/json",
	}, s.readManifest)
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: docTemplate, Name: "document", Title: "A document of a package",
		Description: "A document of an installed package (markdown, text, reStructuredText, AsciiDoc, YAML, JSON or TOML), by alias and path inside the package.",
	}, s.readDocResource)
}

func (s *Server) readIndexResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	data, _, err := s.readIndexMD(ctx, req)
	if err != nil {
		return nil, resourceError("ctx://index", err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "ctx://index", MIMEType: "text/markdown", Text: string(data)}}}, nil
}

// manifestPage is the JSON of the page of the manifest that starts after
// the cursor's alias (the first page for none), within budget o200k tokens.
func (s *Server) manifestPage(ctx context.Context, cur string, budget int) ([]byte, error) {
	listing := listingKey("manifest")
	from, started, err := decodeCursor(cur, listing)
	if err != nil {
		return nil, err
	}
	snap := s.snapshot()
	m := Manifest{Lock: "ok", Packages: []ManifestPackage{}}
	if snap.lock == nil {
		m.Lock = snap.lockErr.Error()
	}
	var all []ManifestPackage
	if !snap.unusable() {
		for _, a := range snap.aliases {
			uri := "ctx://packages/" + url.PathEscape(a) + "/"
			if p, ok := snap.live[a]; ok {
				all = append(all, ManifestPackage{Alias: a, Kind: p.Kind, Source: p.Source, Installed: p.Present(), URI: uri})
				continue
			}
			e, _ := snap.entry(a)
			all = append(all, ManifestPackage{Alias: a, Kind: snap.kindOf(a), Source: e.Source, Path: e.Path, Ref: e.Ref,
				Commit: e.Rev, Tree: e.Tree, Hash: e.Hash, Updated: e.Updated, Installed: s.proj.IsInstalled(a) && s.proj.InstalledHere(a), URI: uri})
		}
		if r, err := s.reader(); err != nil {
			m.Index.Error = err.Error()
		} else if f, err := r.FreshnessContext(ctx, snap.pkgs); err != nil {
			m.Index.Error = err.Error()
		} else {
			m.Index = ManifestIndex{Fresh: f.Fresh, BuiltAt: f.BuiltAt, Stale: f.Stale}
		}
	}
	m.Total = len(all)
	rest := after(all, func(p ManifestPackage) string { return p.Alias }, strings.Compare, from, started)
	var data []byte
	build := func(k int) (*mcp.CallToolResult, any) {
		page := m
		page.Packages = rest[:k:k]
		page.Remaining = len(rest) - k
		if k < len(rest) {
			page.NextCursor = encodeCursor(listing, rest[max(k-1, 0)].Alias)
			page.Next = manifestURI + "?cursor=" + page.NextCursor
			page.Note = fmt.Sprintf("%d more packages: read the resource named by next for the following ones", page.Remaining)
		}
		data, _ = marshalJSON(page)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil
	}
	k, err := s.fitPage(budget, 0, len(rest), maxListLimit, func(i int) int { return s.rowTokens(rest[i]) }, build)
	if err != nil {
		return nil, err
	}
	build(k)
	return data, nil
}

// readManifest serves ctx://manifest and its pages, ctx://manifest?cursor=….
func (s *Server) readManifest(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "ctx" || u.Host != "manifest" || u.Path != "" || u.Fragment != "" {
		return nil, resourceError(uri, fmt.Errorf("not a manifest URI: %q (want %s, or %s?cursor=<nextCursor>)", uri, manifestURI, manifestURI))
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err == nil {
		for k := range q {
			if k != "cursor" {
				err = fmt.Errorf("unknown parameter %q", k)
			}
		}
		if len(q["cursor"]) > 1 {
			err = errors.New("more than one cursor")
		}
	}
	if err != nil {
		return nil, resourceError(uri, fmt.Errorf("manifest URI %q: %v: the manifest takes one parameter, cursor (the nextCursor of the previous page)", uri, err))
	}
	budget, _ := tokenBudget(0)
	data, err := s.manifestPage(ctx, q.Get("cursor"), budget)
	if err != nil {
		return nil, resourceError(uri, err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(data)}}}, nil
}

// parseDocURI splits ctx://packages/<alias>/<path> and percent-decodes both
// (ctxref.Parse, the one parser of references). A URI with a control
// character (NUL, DEL, ESC, ...) is refused: such characters are not
// allowed in a URI and must be percent-encoded.
func parseDocURI(uri string) (alias, p string, err error) {
	if err := checkURIChars(uri); err != nil {
		return "", "", err
	}
	if !strings.HasPrefix(uri, ctxref.URIPrefix) {
		return "", "", fmt.Errorf("not a document URI: %q (want ctx://packages/<alias>/<path>)", uri)
	}
	r, err := ctxref.Parse(uri)
	if err != nil {
		return "", "", err
	}
	return r.Name, r.Path, nil
}

// checkURIChars refuses a URI with a control character (NUL, DEL, ESC,
// C1), which a URI may only hold percent-encoded.
func checkURIChars(uri string) error {
	if i := strings.IndexFunc(uri, unicode.IsControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(uri[i:])
		return fmt.Errorf("URI %q has the control character %U at byte %d: percent-encode it, or read a document listed by list_contexts", uri, r, i)
	}
	return nil
}

// checkResourceRead is a receiving middleware: a resources/read whose URI
// has a control character is answered with invalid params before the SDK
// looks the URI up (its own not-found error would quote the URI in data
// that is not valid JSON).
func (s *Server) checkResourceRead(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if r, ok := req.(*mcp.ReadResourceRequest); ok && r.Params != nil {
			if err := checkURIChars(r.Params.URI); err != nil {
				return nil, resourceError(r.Params.URI, err)
			}
		}
		return next(ctx, method, req)
	}
}

// resourceError is the JSON-RPC error for a refused resources/read of uri:
// resource-not-found when err says the document or package does not exist
// (errNotFound, fs.ErrNotExist), invalid params otherwise (a malformed or
// refused URI). Its data is {"uri": uri}, encoded as JSON.
func resourceError(uri string, err error) error {
	code := int64(jsonrpc.CodeInvalidParams)
	if errors.Is(err, errNotFound) || errors.Is(err, fs.ErrNotExist) {
		code = codeResourceNotFound
	}
	data, _ := json.Marshal(struct {
		URI string `json:"uri"`
	}{uri})
	return &jsonrpc.Error{Code: code, Message: err.Error(), Data: data}
}

func (s *Server) readDocResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	alias, p, err := parseDocURI(uri)
	if err != nil {
		return nil, resourceError(uri, err)
	}
	// The raw path is checked too: a percent-encoded traversal is refused
	// before it is decoded.
	if _, err := checkRelPath(strings.SplitN(strings.TrimPrefix(uri, "ctx://packages/"), "/", 2)[1]); err != nil {
		return nil, resourceError(uri, fmt.Errorf("refused %q: %w", uri, err))
	}
	_, data, err := s.openDoc(s.snapshot(), alias, p)
	if err != nil {
		return nil, resourceError(uri, err)
	}
	// The same cap as get_document: a document that fits is sent as it is;
	// a larger one is cut at a line, with a note on how to read on.
	text := string(data)
	lines := markdown.Lines(data)
	if w := cut(lines, 1, len(lines), 0, s.countTokens); w.Truncated {
		text = w.Text + fmt.Sprintf("\n[cut at line %d of %d to fit %d tokens: read on with the get_document tool, package %q, path %q, offset %d]\n",
			w.EndLine, len(lines), MaxTextTokens, alias, p, w.NextOffset)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: markdown.FormatOf(p).MIMEType(), Text: text}}}, nil
}

// codeResourceNotFound is MCP's JSON-RPC code for a resource that does not
// exist. (The SDK's mcp.CodeResourceNotFound is -32602 since v1.7; ctx
// keeps -32002 so that a client can tell a missing document from a bad URI.)
const codeResourceNotFound = -32002
