package indexer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/suggest"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/webdoc"
)

// The link graph. Links are kept as written in the catalogue (links.go)
// and resolved here, over every indexed document of every package, when a
// Reader first needs them after the catalogue changed (and by Sync for
// INDEX.md). A target resolves in this order:
//
//   - a wikilink: a path relative to the document, then to the package
//     root (".md" added when it has no extension), then a document of
//     that file name (without extension, case-insensitive) in the same
//     package, then in any package;
//   - a path: relative to the document, or, starting with "/", to the root
//     of the package's repository (a KEP's "/keps/sig-node/…"); an
//     mdBook/static-site ".html" resolves to the installed ".md" (or .mdx,
//     .rst, .adoc: routeExtensions), a path without extension to the
//     document with one of those, a folder to its README.md or index.md
//     (or index.mdx, .rst, .adoc). A path that leaves the package is
//     looked up in the other installed packages of the same source (the
//     same repository, another sub-path). A "/" path that names no
//     document there is tried as a site's route in the document's own
//     package, without its first segments ("/consul/docs/agent/config":
//     docs/agent/config.mdx; siteRoute);
//   - an rst :ref: (LinkRef): the document of the same package that
//     defines the label (".. _label:");
//   - an http(s) URL of a file or folder in the repository of an installed
//     package (GitHub and Gitea blob/tree/raw/edit, GitLab /-/blob, and
//     raw.githubusercontent.com URLs; any ref), when its path is under the
//     package's sub-path.
//
// A path inside an installed package that names no document is a link to
// another file ("file") when that file exists, else broken. A URL that is
// not into an installed package, and a path that leaves every installed
// package, is external: it cannot be checked. Broken links keep their
// file:line.

// Link statuses.
const (
	LinkResolved = "resolved" // to an installed document
	LinkBroken   = "broken"   // to nothing
	LinkFile     = "file"     // to an existing file that is not a document
	LinkExternal = "external" // outside every installed package: not checked
	LinkWithheld = "withheld" // to a document the package has, that audience rules kept out of this project's install
)

// DocRef names a document. (The jsonschema tags describe the fields in
// the MCP tools' output schemas.)
type DocRef struct {
	Package string `json:"package" jsonschema:"the package alias"`
	Path    string `json:"path" jsonschema:"the document's path inside the package"`
	Title   string `json:"title,omitempty" jsonschema:"the document's title"`
}

// Link is one resolved link.
type Link struct {
	Type   string  `json:"type" jsonschema:"link, wikilink, or the front-matter key that holds it (such as depends_on)"`
	From   DocRef  `json:"from" jsonschema:"the document the link is in"`
	Line   int     `json:"line" jsonschema:"the link's line in that document, 1-based"`
	Target string  `json:"target" jsonschema:"the link's target as written"`
	Label  string  `json:"label,omitempty" jsonschema:"the link's text"`
	Status string  `json:"status" jsonschema:"resolved (to an installed document), broken (to nothing), file (to a file that is not a document), withheld (to a document audience rules keep out of this project: not broken) or external (not checked)"`
	To     *DocRef `json:"to,omitempty" jsonschema:"the document it leads to, when resolved"`
	Anchor string  `json:"anchor,omitempty" jsonschema:"the target's #fragment"`
	Reason string  `json:"reason,omitempty" jsonschema:"why a broken link is broken, or a withheld one withheld"`
}

type docKey struct{ alias, path string }

// graph is the resolved link graph of one catalogue.
type graph struct {
	pkgs   map[string]Package
	recs   map[docKey]*fileRecord
	order  []docKey                       // every document, by package then path
	bySrc  map[string][]Package           // sourceKey → packages of that source
	byBase map[string]map[string][]docKey // alias → lower-case base name without extension → documents
	out    map[docKey][]Link
	in     map[docKey][]Link
	broken []Link
	// withKey lists, per front-matter key, the documents that have it
	// (in order): a query scans only those of one of its keys.
	withKey map[string][]docKey
	// labels maps, per package, an rst label to the first document (by
	// path) that defines it: the targets of :ref: links.
	labels map[string]map[string]docKey
	// withheld is, per package, the documents audience rules kept out
	// of its install (project.Package.WithheldSet, taken once: a scan of
	// Withheld per unresolved link is quadratic).
	withheld map[string]map[string]bool
}

