package indexer

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
)

// Unmatched returns the words of a query (its plain words, then the words
// of its phrases, as typed, each once) that no indexed chunk
// holds in its text, its heading or its document's title: a typo, or a
// term the documents do not use. A search ranks on the other words and
// cannot say so itself; this lets an answer tell "no such word" from a
// weak match. A stop word ("how", "the": the key analyzer drops it) is
// never unmatched, nor is a word that stems to a held one, nor one the
// corpus holds joined to the word next to it (heldJoins: "health check"
// finds a page's healthCheck).
// The check is over the whole index, not a search's filters: a word that
// only other packages hold is not reported.
//
// common says the query has words, no phrase, and only stop words ("the
// of and", "how do I"): no word of it picks documents, and whatever a
// search finds matches those words anywhere (polish21b: such a query got
// weak hits with nothing said).
//
// The words are q's as Search reads them (queryOf): a query of exclusions
// alone is searched as written, so its words are checked too; with a
// filter (q's own or its text's) they stay exclusions, never named.
func (r *Reader) Unmatched(ctx context.Context, q Query) (words []string, common bool, err error) {
	pq := queryOf(q)
	seen := map[string]bool{}
	for _, w := range append(append([]string(nil), pq.words...), strings.Fields(strings.Join(pq.phrases, " "))...) {
		if k := strings.ToLower(w); !seen[k] {
			seen[k] = true
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return nil, false, nil
	}
	open, release, err := r.acquire()
	if err != nil {
		return nil, false, err
	}
	defer release()
	rdr, err := snapshotReader(open.idx)
	if err != nil {
		return nil, false, fmt.Errorf("indexer: unmatched words: %w", err)
	}
	defer rdr.Close()
	analyzer := open.idx.Mapping().AnalyzerNamed(textAnalyzer)
	key := open.idx.Mapping().AnalyzerNamed(keyTextAnalyzer)
	// A word the corpus holds joined to the next or the one before
	// ("health check", a page's healthCheck) is found (heldJoins).
	held, _, err := heldJoins(ctx, rdr, open.idx.Mapping(), pq, nil)
	if err != nil {
		return nil, false, fmt.Errorf("indexer: unmatched words: %w", err)
	}
	joined := map[string]bool{}
	for _, j := range held {
		joined[strings.ToLower(pq.words[j.from[0]])] = true
		joined[strings.ToLower(pq.words[j.from[1]])] = true
	}
	var out []string
	common = onlyCommon(pq, key)
	for _, w := range words {
		if joined[strings.ToLower(w)] {
			continue
		}
		terms := queryTerms(analyzer, w)
		if len(terms) == 0 || len(queryTerms(key, w)) == 0 {
			continue
		}
		found := false
		for t := range terms {
			for _, field := range []string{fText, fHead, fTitle} {
				tr, err := rdr.TermFieldReader(ctx, []byte(t), field, false, false, false)
				if err != nil {
					return nil, false, fmt.Errorf("indexer: unmatched words: %w", err)
				}
				n := tr.Count()
				_ = tr.Close()
				if found = n > 0; found {
					break
				}
			}
			if found {
				break
			}
		}
		if !found {
			out = append(out, w)
		}
	}
	return out, common, nil
}

// onlyCommon is the rule of Unmatched's common: pq has words, no phrase,
// and each word is a stop word (key, the key analyzer, keeps no term of
// it).
func onlyCommon(pq parsedQuery, key analysis.Analyzer) bool {
	if len(pq.phrases) > 0 || len(pq.words) == 0 {
		return false
	}
	for _, w := range pq.words {
		if len(queryTerms(key, w)) > 0 {
			return false
		}
	}
	return true
}

// OnlyCommonWords reports what Unmatched's common does, without an index:
// text has words, no phrase, and only stop words ("the of and", "how do
// I"), so no word of it picks documents. ctx search asks it (agent22: the
// MCP tools said so, the CLI did not); the analyzer is the index
// mapping's own (newMapping's rules, built once, with no stem memo).
// q's words are read as Search reads them (queryOf).
func OnlyCommonWords(q Query) bool {
	return onlyCommon(queryOf(q), keyAnalyzer())
}

// keyAnalyzer is the key analyzer of a mapping built once, for
// OnlyCommonWords.
var keyAnalyzer = sync.OnceValue(func() analysis.Analyzer {
	return mappingWith(0).AnalyzerNamed(keyTextAnalyzer)
})

// CommonWordsNote is what an answer says of a query of only common words
// (Unmatched's common, OnlyCommonWords): no word picks documents, and what
// to send instead; found says the answer has hits, which then match those
// words anywhere. The MCP tools' note and ctx search's share it.
func CommonWordsNote(found bool) string {
	n := "no word of the query picks documents: it has only common words such as \"the\" or \"how\""
	if found {
		n += ", which these match anywhere"
	}
	return n + "; send the subject's words: a name, a term, an error's text."
}
