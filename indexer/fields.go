package indexer

import (
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/stop"
	unitok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/blevesearch/segment"
)

// A build's analysis without its token streams.
//
// bleve analyses a text field (document.TextField.Analyze) by cutting the
// whole text into a stream of tokens, running each filter over the whole
// stream, then counting the terms (analysis.TokenFrequency). On a full
// build the streams were 28% of the bytes allocated (a 64-byte token for
// every word, in blocks sized by a guess) and the counts' maps, sized to
// the number of tokens rather than of terms, another 8%: garbage the GC
// then had to collect. Every filter of the mapping's analyzers works on one
// token at a time (the possessive, lower case, version forms, Porter), so
// streamField runs them on each word as the segmenter finds it and counts
// the terms as they come: the same terms, counts and length as bleve's
// analysis (TestStreamAnalysisEqualsBleve and FuzzStreamAnalysis compare the
// two), with one token in hand. The document is still made by the mapping
// (MapDocument): only the text fields' Analyze is replaced, and a field
// whose analyzer is not of that form (or that keeps term vectors) is
// analysed by bleve as before.
//
// A document's title is the title field of each of its chunks: the chunks
// of one file share one analysis of it (sharedTitle), made by the first
// of them analysed.

// mapChunk makes the bleve document of one chunk, as Batch.Index would,
// with its text fields analysed by streamField. title, when not nil, is
// the analysis of the title field the chunks of the document share.
func mapChunk(m mapping.IndexMapping, id string, c *chunkDoc, title *sharedTitle) (*document.Document, error) {
	doc := document.NewDocument(id)
	if err := m.MapDocument(doc, c); err != nil {
		return nil, err
	}
	for i, f := range doc.Fields {
		tf, ok := f.(*document.TextField)
		if !ok {
			continue
		}
		a, ok := streamable(tf)
		if !ok {
			continue
		}
		sf := &streamField{TextField: tf, a: a}
		if tf.Name() == fTitle && title != nil {
			sf.shared = title
		}
		doc.Fields[i] = sf
	}
	return doc, nil
}

// streamable is the analyzer of f when streamField can analyse it: bleve's
// unicode tokenizer, no character filter, filters that take a token at a
// time (tokenAtATime), and no term vectors to keep.
func streamable(f *document.TextField) (*analysis.DefaultAnalyzer, bool) {
	if !f.Options().IsIndexed() || f.Options().IncludeTermVectors() {
		return nil, false
	}
	a, ok := f.Analyzer().(*analysis.DefaultAnalyzer)
	if !ok || len(a.CharFilters) > 0 {
		return nil, false
	}
	if _, ok := a.Tokenizer.(*unitok.UnicodeTokenizer); !ok {
		return nil, false
	}
	for _, f := range a.TokenFilters {
		if !tokenAtATime(f) {
			return nil, false
		}
	}
	return a, true
}

// tokenAtATime reports whether f makes of each token what it would make
// of it in any stream: the filters of the mapping's analyzers.
func tokenAtATime(f analysis.TokenFilter) bool {
	switch f.(type) {
	case *en.PossessiveFilter, *lowercase.LowerCaseFilter, *stop.StopTokensFilter, versionFilter, *stemFilter:
		return true
	}
	return false
}

// sharedTitle is the analysis of one document's title, made once for all
// its chunks.
type sharedTitle struct {
	once   sync.Once
	length int
	freqs  index.TokenFrequencies
}

// streamField is a text field analysed word by word (see above). Its
// analysis is read (AnalyzedLength, AnalyzedTokenFrequencies) only after
// Analyze returned, as scorch and zap do.
type streamField struct {
	*document.TextField
	a      *analysis.DefaultAnalyzer
	shared *sharedTitle // the title's analysis shared by a document's chunks, or nil
	length int
	freqs  index.TokenFrequencies
}

func (f *streamField) Analyze() {
	if f.shared != nil {
		f.shared.once.Do(func() { f.shared.length, f.shared.freqs = f.analyze() })
		f.length, f.freqs = f.shared.length, f.shared.freqs
		return
	}
	f.length, f.freqs = f.analyze()
}

func (f *streamField) AnalyzedLength() int { return f.length }

func (f *streamField) AnalyzedTokenFrequencies() index.TokenFrequencies { return f.freqs }

func (f *streamField) analyze() (int, index.TokenFrequencies) {
	input := f.Value()
	if f.Options().IsStored() {
		// As bleve does: the lower-case filter writes over the bytes of
		// its terms, and a stored field's bytes are stored.
		input = append([]byte(nil), input...)
	}
	return streamAnalyze(f.a, input, !f.Options().SkipFreqNorm())
}

// segmentBuf is the segmenter's output for one text, kept for the next.
type segmentBuf struct {
	vals  [][]byte
	types []int
}

var segmentBufs = sync.Pool{New: func() any { return &segmentBuf{} }}

// maxSegmentBuf is the most segments a kept segmentBuf holds: the buffers
// of a rare long text are left to the GC.
const maxSegmentBuf = 1 << 14

// streamAnalyze is a.Analyze(input) followed by analysis.TokenFrequency
// (without term vectors): the number of tokens and each term's count
// (when freq) and first bytes. a's tokenizer is bleve's unicode tokenizer
// (streamable), its filters each take a token at a time.
func streamAnalyze(a *analysis.DefaultAnalyzer, input []byte, freq bool) (int, index.TokenFrequencies) {
	sb := segmentBufs.Get().(*segmentBuf)
	vals, types := segmentWords(input, sb.vals[:0], sb.types[:0])
	// A text's distinct terms are fewer than its words: the map grows
	// from a quarter of them, the counts come in blocks.
	words := len(vals)
	freqs := make(index.TokenFrequencies, words/4+1)
	var block []index.TokenFreq
	var tok analysis.Token
	one := make(analysis.TokenStream, 1)
	length := 0
	for i, v := range vals {
		start := cap(input) - cap(v) // v is input[start:start+len(v)]
		tok = analysis.Token{Term: v, Start: start, End: start + len(v), Position: i + 1, Type: tokenType(types[i])}
		one[0] = &tok
		stream := one
		for _, tf := range a.TokenFilters {
			stream = tf.Filter(stream)
		}
		length += len(stream)
		for _, t := range stream {
			cur, ok := freqs[string(t.Term)]
			if !ok {
				if len(block) == cap(block) {
					block = make([]index.TokenFreq, 0, min(max(words/8, 8), 256))
				}
				block = append(block, index.TokenFreq{Term: t.Term})
				cur = &block[len(block)-1]
				freqs[string(t.Term)] = cur
			}
			if freq {
				cur.SetFrequency(cur.Frequency() + 1)
			}
		}
	}
	if cap(vals) <= maxSegmentBuf {
		clear(vals)
		sb.vals, sb.types = vals[:0], types[:0]
		segmentBufs.Put(sb)
	}
	return length, freqs
}

// tokenType is the token type bleve's unicode tokenizer gives a segment
// of the given type (its convertType).
func tokenType(t int) analysis.TokenType {
	switch t {
	case segment.Ideo, segment.Kana:
		return analysis.Ideographic
	case segment.Number:
		return analysis.Numeric
	}
	return analysis.AlphaNumeric
}