// buildGraph resolves the links of every document in files.
func buildGraph(pkgs []Package, files map[string][]fileRecord) *graph {
	g := &graph{pkgs: map[string]Package{}, recs: map[docKey]*fileRecord{}, bySrc: map[string][]Package{},
		byBase: map[string]map[string][]docKey{}, out: map[docKey][]Link{}, in: map[docKey][]Link{}, withKey: map[string][]docKey{},
		labels: map[string]map[string]docKey{}, withheld: map[string]map[string]bool{}}
	aliases := make([]string, 0, len(pkgs))
	for _, p := range pkgs {
		g.pkgs[p.Alias] = p
		aliases = append(aliases, p.Alias)
		if set := p.WithheldSet(); set != nil {
			g.withheld[p.Alias] = set
		}
		if k := sourceKey(p); k != "" {
			g.bySrc[k] = append(g.bySrc[k], p)
		}
	}
	sort.Strings(aliases)
	for _, a := range aliases {
		bases := map[string][]docKey{}
		for i := range files[a] {
			r := &files[a][i]
			if r.Skipped != "" {
				continue
			}
			k := docKey{a, r.Path}
			g.recs[k] = r
			g.order = append(g.order, k)
			for key := range r.Meta {
				g.withKey[key] = append(g.withKey[key], k)
			}
			b := strings.ToLower(path.Base(r.Path))
			b = strings.TrimSuffix(b, path.Ext(b))
			bases[b] = append(bases[b], k)
			for _, lb := range r.Labels {
				if g.labels[a] == nil {
					g.labels[a] = map[string]docKey{}
				}
				if _, ok := g.labels[a][lb]; !ok {
					g.labels[a][lb] = k
				}
			}
		}
		g.byBase[a] = bases
	}
	for _, k := range g.order {
		r := g.recs[k]
		from := DocRef{Package: k.alias, Path: k.path, Title: r.Title}
		for _, rl := range r.Links {
			l := Link{Type: rl.Type, From: from, Line: rl.Line, Target: rl.Target, Label: rl.Label}
			to, ok := g.resolve(k, rl, &l)
			if ok {
				l.Status = LinkResolved
				l.To = &DocRef{Package: to.alias, Path: to.path, Title: g.recs[to].Title}
				if to != k {
					g.in[to] = append(g.in[to], l)
				}
			}
			if l.Status == LinkBroken {
				g.broken = append(g.broken, l)
			}
			g.out[k] = append(g.out[k], l)
		}
	}
	return g
}

