package indexer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// joinWeight is the share of the score a joined word (joinedWords) gets,
// against 1 for a word the query writes: it stands for two of the
// query's words that the page writes as one.
const joinWeight = 0.5

// joinedWord is one of a query's adjacent words written as one
// (joinedWords): the join and the indexes, among the query's words, of
// the words its two parts come from (the same word for "max-connections").
type joinedWord struct {
	word string
	from [2]int
}

// joinedWords returns the query's adjacent words written as one word:
// "health check" is also "healthcheck", "dry run" also "dryrun" (a
// page's `dryRun`, `--dryrun`), "max connections" also "maxconnections"
// (`maxConnections`), "check out" also "checkout". The analyzer
// lower-cases a page's `maxConnections` into one term, so without them
// the question's two words would not find it. The words are pq's plain
// words as typed, each cut at what is not a letter or a digit
// ("max-connections" is two words here, as the analyzer makes it); two
// words a phrase, an exclusion or a qualifier parts are not in a row
// (pq.apart: "health -x check" joins nothing). A
// pair of two stop words ("to do", "do I": key, the candidates'
// analyzer, keeps neither) is not joined, nor two numbers ("404 500",
// the parts of a version "10.15": no word written as one), nor one
// shorter than four letters. withJoined keeps those the corpus holds (heldJoins).
func joinedWords(key analysis.Analyzer, pq parsedQuery) []joinedWord {
	var toks []string
	var from []int // by tok: its word's index in pq.words
	for i, w := range pq.words {
		for _, t := range strings.FieldsFunc(strings.ToLower(w), func(r rune) bool { return !isWordRune(r) }) {
			toks, from = append(toks, t), append(from, i)
		}
	}
	if len(toks) < 2 {
		return nil
	}
	stop := make([]bool, len(toks))
	number := make([]bool, len(toks))
	for i, t := range toks {
		stop[i] = len(key.Analyze([]byte(t))) == 0
		number[i] = strings.IndexFunc(t, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
	}
	var out []joinedWord
	for i := 1; i < len(toks); i++ {
		if stop[i-1] && stop[i] || number[i-1] && number[i] || utf8.RuneCountInString(toks[i-1])+utf8.RuneCountInString(toks[i]) < 4 ||
			from[i] != from[i-1] && slices.Contains(pq.apart, from[i]) {
			continue
		}
		out = append(out, joinedWord{toks[i-1] + toks[i], [2]int{from[i-1], from[i]}})
	}
	return out
}

// heldJoins returns the joined words of pq (joinedWords) that the
// corpus holds, each with its terms (analysed by m's text analyzer) that
// some chunk's text holds (rdr), skip's aside (terms the query makes
// already). Search adds them to the query (withJoined); Unmatched does
// not name the words they join.
func heldJoins(ctx context.Context, rdr index.IndexReader, m mapping.IndexMapping, pq parsedQuery, skip map[string]bool) ([]joinedWord, [][]string, error) {
	joins := joinedWords(m.AnalyzerNamed(keyTextAnalyzer), pq)
	if len(joins) == 0 {
		return nil, nil, nil
	}
	a := m.AnalyzerNamed(textAnalyzer)
	var held []joinedWord
	var heldTerms [][]string
	for _, j := range joins {
		var terms []string
		for _, t := range a.Analyze([]byte(j.word)) {
			term := string(t.Term)
			if skip[term] || slices.Contains(terms, term) {
				continue
			}
			tfr, err := rdr.TermFieldReader(ctx, t.Term, fText, false, false, false)
			if err != nil {
				return nil, nil, fmt.Errorf("indexer: read postings of %q: %w", term, err)
			}
			n := tfr.Count()
			tfr.Close()
			if n > 0 {
				terms = append(terms, term)
			}
		}
		if len(terms) > 0 {
			held, heldTerms = append(held, j), append(heldTerms, terms)
		}
	}
	return held, heldTerms, nil
}

// withJoined returns positive with the joined words of pq
// (joinedWords) whose terms the corpus holds and positive does not make
// (heldJoins), and those terms. A join no chunk holds is left out: it
// would match nothing and cost the search its shortcuts for two or three
// terms (allTermCandidates). An empty positive (a search by filters
// only) has none.
func withJoined(ctx context.Context, rdr index.IndexReader, m mapping.IndexMapping, pq parsedQuery, positive string) (string, map[string]bool, error) {
	if positive == "" {
		return positive, nil, nil
	}
	held, heldTerms, err := heldJoins(ctx, rdr, m, pq, queryTerms(m.AnalyzerNamed(textAnalyzer), positive))
	if err != nil || len(held) == 0 {
		return positive, nil, err
	}
	terms := map[string]bool{}
	var b strings.Builder
	b.WriteString(positive)
	for i, j := range held {
		kept := false
		for _, t := range heldTerms[i] {
			if !terms[t] {
				terms[t], kept = true, true
			}
		}
		if kept {
			b.WriteByte(' ')
			b.WriteString(j.word)
		}
	}
	return b.String(), terms, nil
}
