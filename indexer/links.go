package indexer

import (
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/lazyre"
)

// Link extraction (at index time). A document's links are kept, as
// written, in its catalogue record; they are resolved against the
// installed documents when read (graph.go), so that installing or removing
// a package re-resolves every link without re-reading any file.
//
// Forms, each with its 1-based file line:
//   - markdown inline links [label](target "title") and autolinks
//     <https://…> (images are not links);
//   - reference definitions [label]: target (the line of the definition,
//     where the target is written);
//   - wikilinks [[target]] and [[target|label]] (not [[x]](url), which is a
//     bracketed markdown link);
//   - front-matter fields (and a KEP's kep.yaml) whose value, or one of
//     whose list values, is a wikilink or a document path: the key is the
//     link's type.
//
// reStructuredText (extractRSTLinks): :doc: and :ref: roles, inline
// hyperlinks, toctree entries, and the labels a document defines (the
// targets of :ref:). AsciiDoc (extractAsciiDocLinks): xref:, link: and
// linkgit: macros.
//
// Lines in fenced code and HTML comments, and inline code spans, are
// skipped. Pure fragments (#anchor), mailto: and other non-http schemes
// are not links to documents and are not kept.

// Link types of body links; a front-matter link's type is its key.
const (
	LinkMarkdown = "link"
	LinkWiki     = "wikilink"
)

// rawLink is one link as written in a document.
type rawLink struct {
	Type   string `json:"type"`
	Target string `json:"target"`
	Line   int    `json:"line"`
	Label  string `json:"label,omitempty"`
	Wiki   bool   `json:"wiki,omitempty"` // a front-matter [[wikilink]] (resolved as one)
}

// maxLinksPerDoc bounds what one document contributes to the graph (a
// generated page of 100,000 links would otherwise fill the catalogue).
const maxLinksPerDoc = 2000

var (
	inlineLinkRE = lazyre.New(`(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*(<[^<>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)`)
	autoLinkRE   = lazyre.New(`<(https?://[^\s<>]+)>`)
	refDefRE     = lazyre.New(`^ {0,3}\[([^\]]+)\]:\s*(<[^<>]*>|\S+)`)
	wikiLinkRE   = lazyre.New(`\[\[([^\[\]|\n]+)(?:\|([^\[\]\n]+))?\]\]`)
)

// extractLinks returns the body links of a document: lines are the file's
// lines, s the structure of lines[base:] (the body after front matter).
// inlineLinks is inlineLinkRE's matches in l, tried only when l has the
// "](" every match has (the regexp, which has no literal start, was the
// most of finding links).
func inlineLinks(l string) [][]int {
	if !strings.Contains(l, "](") {
		return nil
	}
	return inlineLinkRE().FindAllStringSubmatchIndex(l, -1)
}

func extractLinks(lines []string, s markdown.Body, base int) []rawLink {
	var out []rawLink
	for i, kind := range s.Kinds {
		if kind == markdown.Code || kind == markdown.Comment || kind == markdown.Blank {
			continue
		}
		l := lines[base+i]
		if !strings.ContainsAny(l, "[<") {
			continue
		}
		line := base + i + 1
		// Links are found in l with its code spans blanked (a link in
		// code is none); a link's text is taken from the line as written
		// (at the same offsets): "[`docker run`](run.md)" is about
		// docker run.
		text := l
		l = markdown.BlankCodeSpans(l)
		if m := refDefRE().FindStringSubmatch(l); m != nil && !strings.HasPrefix(m[1], "^") {
			out = appendLink(out, LinkMarkdown, m[2], line, m[1])
			continue
		}
		for _, m := range wikiLinkRE().FindAllStringSubmatchIndex(l, -1) {
			if m[1] < len(l) && l[m[1]] == '(' {
				continue // [[x]](url): a markdown link in brackets
			}
			target := l[m[2]:m[3]]
			label := ""
			if m[4] >= 0 {
				label = text[m[4]:m[5]]
			}
			out = appendLink(out, LinkWiki, target, line, label)
		}
		for _, m := range inlineLinks(l) {
			if m[3] > m[2] { // "!": an image
				continue
			}
			out = appendLink(out, LinkMarkdown, l[m[6]:m[7]], line, markdown.Plain(text[m[4]:m[5]]))
		}
		for _, m := range autoLinkRE().FindAllStringSubmatch(l, -1) {
			out = appendLink(out, LinkMarkdown, m[1], line, "")
		}
		if len(out) >= maxLinksPerDoc {
			return out[:maxLinksPerDoc]
		}
	}
	return out
}

// appendLink adds a link unless its target is not one to a document.
func appendLink(out []rawLink, typ, target string, line int, label string) []rawLink {
	target = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(target), "<"), ">"))
	if target == "" || strings.HasPrefix(target, "#") || len(target) > 2048 {
		return out
	}
	if typ != LinkWiki {
		if i := strings.IndexByte(target, ':'); i > 0 && !strings.ContainsAny(target[:i], "/?#") {
			scheme := strings.ToLower(target[:i])
			if scheme != "http" && scheme != "https" {
				return out // mailto:, ftp:, data:, …
			}
		}
	}
	return append(out, rawLink{Type: typ, Target: target, Line: line, Label: collapseSpace(label)})
}

