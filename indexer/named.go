package indexer

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/blevesearch/bleve/v2/analysis"
	index "github.com/blevesearch/bleve_index_api"
)

// A package named in the query (issue 27). In a project of several
// packages, a question that names one ("profile coredns CPU usage",
// "upgrading from Prometheus 2 to 3") is about that package's pages, but
// BM25F scores the name as one word among the others: a page of another
// package that matches the other words better comes first. namedPackage
// finds the one package a query word names; when that word is a name in
// this index (nameInIndex), the chunks of the other packages are ranked
// at namedPackagePrior of their score (bench/relevance/README.md, rounds
// 19 and 20).
//
// An alias is often a topic word (a team's "api", "security", "docs"):
// "how do I rotate the api keys" asks about keys, wherever they are
// documented, not about the api package. What tells a name from such a
// word is how the index uses it: a project's name is its own pages' word
// and seldom anyone else's, while a topic word is the ordinary vocabulary
// of every package's pages.

const (
	// namedPackagePrior multiplies the score of a chunk of a package
	// other than the one the query names (namedPackage, nameInIndex).
	namedPackagePrior = 0.7
	// nameOutsideShare: an alias is a name only when at most 1 in
	// nameOutsideShare of the other packages' chunks hold it.
	nameOutsideShare = 50
)

// namedPackage returns the alias of the one package of aliases (the
// indexed packages) that a word of the query (words, as written) names,
// case aside, with the marks around it (punctuation, quotes, code or
// emphasis marks: "`traefik`", "“Consul”") and a possessive "'s" dropped
// ("traefik's"), or "" when no package, or more than one, is named, or
// there is only one package. Whether the word is a name in the index is
// nameInIndex's.
func namedPackage(words, aliases []string) string {
	if len(aliases) < 2 {
		return ""
	}
	named := ""
	for _, w := range words {
		w = strings.ToLower(strings.TrimFunc(w, markAround))
		w = strings.TrimFunc(strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s"), markAround)
		for _, a := range aliases {
			if w != strings.ToLower(a) {
				continue
			}
			if named != "" && named != a {
				return ""
			}
			named = a
		}
	}
	return named
}

// markAround says whether r, at either end of a query word, is a mark
// around the word rather than a part of an alias: any rune but a letter,
// a digit, '-' and '_' (an alias starts with a letter or a digit, may end
// with '-' or '_', never with '.': naming.ValidAlias).
func markAround(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_'
}

// isName says whether an alias, as the query's word, names its package
// from the chunks that hold it (in of its package's pkg chunks, out of
// the other packages'), of chunks in all: most chunks that hold it are
// the package's, and at most 1 in nameOutsideShare of the other
// packages' chunks do.
func isName(in, out, pkg, chunks int) bool {
	return in > out && out*nameOutsideShare <= chunks-pkg
}

// packageNamed returns the package that words (the query's, as written)
// name (namedPackage) when its alias is a name in rdr's snapshot
// (nameInIndex), else "". The aliases are the snapshot's (the fPackage
// dictionary: a few terms, no catalogue to read).
func (c *snapshotCache) packageNamed(ctx context.Context, rdr index.IndexReader, a analysis.Analyzer, words []string) (string, error) {
	if len(words) == 0 {
		return "", nil
	}
	aliases, err := c.packageAliases(rdr)
	if err != nil {
		return "", err
	}
	named := namedPackage(words, aliases)
	if named == "" {
		return "", nil
	}
	ok, err := c.nameInIndex(ctx, rdr, a, named)
	if !ok || err != nil {
		return "", err
	}
	return named, nil
}

// packageAliases returns the aliases of the packages in rdr's snapshot,
// read once a snapshot from the fPackage dictionary.
func (c *snapshotCache) packageAliases(rdr index.IndexReader) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.of(rdr)
	if c.aliases != nil {
		return c.aliases, nil
	}
	aliases := []string{}
	err := eachTerm(rdr, fPackage, func(term string) error {
		aliases = append(aliases, term)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("indexer: read the packages: %w", err)
	}
	c.aliases = aliases
	return aliases, nil
}

// nameInIndex says whether alias is a name in rdr's snapshot (isName),
// read once a snapshot for each alias asked about: the alias analysed by
// a (all its terms in one chunk), and its package's chunks (fPackage).
func (c *snapshotCache) nameInIndex(ctx context.Context, rdr index.IndexReader, a analysis.Analyzer, alias string) (bool, error) {
	c.mu.Lock()
	c.of(rdr)
	ok, known := c.names[alias]
	c.mu.Unlock()
	if known {
		return ok, nil
	}
	ok, err := readName(ctx, rdr, a, alias)
	if err != nil {
		return false, fmt.Errorf("indexer: read the chunks that name %q: %w", alias, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.of(rdr)
	if c.names == nil {
		c.names = map[string]bool{}
	}
	c.names[alias] = ok
	return ok, nil
}

// readName reads from rdr what isName decides on.
func readName(ctx context.Context, rdr index.IndexReader, a analysis.Analyzer, alias string) (bool, error) {
	terms := queryTerms(a, alias)
	if len(terms) == 0 {
		return false, nil // stop words only
	}
	// Each chunk's count of the alias's terms, in any of the three fields
	// (once a field), then those with every term.
	count := map[uint64]int{}
	for t := range terms {
		seen := map[uint64]bool{}
		for _, f := range []string{fText, fHead, fTitle} {
			if err := eachPosting(ctx, rdr, t, f, func(id uint64) { seen[id] = true }); err != nil {
				return false, err
			}
		}
		for id := range seen {
			count[id]++
		}
	}
	own, err := postingSet(ctx, rdr, fPackage, alias)
	if err != nil {
		return false, err
	}
	pkg := 0
	for _, b := range own {
		if b {
			pkg++
		}
	}
	in, out := 0, 0
	for id, n := range count {
		switch {
		case n < len(terms):
		case id < uint64(len(own)) && own[id]:
			in++
		default:
			out++
		}
	}
	chunks, err := rdr.DocCount()
	if err != nil {
		return false, err
	}
	return isName(in, out, pkg, int(chunks)), nil
}