// resolve finds rl's target document, or sets l's status and reason.
func (g *graph) resolve(from docKey, rl rawLink, l *Link) (docKey, bool) {
	t := rl.Target
	if i := strings.IndexByte(t, '#'); i >= 0 {
		t, l.Anchor = t[:i], t[i+1:]
	}
	pkg := g.pkgs[from.alias]
	if rl.Type == LinkWiki || rl.Wiki {
		return g.resolveWiki(from, strings.TrimSpace(t), l)
	}
	if rl.Type == LinkRef {
		if k, ok := g.labels[from.alias][rl.Target]; ok {
			return k, true
		}
		l.Status = LinkExternal // a label of generated pages (API docs), or of another project's
		return docKey{}, false
	}
	if strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://") {
		key, paths := repoURLPaths(t)
		for _, rp := range paths {
			if k, ok, found := g.locate(key, rp, l); found {
				return k, ok
			}
		}
		l.Status = LinkExternal
		return docKey{}, false
	}
	if i := strings.IndexByte(t, '?'); i >= 0 {
		t = t[:i]
	}
	if u, err := url.PathUnescape(t); err == nil {
		t = u
	}
	if t == "" {
		l.Status = LinkExternal // "?query" alone: nothing to check
		return docKey{}, false
	}
	var rp string // the target's path in the repository
	switch {
	case strings.HasPrefix(t, "/"):
		rp = path.Clean(t)[1:]
	default:
		rp = path.Join(pkg.Path, path.Dir(from.path), t)
		if pkg.Path == "" || pkg.Path == "." {
			rp = path.Join(path.Dir(from.path), t)
		}
	}
	if strings.HasSuffix(t, "/") {
		rp += "/"
	}
	k, ok, found := g.locate(sourceKey(pkg), rp, l)
	if !ok && strings.HasPrefix(t, "/") {
		if k, ok := g.siteRoute(from.alias, path.Clean(t)[1:], strings.HasSuffix(t, "/")); ok {
			l.Status, l.Reason = "", ""
			return k, true
		}
	}
	if found {
		if !ok && l.Status == LinkBroken && strings.HasPrefix(t, "/") && (pkg.Kind == project.KindDir || pkg.Kind == project.KindHTTPS) {
			// A dir source's place in a repository, and an https
			// source's on its site, are unknown: "/x" may be rooted
			// anywhere above it.
			l.Status, l.Reason = LinkExternal, ""
		}
		return k, ok
	}
	l.Status = LinkExternal // outside every installed package
	return docKey{}, false
}

// routeExtensions are the extensions a link without one is tried with: a
// documentation site's routes name pages without their source's extension
// (Docusaurus, Next.js and Hugo sites' markdown and MDX, Sphinx's rst). They
// are the page formats' extensions as markdown.ExtensionsOf lists them.
var routeExtensions = slices.Concat(
	markdown.ExtensionsOf(markdown.FormatMarkdown),
	markdown.ExtensionsOf(markdown.FormatRST),
	markdown.ExtensionsOf(markdown.FormatAsciiDoc),
)

// siteRoute finds the document of package alias that a site-absolute route
// names ("/consul/docs/agent/config" for the package's docs/agent/config.mdx):
// the route, else the route without its first segment, then its first two…
// (a site's base path and section prefixes), the longest that is a document.
func (g *graph) siteRoute(alias, route string, dirWanted bool) (docKey, bool) {
	segs := strings.Split(route, "/")
	for i := range segs {
		if rest := strings.Join(segs[i:], "/"); rest != "" && rest != "." {
			if k, ok := g.document(alias, rest, dirWanted); ok {
				return k, true
			}
		}
	}
	return docKey{}, false
}

// locate looks up the repository path rp among the packages of source key.
// found is false when no installed package holds rp.
func (g *graph) locate(key, rp string, l *Link) (k docKey, ok, found bool) {
	dirWanted := strings.HasSuffix(rp, "/")
	rp = strings.Trim(rp, "/")
	if key == "" || rp == ".." || strings.HasPrefix(rp, "../") {
		return docKey{}, false, false
	}
	for _, p := range ownFirst(g.bySrc[key], l.From.Package) {
		rel := rp
		if sub := strings.Trim(p.Path, "/"); sub != "" && sub != "." {
			if rp != sub && !strings.HasPrefix(rp, sub+"/") {
				continue
			}
			rel = strings.TrimPrefix(strings.TrimPrefix(rp, sub), "/")
		}
		if p.Only != "" && rel != p.Only {
			continue
		}
		if k, ok := g.document(p.Alias, rel, dirWanted); ok {
			return k, true, true
		}
		if set := g.withheld[p.Alias]; set != nil {
			if doc, ok := docPath(rel, dirWanted, func(d string) bool { return set[d] }); ok {
				l.Status, l.Reason = LinkWithheld, p.WithheldNote(doc)
				return docKey{}, false, true
			}
		}
		if rel != "" && !dirWanted && fileExists(p, rel) {
			l.Status = LinkFile
			return docKey{}, false, true
		}
		if !wholeTree(p) {
			continue // a page or an llms.txt's pages: the rest of the site is not here
		}
		l.Status, l.Reason = LinkBroken, "no such document in "+p.Alias
		return docKey{}, false, true
	}
	return docKey{}, false, false
}

