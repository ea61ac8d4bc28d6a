package indexer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"strings"
	"sync"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"
)

var streamSamples = []string{
	"", " ", "a", "A", "The pod's lifecycle", "Kubernetes’ API and the users' docs", "v1.16.0 and 1.2.x, v2, 10.0.0.1",
	"fmt.Errorf tar.gz snake_case E[x]tract", "don't stop, e.g. this", "日本語のテキスト カタカナ 漢字", "ÉCOLE d'été Zürich’s STRASSE ǅ İ ı",
	"ȺȾ wider lower case Σ ΟΔΟΣ", "x\xffy \xfe\xff", "٣.١٤ arabic digits", "ﬁne ligature", "emoji 🙂👍🏽 flags 🇫🇷🇩🇪",
	"a\u0301b e\u200dx", "tab\tand\nnewline\r\n", "1,000.50 $3 4th", "http://example.com/a/b?c=d#e", "user@example.com",
	"ab’s", "’s", "'s", "s", "x’", "THE AND OF", "running runs ran", strings.Repeat("word ", 600),
}

// streamTexts are the texts the stream analysis is checked on: the
// samples, this repository's docs and the relevance corpus, whole and
// line by line.
func streamTexts(t *testing.T) []string {
	t.Helper()
	texts := append([]string{}, streamSamples...)
	files, _ := filepath.Glob("../docs/*.md")
	more, _ := filepath.Glob("testdata/relevance/*/*.md")
	files = append(append(files, more...), "../README.md", "../bench/README.md")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
		texts = append(texts, strings.Split(string(b), "\n")...)
	}
	if len(files) < 5 {
		t.Fatalf("only %d files", len(files))
	}
	return texts
}

// bleveAnalysis is what bleve makes of input: a.Analyze and TokenFrequency.
func bleveAnalysis(a analysis.Analyzer, input string, opts index.FieldIndexingOptions) (int, index.TokenFrequencies) {
	tokens := a.Analyze([]byte(input))
	return len(tokens), analysis.TokenFrequency(tokens, nil, opts)
}

// sameAnalysis reports how two analyses differ ("" when they do not).
func sameAnalysis(gotLen int, got index.TokenFrequencies, wantLen int, want index.TokenFrequencies) string {
	if gotLen != wantLen {
		return fmt.Sprintf("length %d != %d", gotLen, wantLen)
	}
	if len(got) != len(want) {
		return fmt.Sprintf("terms %d != %d", len(got), len(want))
	}
	for term, w := range want {
		g, ok := got[term]
		switch {
		case !ok:
			return "term " + term + " missing"
		case g.Frequency() != w.Frequency():
			return fmt.Sprintf("term %q: frequency %d != %d", term, g.Frequency(), w.Frequency())
		case !bytes.Equal(g.Term, w.Term) || string(g.Term) != term:
			return "term " + term + ": bytes " + string(g.Term) + " != " + string(w.Term)
		case len(g.Locations) != len(w.Locations):
			return "term " + term + ": locations"
		}
	}
	return ""
}

// TestStreamAnalysisEqualsBleve: streamAnalyze makes the terms, counts and
// length bleve's analysis makes, with both analyzers of the mapping.
func TestStreamAnalysisEqualsBleve(t *testing.T) {
	t.Parallel()
	m := newMapping()
	opts := index.IndexField | index.StoreField
	for _, name := range []string{textAnalyzer, keyTextAnalyzer} {
		a, ok := m.AnalyzerNamed(name).(*analysis.DefaultAnalyzer)
		if !ok {
			t.Fatalf("%s is not a DefaultAnalyzer", name)
		}
		for _, text := range streamTexts(t) {
			wl, w := bleveAnalysis(a, text, opts)
			gl, g := streamAnalyze(a, []byte(text), true)
			if d := sameAnalysis(gl, g, wl, w); d != "" {
				t.Fatalf("%s, %.80q: %s", name, text, d)
			}
		}
	}
}

func FuzzStreamAnalysis(f *testing.F) {
	for _, s := range streamSamples {
		f.Add(s)
	}
	m := newMapping()
	a := m.AnalyzerNamed(textAnalyzer).(*analysis.DefaultAnalyzer)
	k := m.AnalyzerNamed(keyTextAnalyzer).(*analysis.DefaultAnalyzer)
	f.Fuzz(func(t *testing.T, text string) {
		for _, an := range []*analysis.DefaultAnalyzer{a, k} {
			wl, w := bleveAnalysis(an, text, index.IndexField)
			gl, g := streamAnalyze(an, []byte(text), true)
			if d := sameAnalysis(gl, g, wl, w); d != "" {
				t.Fatalf("%q: %s", text, d)
			}
		}
	})
}

