package indexer

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/segment"

	"github.com/ctx-dev/ctx/indexer/markdown"
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
// one token into at most one, and the version filter a version number into
// its forms at the word's position (versionForms), looking at nothing but
// its term, so a word written the same way always gives the same terms:
// each distinct word is filtered once per search, and whether one of its
// terms is a query term remembered (most words of a text repeat). With
// bleve's unicode tokenizer (both analyzers), the words come straight from
// its segmenter (segment.SegmentWordsDirect: the same words at the same
// offsets, without a token allocated for each). An analyzer of another
// shape (char filters, a filter that makes two words of one, at two
// positions) is run whole.
type snippeter struct {
	a         analysis.Analyzer
	terms     map[string]bool
	tokenizer analysis.Tokenizer     // nil: run a.Analyze
	direct    bool                   // tokenizer is bleve's unicode tokenizer
	filters   []analysis.TokenFilter // a's, run on one token at a time
	words     map[string]int         // a word as written → its term's number + 1, or 0
	termIDs   map[string]int         // a term → its number
	seen      []int                  // per term number, for counting distinct terms

	segs  [][]byte // reused by segment.SegmentWordsDirect
	types []int
	spans []span
	marks [][2]int       // the window's matches, for markdown.Highlight
	tok   analysis.Token // reused by word
	one   analysis.TokenStream
}

func newSnippeter(a analysis.Analyzer, terms map[string]bool) *snippeter {
	s := &snippeter{a: a, terms: terms, termIDs: map[string]int{}}
	s.one = analysis.TokenStream{&s.tok}
	if d, ok := a.(*analysis.DefaultAnalyzer); ok && len(d.CharFilters) == 0 && d.Tokenizer != nil {
		s.tokenizer, s.filters = d.Tokenizer, d.TokenFilters
		_, s.direct = d.Tokenizer.(*unicode.UnicodeTokenizer)
		s.words = make(map[string]int, 1024)
	}
	return s
}

// span is one matched word of a text: its bytes and its term's number.
type span struct {
	start, end int
	term       int
}

// termID numbers the terms as they are first matched.
func (s *snippeter) termID(term string) int {
	id, ok := s.termIDs[term]
	if !ok {
		id = len(s.termIDs)
		s.termIDs[term] = id
	}
	return id
}

// matches returns the words of text that analyse to one of the terms, in
// order: what a.Analyze would give, kept when its term is one of them.
// text is not changed; the result is valid until the next call.
func (s *snippeter) matches(text []byte) []span {
	s.spans = s.spans[:0]
	if s.a == nil || len(s.terms) == 0 {
		return s.spans
	}
	if s.tokenizer == nil {
		for _, t := range s.a.Analyze(bytes.Clone(text)) {
			if s.terms[string(t.Term)] {
				s.spans = append(s.spans, span{t.Start, t.End, s.termID(string(t.Term))})
			}
		}
		return s.spans
	}
	if s.direct {
		if s.segment(text) {
			return s.spans
		}
		return s.matches(text) // with the tokenizer, or the analyzer whole
	}
	for _, t := range s.tokenizer.Tokenize(text) {
		if !s.word(t.Term, t.Start, t.End) {
			return s.matches(text)
		}
	}
	return s.spans
}

// segment adds the words of text that analyse to one of the terms to
// s.spans, cutting text into words as the unicode tokenizer does: with
// its segmenter, which returns the words of a run at once, called again
// where it stopped (the tokenizer calls it for each word), until it
// reports an error or returns nothing (where the tokenizer stops too). It
// returns false, and leaves s to segment with the tokenizer or run the
// analyzer whole, when the words do not add up to the text it consumed or
// a filter makes tokens of a word at more than one position.
func (s *snippeter) segment(text []byte) bool {
	for start := 0; start < len(text); {
		var adv int
		var err error
		s.segs, s.types, adv, err = segment.SegmentWordsDirect(text[start:], s.segs[:0], s.types[:0])
		end := start
		for i, seg := range s.segs {
			if s.types[i] != segment.None && !s.word(seg, end, end+len(seg)) {
				return false
			}
			end += len(seg)
		}
		if end != start+adv {
			s.direct = false
			s.spans = s.spans[:0]
			return false
		}
		if err != nil || adv == 0 {
			break
		}
		start = end
	}
	return true
}

// word adds the word text[start:end] to s.spans when it analyses to one of
// the terms. It returns false, and leaves s to run the analyzer whole, when
// a filter makes tokens of it at more than one position (a word's forms at
// its own position, versionForms, are one word).
func (s *snippeter) word(w []byte, start, end int) bool {
	id, ok := s.words[string(w)]
	if !ok {
		// The filters may change the term in place: give them a copy.
		s.tok = analysis.Token{Term: append(s.tok.Term[:0], w...), Start: start, End: end}
		ts := s.one[:1]
		for _, f := range s.filters {
			ts = f.Filter(ts)
		}
		for _, t := range ts {
			if t.Position != ts[0].Position {
				s.tokenizer, s.direct = nil, false
				s.spans = s.spans[:0]
				return false
			}
		}
		// Several terms at one position are the forms of one word
		// (versionForms): it matches when one of them is a query term.
		for _, t := range ts {
			if s.terms[string(t.Term)] {
				id = s.termID(string(t.Term)) + 1
				break
			}
		}
		s.words[string(w)] = id
	}
	if id > 0 {
		s.spans = append(s.spans, span{start, end, id - 1})
	}
	return true
}

// snippet is the package's snippet with s's analyzer and terms; text is
// not changed.
func (s *snippeter) snippet(text []byte) string {
	scan := text
	if len(scan) > snippetScan {
		scan = scan[:snippetScan]
		for len(scan) > 0 && !utf8.RuneStart(text[len(scan)]) {
			scan = scan[:len(scan)-1]
		}
	}
	matches := s.matches(scan)
	// Pick the window start (a match) that covers the most distinct terms.
	if n := len(s.termIDs); len(s.seen) < n {
		s.seen = make([]int, n)
	}
	clear(s.seen)
	best, bestDistinct, bestCount := -1, 0, 0
	for i := range matches {
		distinct, count := 0, 0
		for j := i; j < len(matches) && matches[j].end-matches[i].start <= snippetBytes; j++ {
			if s.seen[matches[j].term] != i+1 {
				s.seen[matches[j].term] = i + 1
				distinct++
			}
			count++
		}
		if distinct > bestDistinct || (distinct == bestDistinct && count > bestCount) {
			best, bestDistinct, bestCount = i, distinct, count
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
			if sp := bytes.IndexAny(text[from:matches[best].start], " \n\t"); sp >= 0 {
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
		if sp := bytes.LastIndexAny(text[from:to], " \n\t"); sp > snippetBytes/2 {
			to = from + sp
		}
		for to > from && !utf8.RuneStart(text[to]) {
			to--
		}
	}
	// Highlight reads the code spans from the start of from's line.
	line := bytes.LastIndexByte(text[:from], '\n') + 1
	s.marks = s.marks[:0]
	for _, m := range matches {
		if m.start >= from && m.end <= to {
			s.marks = append(s.marks, [2]int{m.start - line, m.end - line})
		}
	}
	out := strings.Join(strings.Fields(markdown.Highlight(string(text[line:to]), from-line, s.marks)), " ")
	if from > 0 {
		out = "… " + out
	}
	if to < len(text) {
		out += " …"
	}
	return out
}
