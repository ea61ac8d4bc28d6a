package webdoc

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
)

// PagePath is the package-relative, slash-separated path a fetched page is
// installed at, from its URL's path (the scheme, host and fragment are
// dropped):
//
//   - the path is cleaned as a browser resolves it ("." and ".." elements
//     and empty elements go; ".." never climbs above the root);
//   - a path that is empty or ends in "/" names "index.md" in that folder;
//   - a last element ending in .html or .htm (any case) has that extension
//     replaced by ".md"; one ending in .md, .markdown or .mdx keeps it; any
//     other gets ".md" added (llms.txt → llms.txt.md, guide → guide.md), so
//     that every page is a document to the indexer;
//   - a query string is kept apart: the last element gets "-" and the first
//     8 hex digits of the SHA-256 of the raw query before its extension
//     (page?id=2 → page-<hash>.md), so that two pages that differ only by
//     their query get two files and the same URL always gets the same one.
//
// The result passes naming.CheckFilePath, or PagePath returns an error
// saying why not (a NUL byte, a backslash or ".git" in the path, an element
// longer than naming.MaxName). A hidden element (one starting with ".") is
// refused too: the indexer and the MCP server never read hidden files.
// Whether a path is too long or too deep to write is a Layout's to say
// (naming.PathProblem: the page is skipped, as an archive's entry is).
//
// Two different URLs can still give one path (/guide.html and /guide);
// the caller decides what to do when pages collide.
func PagePath(u *url.URL) (string, error) {
	if u == nil {
		return "", fmt.Errorf("page url is missing")
	}
	p := u.Path
	dir := p == "" || strings.HasSuffix(p, "/")
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	if dir || p == "" {
		p = path.Join(p, "index.md")
	}
	parent, name := path.Split(p)
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	switch {
	case strings.EqualFold(ext, ".html") || strings.EqualFold(ext, ".htm"):
		ext = ".md"
	case markdown.FormatOf(name) == markdown.FormatMarkdown:
	default:
		stem, ext = name, ".md"
	}
	if u.RawQuery != "" {
		sum := sha256.Sum256([]byte(u.RawQuery))
		stem += "-" + hex.EncodeToString(sum[:4])
	}
	p = parent + stem + ext
	if err := naming.CheckServedPath(p); err != nil {
		return "", fmt.Errorf("page %s cannot be installed: %w; ctx installs a page at its URL path, so give a URL whose path has no such element",
			safetext.Quote(u.Redacted()), err)
	}
	return p, nil
}
