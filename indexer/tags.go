package indexer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/internal/suggest"
)

// ErrUnknownTag is returned (wrapped) by Search for a tag filter of which
// no tag is an indexed document's: a typo is an error naming the nearest
// tags, not an empty answer.
var ErrUnknownTag = errors.New("no indexed document has this tag")

// tagKey is the form a tag is stored and filtered in: lower-cased, without
// surrounding space.
func tagKey(t string) string { return strings.ToLower(strings.TrimSpace(t)) }

// checkTags is nil when tags (one filter: any of them) is empty or holds a
// tag of an indexed document (Tags), else an error wrapping ErrUnknownTag
// that names them and the tags they may be typos of (suggest's rule). A
// filter with one known tag among unknown ones searches: its answer is
// not empty for a typo alone.
func (r *Reader) checkTags(tags []string) error {
	if len(tags) == 0 {
		return nil
	}
	r.mu.Lock()
	cat, err := r.loadCatalogLocked()
	r.mu.Unlock()
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, t := range tags {
		want[tagKey(t)] = true
	}
	known := false
	docTags(cat, nil, func(_, t string) bool {
		known = want[t]
		return !known
	})
	if known {
		return nil
	}
	all, err := r.Tags(context.Background(), nil)
	if err != nil {
		return err
	}
	names := make([]string, len(all))
	for i, c := range all {
		names[i] = c.Tag
	}
	// The tags named, and matched against the known ones for a
	// suggestion, are the first few: Query.Tags has no bound of its own
	// (an MCP client's array), and the error goes to a model (review18a:
	// 60,000 tags made a 720 KB error, de-duplicated in quadratic time).
	const shown = 10
	var unknown, keys []string
	seen := map[string]bool{}
	for _, t := range tags {
		k := tagKey(t)
		if seen[k] {
			continue
		}
		seen[k] = true
		if len(keys) < shown {
			unknown = append(unknown, strconv.Quote(k))
			keys = append(keys, k)
		}
	}
	list := strings.Join(unknown, " or ")
	if more := len(seen) - len(keys); more > 0 {
		list += fmt.Sprintf(" or %d more", more)
	}
	if len(names) == 0 {
		return fmt.Errorf("indexer: tag %s: %w (no indexed document has a tag)", list, ErrUnknownTag)
	}
	return fmt.Errorf("indexer: tag %s: %w%s", list, ErrUnknownTag, suggest.Phrase(suggest.ForAll(keys, names)))
}

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
// does not have is an error wrapping ErrUnknownPackage. The count stops
// with ctx's error when ctx ends.
func (r *Reader) Tags(ctx context.Context, packages []string) ([]TagCount, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
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
	n := 0
	stopped := false
	docTags(cat, packages, func(alias, t string) bool {
		if n%ctxEvery == 0 && ctx.Err() != nil {
			stopped = true
			return false
		}
		n++
		c := counts[t]
		if c == nil {
			c = &TagCount{Tag: t, Packages: map[string]int{}}
			counts[t] = c
		}
		c.Count++
		c.Packages[alias]++
		return true
	})
	if stopped {
		return nil, ctx.Err()
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

// docTags calls yield with each tag of each indexed document of packages
// (every package when none), and its package, until yield returns false.
// A document skipped at indexing has none.
func docTags(cat *catalog, packages []string, yield func(alias, tag string) bool) {
	for alias, recs := range cat.Files {
		if len(packages) > 0 && !slices.Contains(packages, alias) {
			continue
		}
		for _, rec := range recs {
			if rec.Skipped != "" {
				continue
			}
			for _, t := range rec.Tags {
				if !yield(alias, t) {
					return
				}
			}
		}
	}
}