// ownFirst is pkgs (the packages of one source) with the one whose alias
// is own first, so that a link between packages of one source that
// overlap is looked up in its own package first, and a broken one's
// reason names that package, not another copy of the folder.
func ownFirst(pkgs []Package, own string) []Package {
	i := slices.IndexFunc(pkgs, func(p Package) bool { return p.Alias == own })
	if i <= 0 {
		return pkgs
	}
	out := make([]Package, 0, len(pkgs))
	out = append(out, pkgs[i])
	out = append(out, pkgs[:i]...)
	return append(out, pkgs[i+1:]...)
}

// document finds the document rel names in package alias: itself, its .md
// source when it is an .html page, or the README.md / index.md of a folder.
func (g *graph) document(alias, rel string, dirWanted bool) (docKey, bool) {
	p, ok := docPath(rel, dirWanted, func(p string) bool {
		_, ok := g.recs[docKey{alias, p}]
		return ok
	})
	return docKey{alias, p}, ok
}

// docPath is the one rule of which document path a link's target rel
// names, given which paths are documents (has): itself, its source when it
// is an .html page, its source without an extension (a site's route), or a
// folder's README.md / index.md. The installed documents use it
// (document), and so do the ones audience rules withheld (locate).
func docPath(rel string, dirWanted bool, has func(string) bool) (string, bool) {
	if !dirWanted && rel != "" {
		if has(rel) {
			return rel, true
		}
		switch ext := path.Ext(rel); strings.ToLower(ext) {
		case ".html", ".htm":
			base := strings.TrimSuffix(rel, ext)
			for _, e := range routeExtensions {
				if has(base + e) {
					return base + e, true
				}
			}
			if path.Base(base) == "index" {
				if p := path.Join(path.Dir(base), "README.md"); has(p) {
					return p, true
				}
			}
		case "":
			for _, e := range routeExtensions {
				if has(rel + e) {
					return rel + e, true
				}
			}
		}
	}
	for _, n := range []string{"README.md", "readme.md", "index.md", "_index.md", "index.mdx", "index.rst", "index.adoc"} {
		if p := path.Join(rel, n); has(p) {
			return p, true
		}
	}
	return "", false
}

// resolveWiki resolves a [[wikilink]] target.
func (g *graph) resolveWiki(from docKey, t string, l *Link) (docKey, bool) {
	if t == "" {
		l.Status, l.Reason = LinkBroken, "empty wikilink"
		return docKey{}, false
	}
	if strings.HasPrefix(t, "/") || t == ".." || strings.Contains(t, "../") {
		t = strings.TrimPrefix(path.Clean("/"+path.Join(path.Dir(from.path), t)), "/")
	}
	for _, rel := range []string{path.Join(path.Dir(from.path), t), strings.TrimPrefix(path.Clean("/"+t), "/")} {
		if k, ok := g.document(from.alias, rel, false); ok {
			return k, true
		}
	}
	base := strings.ToLower(path.Base(t))
	if markdown.FormatOf(base) == markdown.FormatMarkdown {
		base = strings.TrimSuffix(base, path.Ext(base))
	}
	if ks := g.byBase[from.alias][base]; len(ks) > 0 {
		return ks[0], true
	}
	aliases := slices.Sorted(maps.Keys(g.byBase))
	for _, a := range aliases {
		if ks := g.byBase[a][base]; len(ks) > 0 {
			return ks[0], true
		}
	}
	l.Status, l.Reason = LinkBroken, "no document named "+t
	return docKey{}, false
}

// fileExists reports whether rel (clean, inside the package) is a file or
// folder of p on disk; it never follows a symbolic link out of it.
func fileExists(p Package, rel string) bool {
	if p.Dir == "" {
		return false
	}
	for _, el := range strings.Split(rel, "/") {
		if el == ".." || el == "" {
			return false
		}
	}
	_, err := os.Lstat(filepath.Join(p.Dir, filepath.FromSlash(rel)))
	return err == nil
}

