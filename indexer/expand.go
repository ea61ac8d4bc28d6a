package indexer

import (
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
)

// joinWeight is the share of the score a joined word (joinedWords) gets,
// against 1 for a word the query writes: it stands for two of the
// query's words that the page writes as one.
const joinWeight = 0.5

// joinedWords returns, space-separated, the query's adjacent words written
// as one word: "health check" is also "healthcheck", "dry run" also
// "dryrun" (a page's `dryRun`, `--dryrun`), "max connections" also
// "maxconnections" (`maxConnections`), "check out" also "checkout". The
// analyzer lower-cases a page's `maxConnections` into one term, so
// without them the question's two words would not find it. words are the
// query's plain words as typed; each is cut at what is not a letter or a
// digit ("max-connections" is two words here, as the analyzer makes it).
// A pair of two stop words ("to do", "do I": key, the candidates'
// analyzer, keeps neither) is not joined, nor one shorter than four
// letters. A join the corpus does not hold matches nothing: the index
// decides which joins count.
func joinedWords(key analysis.Analyzer, words []string) string {
	var toks []string
	for _, w := range words {
		toks = append(toks, strings.FieldsFunc(strings.ToLower(w), func(r rune) bool { return !isWordRune(r) })...)
	}
	if len(toks) < 2 {
		return ""
	}
	stop := make([]bool, len(toks))
	for i, t := range toks {
		stop[i] = len(key.Analyze([]byte(t))) == 0
	}
	var b strings.Builder
	for i := 1; i < len(toks); i++ {
		if stop[i-1] && stop[i] || len(toks[i-1])+len(toks[i]) < 4 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(toks[i-1])
		b.WriteString(toks[i])
	}
	return b.String()
}

// joinedTerms returns the terms (analysed by a) of joined (joinedWords)
// that the rest of the query, positive, does not make.
func joinedTerms(a analysis.Analyzer, joined, positive string) map[string]bool {
	if joined == "" {
		return nil
	}
	own := queryTerms(a, positive)
	out := map[string]bool{}
	for t := range queryTerms(a, joined) {
		if !own[t] {
			out[t] = true
		}
	}
	return out
}
