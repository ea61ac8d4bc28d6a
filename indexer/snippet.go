package indexer

import (
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
)

// Snippets are cut by ctx itself rather than by bleve's highlighter: that
// one needs term vectors, which would make the index bigger and the build
// slower. The chunk's stored text is run through the same English analyzer
// as the query, so "configuring" in the text matches "configure" in the
// query, exactly as the ranking did.

const (
	snippetBytes = 240
	snippetScan  = 16 << 10 // analyse at most this much of a chunk
)

// queryTerms returns the analysed terms of a query.
func queryTerms(a analysis.Analyzer, q string) map[string]bool {
	terms := map[string]bool{}
	if a == nil {
		return terms
	}
	for _, t := range a.Analyze([]byte(q)) {
		terms[string(t.Term)] = true
	}
	return terms
}

// snippet returns about snippetBytes of text around the densest cluster of
// query terms, each matched word marked **like this**, on one line.
func snippet(a analysis.Analyzer, text string, terms map[string]bool) string {
	scan := text
	if len(scan) > snippetScan {
		scan = scan[:snippetScan]
		for len(scan) > 0 && !utf8.RuneStart(text[len(scan)]) {
			scan = scan[:len(scan)-1]
		}
	}
	type span struct {
		start, end int
		term       string
	}
	var matches []span
	if a != nil && len(terms) > 0 {
		for _, t := range a.Analyze([]byte(scan)) {
			if terms[string(t.Term)] {
				matches = append(matches, span{t.Start, t.End, string(t.Term)})
			}
		}
	}
	// Pick the window start (a match) that covers the most distinct terms.
	best, bestDistinct, bestCount := -1, 0, 0
	for i := range matches {
		distinct := map[string]bool{}
		count := 0
		for j := i; j < len(matches) && matches[j].end-matches[i].start <= snippetBytes; j++ {
			distinct[matches[j].term] = true
			count++
		}
		if len(distinct) > bestDistinct || (len(distinct) == bestDistinct && count > bestCount) {
			best, bestDistinct, bestCount = i, len(distinct), count
		}
	}
	from := 0
	if best >= 0 {
		from = matches[best].start - snippetBytes/5
		if from < 0 {
			from = 0
		}
		// Start at a word boundary.
		if from > 0 {
			if sp := strings.IndexAny(text[from:matches[best].start], " \n\t"); sp >= 0 {
				from += sp + 1
			} else {
				from = matches[best].start
			}
		}
	}
	to := from + snippetBytes
	if to >= len(text) {
		to = len(text)
	} else {
		if sp := strings.LastIndexAny(text[from:to], " \n\t"); sp > snippetBytes/2 {
			to = from + sp
		}
		for to > from && !utf8.RuneStart(text[to]) {
			to--
		}
	}
	var b strings.Builder
	if from > 0 {
		b.WriteString("… ")
	}
	pos := from
	for _, m := range matches {
		if m.start < from || m.end > to {
			continue
		}
		b.WriteString(text[pos:m.start])
		b.WriteString("**")
		b.WriteString(text[m.start:m.end])
		b.WriteString("**")
		pos = m.end
	}
	b.WriteString(text[pos:to])
	out := strings.Join(strings.Fields(b.String()), " ")
	if to < len(text) {
		out += " …"
	}
	return out
}
