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

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/ctxref"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Manifest is the JSON of ctx://manifest: the installed packages and the
// state of their lock entries and index.
type Manifest struct {
	Lock     string            `json:"lock"` // "ok", or why there is none
	Packages []ManifestPackage `json:"packages"`
	Index    ManifestIndex     `json:"index"`
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

func (s *Server) addResources() {
	s.srv.AddResource(&mcp.Resource{
		URI: "ctx://index", Name: "INDEX.md", Title: "Documentation overview",
		Description: "The catalogue of all installed documentation (INDEX.md), sized to fit a context window.",
		MIMEType:    "text/markdown",
	}, s.readIndexResource)
	s.srv.AddResource(&mcp.Resource{
		URI: "ctx://manifest", Name: "manifest", Title: "Installed packages",
		Description: "The installed context packages with their lock state (source, ref, commit, tree, hash) and the search index's freshness, as JSON.",
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

func (s *Server) manifest() Manifest {
	snap := s.snapshot()
	m := Manifest{Lock: "ok", Packages: []ManifestPackage{}}
	if snap.lock == nil {
		m.Lock = snap.lockErr.Error()
		if snap.unusable() {
			return m
		}
	}
	for _, a := range snap.aliases {
		uri := "ctx://packages/" + url.PathEscape(a) + "/"
		if p, ok := snap.live[a]; ok {
			m.Packages = append(m.Packages, ManifestPackage{Alias: a, Kind: p.Kind, Source: p.Source, Installed: p.Present(), URI: uri})
			continue
		}
		e, _ := snap.entry(a)
		m.Packages = append(m.Packages, ManifestPackage{Alias: a, Kind: snap.kindOf(a), Source: e.Source, Path: e.Path, Ref: e.Ref,
			Commit: e.Rev, Tree: e.Tree, Hash: e.Hash, Updated: e.Updated, Installed: s.proj.IsInstalled(a), URI: uri})
	}
	r, err := s.reader()
	if err != nil {
		m.Index.Error = err.Error()
		return m
	}
	f, err := r.Freshness(snap.pkgs)
	if err != nil {
		m.Index.Error = err.Error()
		return m
	}
	m.Index = ManifestIndex{Fresh: f.Fresh, BuiltAt: f.BuiltAt, Stale: f.Stale}
	return m
}

func (s *Server) readManifest(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	data, err := json.MarshalIndent(s.manifest(), "", "  ")
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "ctx://manifest", MIMEType: "application/json", Text: string(data)}}}, nil
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
