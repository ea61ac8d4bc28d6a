package indexer

import "strings"

// A package named in the query (issue 27). In a project of several
// packages, a question that names one ("profile coredns CPU usage",
// "upgrading from Prometheus 2 to 3") is about that package's pages, but
// BM25F scores the name as one word among the others: a page of another
// package that matches the other words better comes first. namedPackage
// finds the one package a query word names; the chunks of the other
// packages are ranked at namedPackagePrior of their score
// (bench/relevance/README.md, round 19).

// namedPackagePrior multiplies the score of a chunk of a package other
// than the one the query names (namedPackage).
const namedPackagePrior = 0.7

// namedPackage returns the alias of the one package of aliases (the
// indexed packages) that a word of the query (words, as written) names,
// case aside and with a possessive "'s" dropped ("Consul", "traefik's"),
// or "" when no package, or more than one, is named, or there is only one
// package.
func namedPackage(words, aliases []string) string {
	if len(aliases) < 2 {
		return ""
	}
	named := ""
	for _, w := range words {
		w = strings.ToLower(strings.Trim(w, `"'?!.,;:()`))
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
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
