// Package webdoc turns what an https source fetched into the files of a
// package: it decides which form a URL is (Detect), where a page is
// installed (PagePath), converts a page to markdown (Convert), lists the
// pages an llms.txt links (LLMSLinks) and extracts an archive
// (Extract). It does no network I/O: webfetch fetches, workspace
// calls both. Everything it reads came from a server and is untrusted:
// sizes, counts and paths are bounded and checked here.
package webdoc

import (
	"fmt"
	"mime"
	"net/url"
	"strings"

	"github.com/ctx-dev/ctx/internal/safetext"
)

// The forms of an https source.
const (
	FormDocument = "document" // one page: markdown, text or HTML
	FormLLMS     = "llms"     // an llms.txt index and the pages it links
	FormArchive  = "archive"  // a .tar.gz or .zip archive
)

// The archive formats Extract reads.
const (
	FormatTarGz = "tar.gz"
	FormatZip   = "zip"
)

// Detect infers the form of an https source from its URL, and from its
// content type when known (a Content-Type header; "" when not): a URL
// path whose last element is llms.txt or llms-full.txt is FormLLMS; an
// archive by ArchiveFormat's rule is FormArchive; anything else is
// FormDocument.
func Detect(rawURL, contentType string) string {
	if u, err := url.Parse(rawURL); err == nil {
		switch strings.ToLower(u.Path[strings.LastIndexByte(u.Path, '/')+1:]) {
		case "llms.txt", "llms-full.txt":
			return FormLLMS
		}
	}
	if _, err := ArchiveFormat(rawURL, contentType); err == nil {
		return FormArchive
	}
	return FormDocument
}

// ArchiveFormat says how Extract reads an archive: FormatTarGz for a URL
// path ending in .tar.gz or .tgz, FormatZip for one ending in .zip (in any
// case); for any other URL the content type decides (application/gzip,
// application/x-gzip, application/x-tar+gzip, application/x-compressed-tar:
// FormatTarGz; application/zip, application/x-zip-compressed: FormatZip).
// Anything else is an error.
func ArchiveFormat(rawURL, contentType string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("archive url %s: %w", safetext.Quote(rawURL), err)
	}
	p := strings.ToLower(u.Path)
	switch {
	case strings.HasSuffix(p, ".tar.gz"), strings.HasSuffix(p, ".tgz"):
		return FormatTarGz, nil
	case strings.HasSuffix(p, ".zip"):
		return FormatZip, nil
	}
	switch mediaType(contentType) {
	case "application/gzip", "application/x-gzip", "application/x-tar+gzip", "application/x-compressed-tar":
		return FormatTarGz, nil
	case "application/zip", "application/x-zip-compressed":
		return FormatZip, nil
	}
	return "", fmt.Errorf("%s is not an archive: its path does not end in .tar.gz, .tgz or .zip and its content type is %s; give the URL of a .tar.gz or .zip file",
		safetext.Quote(rawURL), safetext.Quote(contentType))
}

// mediaType is the lower-case media type of a Content-Type value, without
// its parameters; "" when there is none.
func mediaType(contentType string) string {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		return mt
	}
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// pageExts are the extensions of what an https source fetches: documents,
// then archives (longest first where one ends another).
var pageExts = []string{".markdown", ".md", ".mdx", ".txt", ".html", ".htm", ".tar.gz", ".tgz", ".zip"}

// Ext is the extension of a URL path that names a document or an archive
// (.md, .markdown, .mdx, .txt, .html, .htm, .tar.gz, .tgz, .zip), in lower
// case, or "" for any other path. `ctx add` takes such a URL as an https
// source, and names it for its file without this extension.
func Ext(urlPath string) string {
	p := strings.ToLower(urlPath)
	for _, ext := range pageExts {
		if strings.HasSuffix(p, ext) {
			return ext
		}
	}
	return ""
}