// TestMapChunkEqualsBatchIndex: the document mapChunk makes holds the
// fields Batch.Index's mapping makes, in the same order, with the same
// values and, analysed (as scorch does, several chunks at once), the same
// analysis; the title's analysis is shared by the chunks given one
// sharedTitle, and a stored field's value is left as it was.
func TestMapChunkEqualsBatchIndex(t *testing.T) {
	t.Parallel()
	m := newMapping()
	title := &sharedTitle{}

	var chunks []chunkDoc
	for i, text := range streamTexts(t)[:60] {
		chunks = append(chunks, chunkDoc{
			Text: text, Head: "Pod's Lifecycle\nv1.16.0 Notes\n" + text[:min(len(text), 30)], HeadLen: "7", Pkg: "k8s", Path: "a/b.md",
			Tags: []string{"x", "y"}, Heading: "Notes", Lines: formatLines(i, i+3, 10), DocKind: "guide", Title: "The PODS’ Lifecycle", Nav: "",
		})
	}
	var docs, refs []*document.Document
	for i := range chunks {
		ref := document.NewDocument(chunkID("k8s", "a/b.md", i))
		c := chunks[i]
		if err := m.MapDocument(ref, &c); err != nil {
			t.Fatal(err)
		}
		doc, err := mapChunk(m, chunkID("k8s", "a/b.md", i), &chunks[i], title)
		if err != nil {
			t.Fatal(err)
		}
		refs, docs = append(refs, ref), append(docs, doc)
	}
	// The values before analysis: the lower-case filter writes over an
	// unstored field's (bleve's own analysis as well).
	for i, doc := range docs {
		for j, f := range doc.Fields {
			r := refs[i].Fields[j]
			if f.Name() != r.Name() || !bytes.Equal(f.Value(), r.Value()) || f.Options() != r.Options() || f.EncodedFieldType() != r.EncodedFieldType() {
				t.Fatalf("chunk %d field %d: %s %q, want %s %q", i, j, f.Name(), f.Value(), r.Name(), r.Value())
			}
		}
	}
	var wg sync.WaitGroup
	for _, d := range append(append([]*document.Document{}, docs...), refs...) {
		wg.Go(func() {
			d.VisitFields(func(f index.Field) {
				if f.Options().IsIndexed() {
					f.Analyze()
				}
			})
		})
	}
	wg.Wait()
	streamed := 0
	for i, doc := range docs {
		ref := refs[i]
		if doc.ID() != ref.ID() || len(doc.Fields) != len(ref.Fields) || len(doc.CompositeFields) != len(ref.CompositeFields) {
			t.Fatalf("chunk %d: %d fields, %d composite; want %d, %d", i, len(doc.Fields), len(doc.CompositeFields), len(ref.Fields), len(ref.CompositeFields))
		}
		for j, f := range doc.Fields {
			r := ref.Fields[j]
			if _, ok := f.(*streamField); ok {
				streamed++
			}
			if !f.Options().IsIndexed() {
				continue
			}
			if d := sameAnalysis(f.AnalyzedLength(), f.AnalyzedTokenFrequencies(), r.AnalyzedLength(), r.AnalyzedTokenFrequencies()); d != "" {
				t.Fatalf("chunk %d field %s: %s", i, f.Name(), d)
			}
		}
		if got := string(doc.Fields[0].Value()); doc.Fields[0].Name() != fText || got != chunks[i].Text {
			t.Fatalf("chunk %d: the stored text became %.40q", i, got)
		}
	}
	if streamed != 3*len(docs) {
		t.Fatalf("%d fields streamed, want text, head and title of %d chunks", streamed, len(docs))
	}
	if title.freqs == nil || len(title.freqs) != 3 {
		t.Fatalf("the shared title's terms: %v", title.freqs)
	}
}

// TestStreamableOnlyTokenAtATime: a field's analyzer is run word by word
// only when each of its filters takes a token at a time: the mapping's
// text analyzer is, an analyzer with another filter (one that looks at
// its neighbours) is left to bleve.
func TestStreamableOnlyTokenAtATime(t *testing.T) {
	t.Parallel()
	m := newMapping()
	a := m.AnalyzerNamed(textAnalyzer).(*analysis.DefaultAnalyzer)
	f := document.NewTextFieldCustom(fText, nil, []byte("x"), index.IndexField, a)
	if _, ok := streamable(f); !ok {
		t.Fatal("the text analyzer is not streamed")
	}
	other := *a
	other.TokenFilters = append(append([]analysis.TokenFilter{}, a.TokenFilters...), neighbourFilter{})
	if _, ok := streamable(document.NewTextFieldCustom(fText, nil, []byte("x"), index.IndexField, &other)); ok {
		t.Fatal("an analyzer with a filter of neighbours is streamed")
	}
	if _, ok := streamable(document.NewTextFieldCustom(fText, nil, []byte("x"), index.IndexField|index.IncludeTermVectors, a)); ok {
		t.Fatal("a field with term vectors is streamed")
	}
}

// neighbourFilter joins each token with the next (a filter no stream
// analysis may run a word at a time).
type neighbourFilter struct{}

func (neighbourFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	for i := 0; i+1 < len(in); i++ {
		in[i].Term = append(append([]byte(nil), in[i].Term...), in[i+1].Term...)
	}
	return in
}
