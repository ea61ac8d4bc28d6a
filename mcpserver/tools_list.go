package mcpserver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/project"
)

// list_contexts (issue 14): the packages, or one package's documents or
// folders, in pages within the answer budget (budget.go), continued with
// opaque cursors (cursor.go).

// Listing limits.
const (
	// maxListLimit is the most items a page of a listing holds, however
	// many fit its budget.
	maxListLimit = 1000
	// maxTreeDepth is the most folder levels a tree shows.
	maxTreeDepth = 10
	// maxListTitle bounds a title in a listing, in bytes (a front matter
	// title can be any size; get_metadata has it whole).
	maxListTitle = 300
)

// ListContextsIn is list_contexts' input.
type ListContextsIn struct {
	Package   string `json:"package,omitempty" jsonschema:"list this package's documents"`
	Kind      string `json:"kind,omitempty" jsonschema:"only packages of this kind: git, dir or https"`
	Prefix    string `json:"prefix,omitempty" jsonschema:"only paths starting with this, such as keps/sig-node/"`
	Glob      string `json:"glob,omitempty" jsonschema:"only paths matching this Go path.Match pattern, such as keps/*/*/README.md"`
	Tree      bool   `json:"tree,omitempty" jsonschema:"list the folders, with their document counts"`
	Depth     int    `json:"depth,omitempty" jsonschema:"folder levels of the tree, default 1"`
	Limit     int    `json:"limit,omitempty" jsonschema:"items per page, default as many as fit"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page"`
	MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"answer budget in tokens, default 10000"`
}

// PackageInfo describes one installed package.
type PackageInfo struct {
	Alias     string `json:"alias" jsonschema:"the package alias"`
	Kind      string `json:"kind" jsonschema:"its source kind: git, dir or https"`
	Source    string `json:"source" jsonschema:"where it comes from (a repository, a URL, a folder)"`
	Path      string `json:"path,omitempty" jsonschema:"the folder inside the source"`
	Ref       string `json:"ref,omitempty" jsonschema:"the git ref asked for"`
	Commit    string `json:"commit,omitempty" jsonschema:"the locked revision, short; none for a dir source (live)"`
	Documents int    `json:"documents" jsonschema:"how many documents it has"`
	// Missing and Stale say what is wrong, and nothing when all is well
	// (the agent21 audit: "installed":true,"fresh":true on every package
	// was 16% of a listing).
	Missing bool `json:"missing,omitempty" jsonschema:"its files are not there (a dir source: its file or folder is gone); ctx install brings a locked package's back"`
	Stale   bool `json:"stale,omitempty" jsonschema:"the search index does not match its files yet"`
	// NotInstalledHere: the files are there (committed with the project)
	// but ctx did not install them on this machine (project.InstalledHere),
	// so "missing" would mislead (listhere21).
	NotInstalledHere bool `json:"notInstalledHere,omitempty" jsonschema:"its files came with the project but ctx install has not run on this machine, so they are neither indexed nor served; the user runs ctx install"`
	Withheld         int  `json:"withheld,omitempty" jsonschema:"documents its audience rules keep out of this project (never installed, never served)"`
}

// DocInfo describes one document of a package.
type DocInfo struct {
	Path  string `json:"path" jsonschema:"the document's path inside the package"`
	Title string `json:"title,omitempty" jsonschema:"the document's title"`
	Size  int64  `json:"size" jsonschema:"its size in bytes"`
	Lines int    `json:"lines,omitempty" jsonschema:"its number of lines"`
	// Modified is when the document last changed, as far as ctx knows
	// (fetchedAt): a dir source's file mtime; an https package's fetch
	// time. A git package's documents have none (agent20): their files'
	// mtime is the install's time, which a model read as "changed today";
	// the lock records the commit, not its time, and a document's last
	// commit would take a walk of the repository's history.
	Modified time.Time `json:"modified,omitzero" jsonschema:"when it last changed (a dir source's file) or was fetched (https); none for git"`
}

// FolderInfo is one folder of a package's tree (list_contexts with tree).
type FolderInfo struct {
	Path      string `json:"path" jsonschema:"the folder, empty for the package's top"`
	Documents int    `json:"documents" jsonschema:"the documents under it, at any depth"`
	Files     int    `json:"files,omitempty" jsonschema:"of which directly in it"`
}

// ListContextsOut is list_contexts' output.
type ListContextsOut struct {
	Packages     []PackageInfo `json:"packages,omitempty" jsonschema:"the packages (without package)"`
	Package      string        `json:"package,omitempty" jsonschema:"the package listed (with package)"`
	URIPrefix    string        `json:"uriPrefix,omitempty" jsonschema:"with package: a document's resource URI is this and its path (each element percent-encoded)"`
	Documents    []DocInfo     `json:"documents,omitempty" jsonschema:"the package's documents on this page"`
	Folders      []FolderInfo  `json:"folders,omitempty" jsonschema:"with tree: the package's folders on this page"`
	Total        int           `json:"total" jsonschema:"packages, or the package's documents that match prefix and glob"`
	TotalFolders int           `json:"totalFolders,omitempty" jsonschema:"with tree: the folders to list, over all pages"`
	Listed       int           `json:"listed,omitempty" jsonschema:"items on this page, when it does not hold them all"`
	Remaining    int           `json:"remaining,omitempty" jsonschema:"items after this page"`
	NextCursor   string        `json:"nextCursor,omitempty" jsonschema:"pass it as cursor for the next page; none on the last"`
	Truncated    bool          `json:"truncated,omitempty" jsonschema:"there is a next page"`
	IndexFresh   bool          `json:"indexFresh" jsonschema:"the search index matches the packages on disk"`
	Note         string        `json:"note,omitempty" jsonschema:"why nothing matched, and what would"`
	Warning      string        `json:"warning,omitempty" jsonschema:"the index is stale or unavailable"`
}

const listContextsDescription = "List the installed documentation packages and the project's own docs (dir, live), with " +
	"their commits and the index's freshness. With `package`: its documents, or with `tree` its folders below `prefix`."

func (s *Server) addListTool() {
	addTool(s, &mcp.Tool{
		Name:        "list_contexts",
		Description: listContextsDescription,
		Annotations: readOnly("List context packages"),
	}, map[string]bound{"limit": {0, maxListLimit}, "depth": {0, maxTreeDepth}, "maxTokens": maxTokensBound}, s.listContexts)
}

func (in ListContextsIn) maxTokens() int { return in.MaxTokens }

// listKey is list_contexts' listing key: what chooses its items.
func (in ListContextsIn) listKey() string {
	return listingKey("list_contexts", in.Package, in.Kind, in.Prefix, in.Glob, strconv.FormatBool(in.Tree), strconv.Itoa(in.Depth))
}

// check refuses arguments that do not go together or are out of range,
// saying what to do, and makes depth imply tree (depth 1 by default).
func (in *ListContextsIn) check() error {
	if err := checkKind(&in.Kind); err != nil {
		return err
	}
	if in.Limit < 0 {
		return errLimit
	}
	if in.Depth < 0 || in.Depth > maxTreeDepth {
		return fmt.Errorf("depth %d is out of range: give 1 to %d folder levels", in.Depth, maxTreeDepth)
	}
	if in.Depth > 0 {
		in.Tree = true
	}
	if in.Tree && in.Depth == 0 {
		in.Depth = 1
	}
	if in.Package == "" && (in.Prefix != "" || in.Glob != "" || in.Tree) {
		return errors.New("prefix, glob, tree and depth list one package's documents: give package too (list_contexts without arguments lists the packages)")
	}
	if in.Glob != "" {
		if _, err := path.Match(in.Glob, ""); err != nil {
			return fmt.Errorf("glob %s is not a valid pattern (%v): use * and ? (never matching /), [a-z] classes and \\ to quote, as in keps/*/*/README.md", safetext.Quote(in.Glob), err)
		}
	}
	return nil
}

func (s *Server) listContexts(ctx context.Context, req *mcp.CallToolRequest, in ListContextsIn) (*mcp.CallToolResult, ListContextsOut, error) {
	if err := in.check(); err != nil {
		return nil, ListContextsOut{}, err
	}
	budget, err := tokenBudget(in.MaxTokens)
	if err != nil {
		return nil, ListContextsOut{}, err
	}
	from, started, err := decodeCursor(in.Cursor, in.listKey())
	if err != nil {
		return nil, ListContextsOut{}, err
	}
	snap := s.snapshot()
	if snap.unusable() {
		if in.Package != "" {
			return nil, ListContextsOut{}, snap.lockErr
		}
		out := ListContextsOut{Packages: []PackageInfo{}, Warning: snap.lockErr.Error()}
		return nil, out, nil
	}
	if in.Package != "" {
		if err := s.checkPackage(snap, in.Package); err != nil {
			return nil, ListContextsOut{}, err
		}
	}
	head := ListContextsOut{}
	head.Warning = s.freshen(ctx, req, snap)
	fresh := map[string]bool{}
	if r, err := s.reader(); err == nil {
		f, err := r.FreshnessContext(ctx, snap.pkgs)
		if ctx.Err() != nil {
			return nil, ListContextsOut{}, context.Cause(ctx) // the call's bound (addTool says so)
		}
		if err == nil {
			head.IndexFresh = f.Fresh
			stale := map[string]bool{}
			for _, a := range f.Stale {
				stale[a] = true
			}
			for _, a := range snap.aliases {
				fresh[a] = f.Fresh || !stale[a]
			}
		}
	}
	var docs []indexer.Document
	var docsErr error
	if r, err := s.reader(); err == nil {
		docs, docsErr = r.Documents(in.Package)
	} else {
		docsErr = err
	}
	limit := in.Limit
	if limit == 0 || limit > maxListLimit {
		limit = maxListLimit
	}
	page := pager{s: s, budget: budget, maxTokens: in.MaxTokens, limit: limit, listing: in.listKey()}

	if in.Package == "" {
		count := map[string]int{}
		for _, d := range docs {
			if served(d.Path) {
				count[d.Package]++
			}
		}
		var all []PackageInfo
		for _, a := range snap.aliases { // sorted
			kind := snap.kindOf(a)
			if in.Kind != "" && kind != in.Kind {
				continue
			}
			info := PackageInfo{Alias: a, Kind: kind, Documents: count[a], Stale: !fresh[a]}
			if p, ok := snap.live[a]; ok {
				info.Source, info.Missing = p.Source, !p.Present()
			} else {
				e, _ := snap.entry(a)
				info.Source, info.Path, info.Ref, info.Commit, info.Missing, info.Withheld = e.Source, e.Path, e.Ref, naming.ShortRev(e.Rev, 12), !s.proj.IsInstalled(a), e.Withheld
				info.NotInstalledHere = !info.Missing && !s.proj.InstalledHere(a)
			}
			all = append(all, info)
		}
		head.Total = len(all)
		if docsErr != nil && head.Warning == "" {
			head.Warning = "warning: document counts unavailable: " + docsErr.Error()
		}
		rest := after(all, func(p PackageInfo) string { return p.Alias }, strings.Compare, from, started)
		head.Packages = []PackageInfo{}
		return page.fill(head, len(rest),
			func(out *ListContextsOut, i int) any {
				out.Packages = append(out.Packages, rest[i])
				return rest[i]
			},
			func(i int) string { return rest[i].Alias })
	}

	head.Package = in.Package
	head.URIPrefix = strings.TrimSuffix(docURI(in.Package, "x"), "x")
	var all []DocInfo
	fetched := snap.fetchedAt(in.Package)
	modified := func(t time.Time) time.Time {
		if snap.kindOf(in.Package) == project.KindGit {
			return time.Time{}
		}
		return cmp.Or(fetched, t.UTC().Truncate(time.Second))
	}
	if docsErr == nil {
		for _, d := range docs {
			if !served(d.Path) {
				continue // never served, so never listed (.git, hidden folders)
			}
			all = append(all, DocInfo{Path: d.Path, Title: clipTitle(d.Title), Size: d.Size, Lines: d.Lines, Modified: modified(d.Modified)})
		}
	} else {
		// No catalogue: list the files on disk.
		head.Warning = "warning: the index is unavailable (" + docsErr.Error() + "); listing files on disk"
		pf := s.files(snap, in.Package)
		for _, p := range listMarkdown(pf, 100_000) {
			fi, err := os.Stat(filepath.Join(pf.dir, filepath.FromSlash(p)))
			if err != nil {
				continue
			}
			all = append(all, DocInfo{Path: p, Size: fi.Size(), Modified: modified(fi.ModTime())})
		}
	}
	matched := all[:0:0]
	for _, d := range all {
		if in.matches(d.Path) {
			matched = append(matched, d)
		}
	}
	head.Total = len(matched)
	if len(matched) == 0 && len(all) > 0 {
		head.Note = noMatchNote(in, all)
	}
	if in.Tree {
		folders := tree(matched, in.Prefix, in.Depth)
		head.TotalFolders = len(folders)
		rest := after(folders, func(f FolderInfo) string { return f.Path }, pathOrder, from, started)
		head.Folders = []FolderInfo{}
		return page.fill(head, len(rest),
			func(out *ListContextsOut, i int) any {
				out.Folders = append(out.Folders, rest[i])
				return rest[i]
			},
			func(i int) string { return rest[i].Path })
	}
	slices.SortFunc(matched, func(a, b DocInfo) int { return pathOrder(a.Path, b.Path) })
	rest := after(matched, func(d DocInfo) string { return d.Path }, pathOrder, from, started)
	head.Documents = []DocInfo{}
	return page.fill(head, len(rest),
		func(out *ListContextsOut, i int) any {
			out.Documents = append(out.Documents, rest[i])
			return rest[i]
		},
		func(i int) string { return rest[i].Path })
}

// matches reports whether document path p passes the prefix and glob.
func (in ListContextsIn) matches(p string) bool {
	if !strings.HasPrefix(p, in.Prefix) {
		return false
	}
	if in.Glob != "" {
		ok, err := path.Match(in.Glob, p)
		return err == nil && ok
	}
	return true
}

// noMatchNote says that no document of a package matched, and what its top
// folders are.
func noMatchNote(in ListContextsIn, all []DocInfo) string {
	var what []string
	if in.Prefix != "" {
		what = append(what, "prefix "+safetext.Quote(in.Prefix))
	}
	if in.Glob != "" {
		what = append(what, "glob "+safetext.Quote(in.Glob))
	}
	var top []string
	for _, f := range tree(all, "", 1) {
		if f.Path != "" {
			top = append(top, f.Path+"/")
		}
	}
	msg := fmt.Sprintf("no document of %s matches %s.", in.Package, strings.Join(what, " and "))
	if len(top) > 0 {
		if len(top) > 30 {
			top = append(top[:30], "…")
		}
		msg += " Its top folders: " + safetext.Escape(strings.Join(top, ", ")) + "."
	}
	if in.Glob == "" {
		return msg // no glob, no advice on one (the agent21 audit)
	}
	return msg + " A glob's * never matches /: give one * per folder level."
}

// treeBase is the folder a tree starts from: prefix up to its last "/"
// (without it), "" for the package's top.
func treeBase(prefix string) string {
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		return prefix[:i]
	}
	return ""
}

// tree counts docs by folder: the base folder of prefix first, then every
// folder up to depth levels below it, in pathOrder, each with the number
// of documents under it and directly in it.
func tree(docs []DocInfo, prefix string, depth int) []FolderInfo {
	base := treeBase(prefix)
	byPath := map[string]*FolderInfo{base: {Path: base}}
	for _, d := range docs {
		rel := d.Path
		if base != "" {
			rel = strings.TrimPrefix(d.Path, base+"/")
		}
		parts := strings.Split(rel, "/")
		byPath[base].Documents++
		dir := base
		for k := 1; k < len(parts) && k <= depth; k++ {
			dir = path.Join(dir, parts[k-1])
			f := byPath[dir]
			if f == nil {
				f = &FolderInfo{Path: dir}
				byPath[dir] = f
			}
			f.Documents++
			if k == len(parts)-1 {
				f.Files++
			}
		}
		if len(parts) == 1 {
			byPath[base].Files++
		}
	}
	out := make([]FolderInfo, 0, len(byPath))
	for _, f := range byPath {
		out = append(out, *f)
	}
	slices.SortFunc(out, func(a, b FolderInfo) int { return pathOrder(a.Path, b.Path) })
	return out
}

// clipTitle bounds a title for a listing.
func clipTitle(t string) string {
	return markdown.Clip(t, maxListTitle)
}

// pager fills one page of a listing within a budget.
type pager struct {
	s         *Server
	budget    int // o200k tokens (tokenBudget)
	maxTokens int // as asked, for errors
	limit     int // items
	listing   string
}

// fill returns the page of head with as many of the n remaining items as
// fit: add appends item i to an output and returns it; key is item i's
// cursor key.
func (p pager) fill(head ListContextsOut, n int, add func(*ListContextsOut, int) any, key func(int) string) (*mcp.CallToolResult, ListContextsOut, error) {
	build := func(k int) (*mcp.CallToolResult, any) {
		out := head
		for i := range k {
			add(&out, i)
		}
		out.Listed, out.Remaining = pageCounts(k, n, cmp.Or(out.TotalFolders, out.Total)) // a tree lists folders
		if k < n {                                                                        // (k = 0 only to measure the page without items)
			out.Truncated, out.NextCursor = true, encodeCursor(p.listing, key(max(k-1, 0)))
		}
		return nil, out
	}
	k, err := p.s.fitPage(p.budget, p.maxTokens, n, p.limit, func(i int) int {
		var scratch ListContextsOut
		return p.s.rowTokens(add(&scratch, i))
	}, build)
	if err != nil {
		return nil, ListContextsOut{}, err
	}
	_, out := build(k)
	return nil, out.(ListContextsOut), nil
}
