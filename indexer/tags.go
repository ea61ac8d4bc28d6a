package indexer

import (
	"slices"
	"strings"
)

// TagCount is one tag, the number of documents that carry it, and that
// number per package.
type TagCount struct {
	Tag      string         `json:"tag"`
	Count    int            `json:"count"`
	Packages map[string]int `json:"packages"` // alias → documents with the tag
}

// Tags lists the tags of the indexed documents of packages (all when
// empty) with the number of documents that carry each, in all and per
// package, most used first (then by name). A document's tags are its front matter's `tags` and
// `keywords`, else its inline "Tags: a, b" line, lower-cased; search filters
// on them (Query.Tags, tag:T) and shows them in hits. A package the index
// does not have is an error wrapping ErrUnknownPackage.
func (r *Reader) Tags(packages []string) ([]TagCount, error) {
	r.mu.Lock()
	cat, err := r.loadCatalogLocked()
	r.mu.Unlock()
	if err != nil {
		return nil, err
	}
	indexed := make([]string, 0, len(cat.Packages))
	for _, p := range cat.Packages {
		indexed = append(indexed, p.Alias)
	}
	if err := checkPackages(packages, indexed); err != nil {
		return nil, err
	}
	counts := map[string]*TagCount{}
	for alias, recs := range cat.Files {
		if len(packages) > 0 && !slices.Contains(packages, alias) {
			continue
		}
		for _, rec := range recs {
			if rec.Skipped != "" {
				continue
			}
			for _, t := range rec.Tags {
				c := counts[t]
				if c == nil {
					c = &TagCount{Tag: t, Packages: map[string]int{}}
					counts[t] = c
				}
				c.Count++
				c.Packages[alias]++
			}
		}
	}
	out := make([]TagCount, 0, len(counts))
	for _, c := range counts {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b TagCount) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Tag, b.Tag)
	})
	return out, nil
}
