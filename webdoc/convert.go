package webdoc

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/safetext"
)

// Convert turns one fetched body into markdown. pageURL is the page's
// final URL (after redirects) and contentType its Content-Type header
// ("" when the server sent none).
//
//   - text/markdown, text/x-markdown and text/plain are kept as they are
//     (a BOM and CRLF line ends are left to the indexer);
//   - text/html and application/xhtml+xml are converted with
//     github.com/JohannesKaufmann/html-to-markdown/v2: the charset of the
//     header or of a <meta> tag is decoded to UTF-8; script, style and nav
//     elements (and the page's head) are dropped; tables become markdown
//     tables; relative links and images are made absolute against pageURL;
//     what the page asks of the converter is bounded first (tame: table
//     spans, blockquotes and lists nested more than 8 deep, which are
//     kept as plain blocks, an ordered list's start);
//   - any other type (none, application/octet-stream, ...) is decided by
//     the URL's extension (.md, .markdown, .mdx, .txt: kept; .html, .htm:
//     converted) and else by sniffing the body as net/http does (HTML:
//     converted; text: kept only when the header named no type or a
//     generic one).
//
// Anything else (a PDF, an image, a binary) is an error that names the
// content type; so is kept text that holds a NUL byte, and a page with no
// text once converted.
func Convert(pageURL *url.URL, contentType string, body []byte) ([]byte, error) {
	if pageURL == nil {
		return nil, errors.New("page url is missing")
	}
	where := safetext.Quote(pageURL.Redacted())
	kind, err := bodyKind(pageURL, contentType, body)
	if err != nil {
		return nil, fmt.Errorf("page %s: %w", where, err)
	}
	if kind == kindText {
		if markdown.IsBinary(body) {
			return nil, fmt.Errorf("page %s is served as text (%s) but holds a NUL byte: it is not a document; give the URL of a markdown, text or HTML page",
				where, safetext.Quote(contentType))
		}
		return body, nil
	}
	md, err := convertHTML(pageURL, contentType, body)
	if err != nil {
		return nil, fmt.Errorf("page %s: %w", where, err)
	}
	return md, nil
}

type kind int

const (
	kindText kind = iota
	kindHTML
)

// bodyKind decides whether body is kept as text or converted from HTML.
func bodyKind(pageURL *url.URL, contentType string, body []byte) (kind, error) {
	mt := mediaType(contentType)
	switch mt {
	case "text/markdown", "text/x-markdown", "text/plain":
		return kindText, nil
	case "text/html", "application/xhtml+xml":
		return kindHTML, nil
	}
	if markdownOrText(pageURL.Path) && (generic(mt) || strings.HasPrefix(mt, "text/")) {
		return kindText, nil
	}
	switch strings.ToLower(path.Ext(pageURL.Path)) {
	case ".html", ".htm":
		if generic(mt) || strings.HasPrefix(mt, "text/") {
			return kindHTML, nil
		}
	}
	sniffed := mediaType(http.DetectContentType(body))
	switch {
	case sniffed == "text/html":
		if generic(mt) || strings.HasPrefix(mt, "text/") {
			return kindHTML, nil
		}
	case sniffed == "text/plain" && generic(mt):
		return kindText, nil
	}
	shown := contentType
	if shown == "" {
		shown = sniffed + " (sniffed; the server sent no content type)"
	}
	return 0, fmt.Errorf("content type %s is not a document: ctx installs markdown, text and HTML pages; give the URL of such a page, or of a .tar.gz or .zip archive of documents",
		safetext.Quote(shown))
}

// generic reports whether a media type says nothing about the content.
func generic(mt string) bool {
	switch mt {
	case "", "application/octet-stream", "binary/octet-stream", "application/unknown":
		return true
	}
	return false
}

// convertHTML converts an HTML page to markdown.
func convertHTML(pageURL *url.URL, contentType string, body []byte) ([]byte, error) {
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		return nil, fmt.Errorf("decode html charset: %w", err)
	}
	// html.Parse refuses elements nested more than 512 deep, which also
	// bounds the converter's recursion.
	doc, err := html.Parse(r)
	if err != nil {
		return nil, fmt.Errorf("parse html: %w", err)
	}
	tame(doc) // table spans and nesting within what the converter can lay out
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
	))
	conv.Register.TagType("nav", converter.TagTypeRemove, converter.PriorityStandard)
	md, err := conv.ConvertNode(doc, converter.WithDomain(pageURL.String()))
	if err != nil {
		return nil, fmt.Errorf("convert html to markdown: %w", err)
	}
	md = bytes.TrimSpace(md)
	if len(md) == 0 {
		return nil, errors.New("html page has no text once converted (is it rendered by JavaScript?); give the URL of the page's markdown or of a page with its text in the HTML")
	}
	return append(md, '\n'), nil
}

// markdownOrText reports whether the URL path p names a markdown or text
// file by its extension (markdown.FormatOf), a page kept as it is.
func markdownOrText(p string) bool {
	f := markdown.FormatOf(p)
	return f == markdown.FormatMarkdown || f == markdown.FormatText
}
