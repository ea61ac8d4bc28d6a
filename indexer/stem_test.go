package indexer

import (
	"maps"
	"slices"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
)

// stemSamples are terms for the stemmer's checks: inflections, short and
// long terms, letters outside ASCII, bytes that are not UTF-8.
var stemSamples = []string{
	"", "a", "is", "as", "the", "running", "runs", "ran", "caresses", "ponies", "ties",
	"caress", "cats", "feed", "agreed", "plastered", "bled", "motoring", "sing",
	"conflated", "troubled", "sized", "hopping", "tanned", "falling", "hissing",
	"fizzed", "failing", "filing", "happy", "sky", "relational", "conditional",
	"rational", "valenci", "hesitanci", "digitizer", "conformabli", "radicalli",
	"differentli", "vileli", "analogousli", "vietnamization", "predication",
	"operator", "feudalism", "decisiveness", "hopefulness", "callousness",
	"formaliti", "sensitiviti", "sensibiliti", "triplicate", "formative",
	"formalize", "electriciti", "electrical", "hopeful", "goodness", "revival",
	"allowance", "inference", "airliner", "gyroscopic", "adjustable",
	"defensible", "irritant", "replacement", "adjustment", "dependent",
	"adoption", "homologou", "communism", "activate", "angulariti",
	"homologous", "effective", "bowdlerize", "probate", "rate", "cease",
	"controll", "roll", "kubernetes", "kubectl", "configurations", "1.16.0",
	"v1.41", "x86_64", "fmt.errorf", "café", "cafés", "naïveté", "straße",
	"résumés", "ελληνικά", "日本語", "İstanbul", "ﬁle", "e\u0301clairs",
	"ab\xffcd", "\xff\xfe", "ing\xc3", "a\xe2\x82",
	strings.Repeat("internationalization", 3), "antidisestablishmentarianisms",
}

// TestStemFilterMatchesPorter: ctx's stemmer (stemFilter) gives what
// bleve's porter filter gives for every term, from its memo as well
// (each term stemmed twice), with no memo, and with a memo that is full.
func TestStemFilterMatchesPorter(t *testing.T) {
	t.Parallel()
	want := func(term string) string {
		ts := porter.NewPorterStemmer().Filter(analysis.TokenStream{{Term: []byte(term)}})
		return string(ts[0].Term)
	}
	filters := map[string]*stemFilter{
		"memo":    newStemFilter(stemMemoSize),
		"no memo": newStemFilter(0),
		"small":   newStemFilter(3),
	}
	bounds := map[string]int{"memo": stemMemoSize, "no memo": 0, "small": 4}
	for name, f := range filters {
		for round := range 2 {
			for _, term := range stemSamples {
				ts := f.Filter(analysis.TokenStream{{Term: []byte(term)}, {Term: []byte(term), KeyWord: true}})
				if got, w := string(ts[0].Term), want(term); got != w {
					t.Errorf("%s, round %d: %q stems to %q, want %q", name, round, term, got, w)
				}
				if string(ts[1].Term) != term {
					t.Errorf("%s: keyword %q stemmed to %q", name, term, ts[1].Term)
				}
			}
		}
		if n := f.memoSize(); n > bounds[name] {
			t.Errorf("%s: %d terms in the memo, at most %d", name, n, bounds[name])
		}
	}
	if n := filters["memo"].memoSize(); n == 0 {
		t.Error("the memo kept nothing")
	}
}

// TestStemMemoTermsNotShared: a term the memo gave a token may be
// written over in place (the snippeter reuses its token's buffer) without
// changing the memo.
func TestStemMemoTermsNotShared(t *testing.T) {
	t.Parallel()
	f := newStemFilter(stemMemoSize)
	for range 3 {
		ts := f.Filter(analysis.TokenStream{{Term: []byte("running")}})
		copy(ts[0].Term, "XYZ")
		ts[0].Term = append(ts[0].Term[:0], "abcdefgh"...)
	}
	ts := f.Filter(analysis.TokenStream{{Term: []byte("running")}})
	if string(ts[0].Term) != "run" {
		t.Fatalf("after writes over its terms, running stems to %q", ts[0].Term)
	}
}

// TestStemMemoAnalyzers: the analyzers with the memo make the same terms
// at the same positions as with bleve's porter filter, over this
// repository's design document (many words, many repeated), from several
// goroutines at once (scorch analyses documents in parallel).
func TestStemMemoAnalyzers(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/DESIGN.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b) + " " + strings.Join(stemSamples, " ")
	ref := referenceMapping(t)
	for _, name := range []string{textAnalyzer, keyTextAnalyzer} {
		want := ref.AnalyzerNamed(name).Analyze([]byte(text))
		a := newMapping().AnalyzerNamed(name)
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 2 {
					got := a.Analyze([]byte(text))
					if len(got) != len(want) {
						t.Errorf("%s: %d tokens, want %d", name, len(got), len(want))
						return
					}
					for i := range got {
						if string(got[i].Term) != string(want[i].Term) || got[i].Position != want[i].Position || got[i].Start != want[i].Start {
							t.Errorf("%s: token %d is %q@%d, want %q@%d", name, i, got[i].Term, got[i].Position, want[i].Term, want[i].Position)
							return
						}
					}
				}
			}()
		}
		wg.Wait()
	}
}

// referenceMapping has the analyzers of newMapping with bleve's porter
// filter in place of stemFilterName.
func referenceMapping(t *testing.T) mapping.IndexMapping {
	t.Helper()
	m := bleve.NewIndexMapping()
	mine := newMapping().(*mapping.IndexMappingImpl)
	for _, name := range []string{textAnalyzer, keyTextAnalyzer} {
		cfg := maps.Clone(mine.CustomAnalysis.Analyzers[name])
		var filters []any
		for _, f := range cfg["token_filters"].([]any) {
			if f == stemFilterName {
				f = porter.Name
			}
			filters = append(filters, f)
		}
		if !slices.Contains(filters, any(porter.Name)) {
			t.Fatalf("%s: no %s among %v", name, stemFilterName, cfg["token_filters"])
		}
		cfg["token_filters"] = filters
		if err := m.AddCustomAnalyzer(name, cfg); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// memoSize is the number of terms in the memo.
func (f *stemFilter) memoSize() int {
	n := 0
	for i := range f.slots {
		if f.slots[i].Load() != nil {
			n++
		}
	}
	return n
}