// wholeTree reports whether a package holds its source's whole tree, so a
// link that finds nothing in it is broken: not for an https source other
// than an archive (one page, or the pages an llms.txt names: the site's
// other pages are not installed, as a git package installed from one file
// holds none of its repository's others), whose form webdoc.Detect tells
// as the fetch did.
func wholeTree(p Package) bool {
	return p.Kind != project.KindHTTPS || webdoc.Detect(p.Source, "") == webdoc.FormArchive
}

// sourceKey identifies a package's repository (naming.RepoKey), the
// folder of a dir source, or the URL of an https source (an archive's
// paths, or the pages installed beside an llms.txt, are the tree its
// relative links walk).
func sourceKey(p Package) string {
	switch p.Kind {
	case project.KindHTTPS:
		return "https:" + p.Source
	case project.KindDir:
		return "dir:" + filepath.ToSlash(p.Dir)
	}
	return naming.RepoKey(p.Source)
}

// repoURLPaths reads a URL into a file or folder of a repository: the
// repository's key (naming.RepoKey) and the candidate paths inside it, one per
// way to split a ref that may hold slashes (main, release/1.2).
func repoURLPaths(raw string) (string, []string) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", nil
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	var key string
	refAt := -1
	switch {
	case host == "raw.githubusercontent.com" && len(segs) >= 4:
		key, refAt = naming.RepoKey("https://github.com/"+segs[0]+"/"+segs[1]), 2
	default:
		for i := 2; i+1 < len(segs); i++ {
			switch segs[i] {
			case "blob", "tree", "raw", "edit", "src":
				if i == 2 || (segs[i-1] == "-" && i >= 3) {
					repo := segs[:i]
					if segs[i-1] == "-" {
						repo = segs[:i-1]
					}
					key, refAt = naming.RepoKey("https://"+host+"/"+strings.Join(repo, "/")), i+1
				}
			}
			if refAt >= 0 {
				break
			}
		}
	}
	if refAt < 0 {
		return "", nil
	}
	var out []string
	for k := refAt + 1; k <= len(segs); k++ {
		p := strings.Join(segs[k:], "/")
		if strings.HasSuffix(u.Path, "/") {
			p += "/"
		}
		out = append(out, p)
	}
	return key, out
}

// ErrUnknownDocument is returned (wrapped) for a package and path the index
// does not hold.
var ErrUnknownDocument = errors.New("document not in the index")

// graphLocked returns the resolved graph of the current catalogue.
func (r *Reader) graphLocked() (*graph, *catalog, error) {
	cat, err := r.loadCatalogLocked()
	if err != nil {
		return nil, nil, err
	}
	if r.graph == nil || r.graphOf != cat {
		r.graph, r.graphOf = buildGraph(cat.Packages, cat.Files), cat
	}
	return r.graph, cat, nil
}

func (r *Reader) loadGraph() (*graph, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	g, _, err := r.graphLocked()
	return g, err
}

// aliases lists the graph's packages.
func (g *graph) aliases() []string {
	names := make([]string, 0, len(g.pkgs))
	for a := range g.pkgs {
		names = append(names, a)
	}
	return names
}

// docOf checks that (alias, p) is an indexed document.
func (g *graph) docOf(alias, p string) (docKey, error) {
	k := docKey{alias, strings.TrimPrefix(path.Clean("/"+p), "/")}
	if _, ok := g.recs[k]; ok {
		return k, nil
	}
	if err := checkPackages([]string{alias}, g.aliases()); err != nil {
		return k, err
	}
	hint := ""
	b := strings.ToLower(strings.TrimSuffix(path.Base(k.path), path.Ext(k.path)))
	if ks := g.byBase[alias][b]; len(ks) > 0 {
		hint = fmt.Sprintf(" (did you mean %s?)", ks[0].path)
	} else {
		var paths []string // a typo in the path: the package's documents (suggest, as for a package)
		for d := range g.recs {
			if d.alias == alias {
				paths = append(paths, d.path)
			}
		}
		slices.Sort(paths)
		hint = suggest.Hint(k.path, paths)
	}
	return k, fmt.Errorf("indexer: %s/%s: %w%s", alias, k.path, ErrUnknownDocument, hint)
}

