package indexer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/indexer/markdown"
)

// maxFileSize is the largest document ctx parses; bigger files are
// skipped with a note (they are almost always generated dumps).
const maxFileSize = 2 << 20

// skipReason says why content cannot be indexed, or "" when it can.
func skipReason(size int64, head []byte) string {
	if size > maxFileSize {
		return fmt.Sprintf("larger than %d MB", maxFileSize>>20)
	}
	if markdown.IsBinary(head) {
		return "binary content (NUL bytes)"
	}
	return ""
}

// frontMatter is the metadata ctx reads from a document's front matter.
type frontMatter struct {
	Title string
	// PageTitle is HashiCorp's "page_title", the page's HTML title (often
	// with the site's section after it: "Import: Usage", "CLI
	// Configuration - Terraform CLI"); a page's H1 wins over it.
	PageTitle string
	Summary   string
	Tags      []string
	Type      string
	Fields    map[string]any // every field, as decoded (see normalizeMeta)
}

// decodeFrontMatter decodes b (markdown's Decode). Errors carry the 1-based
// file line.
func decodeFrontMatter(b markdown.FrontMatter) (frontMatter, error) {
	m, err := b.Decode()
	if err != nil {
		return frontMatter{}, err
	}
	var fm frontMatter
	fm.Fields = m
	fm.Title = scalar(m["title"])
	fm.PageTitle = scalar(m["page_title"])
	fm.Summary = scalar(m["summary"])
	if fm.Summary == "" {
		fm.Summary = scalar(m["description"])
	}
	fm.Type = scalar(m["type"])
	fm.Tags = cleanTags(append(tagList(m["tags"]), tagList(m["keywords"])...))
	return fm, nil
}

// scalar renders a front matter value as one line of text; maps and lists
// give "".
func scalar(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return collapseSpace(v)
	case bool, int, int64, float64, uint64:
		return fmt.Sprint(v)
	}
	return ""
}

// TagsOf is a front matter's tags value v as the index keeps it (a list
// or a comma-separated string, cleaned by cleanTags): the MCP answers
// leave the front matter's tags out when they are the document's tags
// (agent22).
func TagsOf(v any) []string { return cleanTags(tagList(v)) }

// tagList accepts a list of scalars or a comma-separated string, and
// returns its items as written (cleanTags cleans them).
func tagList(v any) []string {
	var raw []string
	switch v := v.(type) {
	case string:
		raw = strings.Split(v, ",")
	case []any:
		for _, e := range v {
			raw = append(raw, scalar(e))
		}
	}
	return raw
}

// A document's tags are bounded: every chunk of the document stores them
// and every hit shows them, so a file with thousands of "tags" (or one of
// a megabyte) would swell the index and every answer. Past the bounds they
// are dropped, as links are past maxLinksPerDoc.
const (
	maxTagsPerDoc = 64  // the first ones, in the document's order
	maxTagBytes   = 100 // a longer "tag" is left out
)

// cleanTags trims, lower-cases, de-duplicates and sorts tags, keeping the
// first maxTagsPerDoc of at most maxTagBytes.
func cleanTags(raw []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range raw {
		if len(out) == maxTagsPerDoc {
			break
		}
		t = strings.ToLower(strings.TrimSpace(strings.Trim(strings.TrimSpace(t), "`#*_\"'[]")))
		if t == "" || len(t) > maxTagBytes || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
