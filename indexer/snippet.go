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

// snippeter cuts the snippets of one search: the analyzer, the query's
// terms, and what each word seen so far analyses to.
//
// Analysing a chunk is what a snippet costs: the tokenizer's word
// segmentation, then the token filters on every word. The filters of
// ctx's analyzers (possessive, lower case, stop words, Porter) each turn
// one token into at most one, looking at nothing but that token, so a
// word written the same way always gives the same term: each distinct
// word is filtered once per search, and its term remembered (most words
// of a text repeat). An analyzer of another shape (char filters, a filter
// that makes two tokens of one) is run whole.
type snippeter struct {
	a         analysis.Analyzer
	terms     map[string]bool
	tokenizer analysis.Tokenizer     // nil: run a.Analyze
	filters   []analysis.TokenFilter // a's, run on one token at a time
	words     map[string]wordTerm    // a word as written → what it analyses to
}

// wordTerm is what one word analyses to, when it is one of the terms.
type wordTerm struct {
	term  string
	match bool
}

func newSnippeter(a analysis.Analyzer, terms map[string]bool) *snippeter {
	s := &snippeter{a: a, terms: terms}
	if d, ok := a.(*analysis.DefaultAnalyzer); ok && len(d.CharFilters) == 0 && d.Tokenizer != nil {
		s.tokenizer, s.filters = d.Tokenizer, d.TokenFilters
		s.words = map[string]wordTerm{}
	}
	return s
}

// span is one matched word of a text: its bytes and its term.
type span struct {
	start, end int
	term       string
}

// matches returns the words of text that analyse to one of the terms, in
// order: what a.Analyze would give, kept when its term is one of them.
func (s *snippeter) matches(text string) []span {
	if s.a == nil || len(s.terms) == 0 {
		return nil
	}
	var out []span
	if s.tokenizer == nil {
		for _, t := range s.a.Analyze([]byte(text)) {
			if s.terms[string(t.Term)] {
				out = append(out, span{t.Start, t.End, string(t.Term)})
			}
		}
		return out
	}
	var one [1]*analysis.Token
	for _, t := range s.tokenizer.Tokenize([]byte(text)) {
		w, ok := s.words[string(t.Term)]
		if !ok {
			word := string(t.Term)
			// The filters may change the term in place: give them a copy.
			tok := *t
			tok.Term = []byte(word)
			one[0] = &tok
			ts := analysis.TokenStream(one[:])
			for _, f := range s.filters {
				ts = f.Filter(ts)
			}
			if len(ts) > 1 {
				// Not a filter of one token at a time after all.
				s.tokenizer = nil
				return s.matches(text)
			}
			if len(ts) == 1 && s.terms[string(ts[0].Term)] {
				w = wordTerm{string(ts[0].Term), true}
			}
			s.words[word] = w
		}
		if w.match {
			out = append(out, span{t.Start, t.End, w.term})
		}
	}
	return out
}

// snippet returns about snippetBytes of text around the densest cluster of
// query terms, each matched word marked **like this**, on one line.
func snippet(a analysis.Analyzer, text string, terms map[string]bool) string {
	return newSnippeter(a, terms).snippet(text)
}

// snippet is the package's snippet with s's analyzer and terms.
func (s *snippeter) snippet(text string) string {
	scan := text
	if len(scan) > snippetScan {
		scan = scan[:snippetScan]
		for len(scan) > 0 && !utf8.RuneStart(text[len(scan)]) {
			scan = scan[:len(scan)-1]
		}
	}
	matches := s.matches(scan)
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
