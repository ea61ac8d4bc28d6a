package indexer

import (
	"context"
	"fmt"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// joinWeight is the share of the score a joined word (joinedWords) gets,
// against 1 for a word the query writes: it stands for two of the
// query's words that the page writes as one.
const joinWeight = 0.5

// joinedWords returns the query's adjacent words written as one word:
// "health check" is also "healthcheck", "dry run" also "dryrun" (a
// page's `dryRun`, `--dryrun`), "max connections" also "maxconnections"
// (`maxConnections`), "check out" also "checkout". The analyzer
// lower-cases a page's `maxConnections` into one term, so without them
// the question's two words would not find it. words are the query's
// plain words as typed; each is cut at what is not a letter or a digit
// ("max-connections" is two words here, as the analyzer makes it). A
// pair of two stop words ("to do", "do I": key, the candidates'
// analyzer, keeps neither) is not joined, nor one shorter than four
// letters. withJoined keeps those the corpus holds.
func joinedWords(key analysis.Analyzer, words []string) []string {
	var toks []string
	for _, w := range words {
		toks = append(toks, strings.FieldsFunc(strings.ToLower(w), func(r rune) bool { return !isWordRune(r) })...)
	}
	if len(toks) < 2 {
		return nil
	}
	stop := make([]bool, len(toks))
	for i, t := range toks {
		stop[i] = len(key.Analyze([]byte(t))) == 0
	}
	var out []string
	for i := 1; i < len(toks); i++ {
		if stop[i-1] && stop[i] || len(toks[i-1])+len(toks[i]) < 4 {
			continue
		}
		out = append(out, toks[i-1]+toks[i])
	}
	return out
}

// withJoined returns positive with the joined words of words
// (joinedWords) whose terms (analysed by m's text analyzer) the corpus
// holds (rdr: in a chunk's text) and positive does not make, and those
// terms. A join no chunk holds is left out: it would match nothing and
// cost the search its shortcuts for two or three terms
// (allTermCandidates). An empty positive (a search by filters only) has
// none.
func withJoined(ctx context.Context, rdr index.IndexReader, m mapping.IndexMapping, words []string, positive string) (string, map[string]bool, error) {
	if positive == "" {
		return positive, nil, nil
	}
	joins := joinedWords(m.AnalyzerNamed(keyTextAnalyzer), words)
	if len(joins) == 0 {
		return positive, nil, nil
	}
	a := m.AnalyzerNamed(textAnalyzer)
	own := queryTerms(a, positive)
	var terms map[string]bool
	var b strings.Builder
	b.WriteString(positive)
	for _, j := range joins {
		kept := false
		for _, t := range a.Analyze([]byte(j)) {
			term := string(t.Term)
			if own[term] || terms[term] {
				continue
			}
			tfr, err := rdr.TermFieldReader(ctx, t.Term, fText, false, false, false)
			if err != nil {
				return "", nil, fmt.Errorf("indexer: read postings of %q: %w", term, err)
			}
			n := tfr.Count()
			tfr.Close()
			if n == 0 {
				continue
			}
			if terms == nil {
				terms = map[string]bool{}
			}
			terms[term], kept = true, true
		}
		if kept {
			b.WriteByte(' ')
			b.WriteString(j)
		}
	}
	return b.String(), terms, nil
}