// frontMatterLinks returns the typed links of front matter fields: a value
// (or list element) that is a wikilink or a document path. line is the
// line reported for them (the front matter's first line: yaml.v2 does not
// say where a key is).
func frontMatterLinks(m map[string]any, line int) []rawLink {
	keys := slices.Sorted(maps.Keys(m))
	var out []rawLink
	for _, k := range keys {
		switch k {
		case "title", "summary", "description", "tags":
			continue
		}
		var vals []any
		switch v := m[k].(type) {
		case []any:
			vals = v
		default:
			vals = []any{v}
		}
		for _, v := range vals {
			s, ok := v.(string)
			if !ok {
				continue
			}
			if t, label, ok := wikiValue(s); ok {
				if n := len(out); len(appendLink(out, k, t, line, label)) > n {
					out = appendLink(out, k, t, line, label)
					out[n].Wiki = true
				}
			} else if looksLikeDocPath(s) {
				out = appendLink(out, k, s, line, "")
			}
			if len(out) >= maxLinksPerDoc {
				return out
			}
		}
	}
	return out
}

// wikiValue reports whether s is exactly one wikilink, "[[target|label]]".
func wikiValue(s string) (target, label string, ok bool) {
	s = strings.TrimSpace(s)
	m := wikiLinkRE().FindStringSubmatch(s)
	if m == nil || m[0] != s {
		return "", "", false
	}
	return m[1], m[2], true
}

// looksLikeDocPath reports whether a front-matter string names a document
// or a folder of documents: a markdown or .html file name, or a path that
// starts with /, ./ or ../, or an http(s) URL; never text with spaces.
func looksLikeDocPath(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t\n") || len(s) > 2048 {
		return false
	}
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		return true
	}
	p := s
	if i := strings.IndexByte(p, '#'); i >= 0 {
		p = p[:i]
	}
	if markdown.FormatOf(p) == markdown.FormatMarkdown {
		return true
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".html", ".htm":
		return true
	}
	return strings.HasPrefix(s, "/") && len(s) > 1 || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../")
}

// LinkRef is the type of a reStructuredText :ref: link: its target is a
// label (".. _label:") that a document of the same package defines.
const LinkRef = "ref"

var adocMacroRE = lazyre.New(`(?:^|[^\w])(xref|link|linkgit):([^\s\[\]]+)\[([^\]\n]*)\]`)

// rstLabel is a label as Sphinx compares them: lower case, spaces
// collapsed.
func rstLabel(s string) string {
	return strings.ToLower(collapseSpace(s))
}

// extractRSTLinks returns the links of a reStructuredText document and
// the labels it defines (".. _label:", by rstLabel), from its lines as
// the rst reader reads them (markdown.Doc.RST, lines the file's): :doc:
// and :ref: roles ("text <target>" or the target alone), hyperlinks with
// an embedded target ("`text <target>`_"), and a toctree's entries
// ("target" or "Title <target>"). The reader decides what is text: code
// (literal blocks, code directives) and comments hold no links.
func extractRSTLinks(rst []markdown.RSTLine) (out []rawLink, labels []string) {
	for i, l := range rst {
		line := i + 1
		// A label written as a phrase (".. _`basic signature`:") is one
		// by the spec and to Sphinx, but is not counted: with CMake's 276
		// of them the in-link prior lifted CMake's manuals over the pages
		// a question is about (Debian2 0.769 → 0.737, round 13,
		// bench/relevance/README.md).
		if l.Label != "" && !l.Phrase {
			// Bounded as links are: a label longer than a link's target
			// is no one's, and a generated file of labels stops at
			// maxLinksPerDoc.
			if lb := rstLabel(l.Label); len(lb) <= 2048 && len(labels) < maxLinksPerDoc {
				labels = append(labels, lb)
			}
		}
		for _, r := range l.Refs {
			kind, external := r.XRef()
			label := ""
			if r.Titled {
				label = r.Text
			}
			switch {
			case l.Entry:
				if r.Target != "self" && !strings.ContainsAny(r.Target, "*?") {
					out = appendLink(out, LinkMarkdown, r.Target, line, label)
				}
			case !external && (kind == "ref" || kind == "numref"):
				if target := rstLabel(r.Target); target != "" && len(target) <= 2048 {
					out = append(out, rawLink{Type: LinkRef, Target: target, Line: line, Label: collapseSpace(label)})
				}
			case !external && kind == "doc":
				out = appendLink(out, LinkMarkdown, strings.TrimSpace(r.Target), line, label)
			case r.Link && r.Target != "" && !strings.HasSuffix(r.Target, "_"):
				// not a reference to a named target ("`x <name_>`_")
				out = appendLink(out, LinkMarkdown, r.Target, line, label)
			}
		}
		if len(out) >= maxLinksPerDoc {
			return out[:maxLinksPerDoc], labels
		}
	}
	return out, labels
}

// extractAsciiDocLinks returns the links of an AsciiDoc document:
// xref:target[text], link:target[text] and git's linkgit:name[section]
// (whose text is the page's name), outside comments and literal blocks.
func extractAsciiDocLinks(lines []string, s markdown.Body) []rawLink {
	var out []rawLink
	for i, kind := range s.Kinds {
		if kind == markdown.Code || kind == markdown.Comment || kind == markdown.Blank || i >= len(lines) {
			continue
		}
		l := lines[i]
		if !strings.Contains(l, ":") || !strings.Contains(l, "[") {
			continue
		}
		for _, m := range adocMacroRE().FindAllStringSubmatch(l, -1) {
			label := m[3]
			if m[1] == "linkgit" {
				label = m[2]
			}
			out = appendLink(out, LinkMarkdown, m[2], i+1, label)
		}
		if len(out) >= maxLinksPerDoc {
			return out[:maxLinksPerDoc]
		}
	}
	return out
}