// Links returns a document's outgoing links (in line order) and its
// backlinks (by package, path and line). An unknown package or document
// is an error wrapping ErrUnknownPackage or ErrUnknownDocument.
func (r *Reader) Links(alias, p string) (out, back []Link, err error) {
	g, err := r.loadGraph()
	if err != nil {
		return nil, nil, err
	}
	k, err := g.docOf(alias, p)
	if err != nil {
		return nil, nil, err
	}
	return g.out[k], g.in[k], nil
}

// BrokenLinks returns the broken links of the packages (all when none),
// by package, path and line.
func (r *Reader) BrokenLinks(packages []string) ([]Link, error) {
	g, err := r.loadGraph()
	if err != nil {
		return nil, err
	}
	if err := checkPackages(packages, g.aliases()); err != nil {
		return nil, err
	}
	var out []Link
	for _, l := range g.broken {
		if len(packages) == 0 || contains(packages, l.From.Package) {
			out = append(out, l)
		}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// DocMeta is what get_metadata and find_documents say of a document.
type DocMeta struct {
	Package string         `json:"package" jsonschema:"the package alias"`
	Path    string         `json:"path" jsonschema:"the document's path inside the package"`
	Title   string         `json:"title" jsonschema:"the document's title"`
	Summary string         `json:"summary,omitempty" jsonschema:"the document's summary"`
	Tags    []string       `json:"tags,omitempty" jsonschema:"the document's tags"`
	Type    string         `json:"type,omitempty" jsonschema:"the document's type, from its front matter"`
	Meta    map[string]any `json:"meta,omitempty" jsonschema:"the front matter (with a KEP's kep.yaml), typed; dates as 2006-01-02"`
	Links   int            `json:"links" jsonschema:"how many links the document has"`
	Back    int            `json:"backlinks" jsonschema:"how many links of other documents lead to it"`
	Broken  int            `json:"broken,omitempty" jsonschema:"how many of its links are broken"`
	Commit  string         `json:"commit,omitempty" jsonschema:"the revision the package's files are from, the one ctx installed; none for a dir source (live)"`
}

func (g *graph) meta(k docKey) DocMeta {
	r := g.recs[k]
	d := DocMeta{Package: k.alias, Path: k.path, Title: r.Title, Summary: r.Summary, Tags: r.Tags, Type: r.Type,
		Links: len(g.out[k]), Back: len(g.in[k]), Commit: g.pkgs[k.alias].Rev}
	for _, l := range g.out[k] {
		if l.Status == LinkBroken {
			d.Broken++
		}
	}
	if r.Meta != nil {
		d.Meta = r.typedMeta()
	}
	return d
}

// typedMeta returns the record's metadata with dates as Date. The catalogue
// is decoded once per change; values are decoded in place on first use.
func (r *fileRecord) typedMeta() map[string]any {
	if !r.metaDecoded {
		r.Meta = decodeMeta(r.Meta).(map[string]any)
		r.metaDecoded, r.raw = true, nil
	}
	return r.Meta
}

// Metadata returns a document's metadata, title, summary, tags, link counts
// and its package's commit.
func (r *Reader) Metadata(alias, p string) (DocMeta, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	g, _, err := r.graphLocked()
	if err != nil {
		return DocMeta{}, err
	}
	k, err := g.docOf(alias, p)
	if err != nil {
		return DocMeta{}, err
	}
	return g.meta(k), nil
}

// Neighbour is a document reached from another by links.
type Neighbour struct {
	DocRef
	Distance int      `json:"distance"` // links away (1 or 2)
	Via      []string `json:"via"`      // the types of the links that reached it (">type" outgoing, "<type" backlink), the first MaxVia
}

// MaxHops bounds Neighbours.
const MaxHops = 2

// MaxVia bounds a neighbour's Via: a front-matter key is a link's type, so
// a document could reach another by 2,000 types, each step of the walk
// scanning them all (red20b finding 5).
const MaxVia = 16

// Neighbours walks the links of a document in both directions, up to hops
// (1 or 2) away, nearest first, then by package and path. It stops with
// ctx's error when ctx ends (a hub's second ring is most of a corpus).
func (r *Reader) Neighbours(ctx context.Context, alias, p string, hops int) ([]Neighbour, error) {
	if hops < 1 || hops > MaxHops {
		return nil, fmt.Errorf("indexer: hops %d: walk 1 or %d links away", hops, MaxHops)
	}
	g, err := r.loadGraph()
	if err != nil {
		return nil, err
	}
	start, err := g.docOf(alias, p)
	if err != nil {
		return nil, err
	}
	dist := map[docKey]int{start: 0}
	via := map[docKey][]string{}
	frontier := []docKey{start}
	for d := 1; d <= hops; d++ {
		var next []docKey
		for i, k := range frontier {
			if i%ctxEvery == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			step := func(to docKey, how string) {
				if dd, ok := dist[to]; ok && dd < d {
					return
				}
				if _, ok := dist[to]; !ok {
					dist[to] = d
					next = append(next, to)
				}
				if len(via[to]) < MaxVia && !contains(via[to], how) {
					via[to] = append(via[to], how)
				}
			}
			for _, l := range g.out[k] {
				if l.To != nil {
					step(docKey{l.To.Package, l.To.Path}, ">"+l.Type)
				}
			}
			for _, l := range g.in[k] {
				step(docKey{l.From.Package, l.From.Path}, "<"+l.Type)
			}
		}
		frontier = next
	}
	var out []Neighbour
	for k, d := range dist {
		if d == 0 {
			continue
		}
		out = append(out, Neighbour{DocRef: DocRef{Package: k.alias, Path: k.path, Title: g.recs[k].Title}, Distance: d, Via: via[k]})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Distance != b.Distance {
			return a.Distance < b.Distance
		}
		if a.Package != b.Package {
			return a.Package < b.Package
		}
		return a.Path < b.Path
	})
	return out, nil
}

// inDegrees counts, per package and path, the links from other documents
// that resolve to each document (for INDEX.md).
func inDegrees(pkgs []Package, files map[string][]fileRecord) map[docKey]int {
	return inDegreesOf(pkgs, files, nil)
}

// inDegreesOf is inDegrees with the graph of pkgs and files built by
// built (once, by buildGraph when nil).
func inDegreesOf(pkgs []Package, files map[string][]fileRecord, built func() *graph) map[docKey]int {
	found := false
	for _, recs := range files {
		for _, r := range recs {
			if len(r.Links) > 0 {
				found = true
				break
			}
		}
	}
	if !found {
		return nil
	}
	var g *graph
	if built != nil {
		g = built()
	} else {
		g = buildGraph(pkgs, files)
	}
	out := make(map[docKey]int, len(g.in))
	for k, ls := range g.in {
		out[k] = len(ls)
	}
	return out
}

// linkInput is the hash of what resolving links (buildGraph, resolve) reads
// of one package's records: each document's path and whether it is
// skipped, and its links' type, target and wiki mark (not their line or
// label, which no resolution depends on).
func linkInput(recs []fileRecord) string {
	h := sha256.New()
	for _, r := range recs {
		fmt.Fprintf(h, "%q %t %d %q\n", r.Path, r.Skipped != "", len(r.Links), r.Labels)
		for _, l := range r.Links {
			fmt.Fprintf(h, "%q %q %t\n", l.Type, l.Target, l.Wiki)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// linkGraphInput is the hash of everything the link graph of a catalogue is
// resolved from: the packages (as resolve and sourceKey read them) and each
// part's linkInput. Two catalogues with the same one have the same graph.
func linkGraphInput(pkgs []Package, parts map[string]catalogPart) string {
	h := sha256.New()
	for _, p := range pkgs {
		fmt.Fprintf(h, "pkg %q %q %q %q %q\n", p.Alias, p.Kind, p.Path, sourceKey(p), parts[p.Alias].Links)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
