package indexer

import (
	"bytes"
	"hash/maphash"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/go-porterstemmer"
)

// versionFilterName is the token filter that gives a version number its
// shorter forms (versionForms). Both analyzers (textAnalyzer for the
// fields and the scored query, keyTextAnalyzer for the candidates) run it, so
// a page and a query make the same terms of the same version.
const versionFilterName = "ctx_version"

func init() {
	if err := registry.RegisterTokenFilter(versionFilterName, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return versionFilter{}, nil
	}); err != nil {
		panic(err)
	}
}

// versionFilter adds, after each token that is a version number, its
// shorter forms (versionForms) at the same position.
type versionFilter struct{}

func (versionFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	var out analysis.TokenStream
	for i, t := range input {
		forms := versionForms(t.Term)
		if len(forms) == 0 {
			if out != nil {
				out = append(out, t)
			}
			continue
		}
		if out == nil {
			out = make(analysis.TokenStream, i, len(input)+2*len(forms))
			copy(out, input[:i])
		}
		out = append(out, t)
		for _, f := range forms {
			out = append(out, &analysis.Token{Term: append([]byte(nil), f...), Start: t.Start, End: t.End, Position: t.Position, Type: t.Type})
		}
	}
	if out == nil {
		return input
	}
	return out
}

// versionForms returns the shorter forms of term when it is a version
// number of two or three parts, with or without a "v": the number without
// its "v", and its major.minor. "1.16.0" is also "1.16", "v1.16.0" also
// "1.16.0" and "1.16", "v1.41" also "1.41". The word segmenter keeps such
// a number whole, so without them a question about "1.16" would not find
// the release notes of "1.16.0" (while "1.16.x" is segmented as "1.16"
// and "x"). Four parts and more (an IP address) are left alone, and so is
// a number of one part ("v2").
func versionForms(term []byte) [][]byte {
	if len(term) < 3 {
		return nil
	}
	core := term
	if core[0] == 'v' {
		core = core[1:]
	}
	// dots[i] is where the (i+1)th dot of core is.
	var dots [2]int
	n, digits := 0, 0
	for i, c := range core {
		switch {
		case '0' <= c && c <= '9':
			digits++
		case c == '.' && digits > 0:
			if n == len(dots) {
				return nil
			}
			dots[n] = i
			n++
			digits = 0
		default:
			return nil
		}
	}
	if n == 0 || digits == 0 {
		return nil
	}
	var forms [][]byte
	if len(core) < len(term) {
		forms = append(forms, core)
	}
	if n == 2 {
		forms = append(forms, core[:dots[1]])
	}
	return forms
}

// stemFilterType is Porter's stemmer (bleve's porter filter) with a memo
// of the stems it made: the analyzers' last step. The stemmer was a
// twelfth of a full build, every token stemmed again though a corpus has
// few distinct words; a look-up in the memo costs a fraction of a stem.
// The memo belongs to the filter, and the filter to the mapping that
// defines it (bleve's registry makes one per mapping): a build's, or an
// open index's for its queries. It is bounded (the "memo" entry of its
// configuration, stemMemoSize in newMapping; 0 is no memo), and a memo
// only gives back what the stemmer gave for the same bytes.
const stemFilterType = "ctx_porter"

// stemMemoSize bounds the stems a mapping's filter keeps, in as many
// slots. Small, the memo stays in the processor's cache: 4,096 terms in
// sharded maps cost 17% less than bleve's porter filter on one thread,
// 131,072 only 11% (round 7). In slots (stemFilter), 16,384 missed 156,000
// of the shared corpus' 3.5 million words where the 4,096 maps missed
// 471,000, and the stemmer took 17-25% less CPU than with those maps in
// four of five alternated rounds on one thread, 2% in the fifth
// (bench/README.md, "The full build's CPU, round 9").
const stemMemoSize = 1 << 14

// stemMemoMaxLen is the longest term kept in the memo, in bytes: longer
// ones are rare and mostly unique (identifiers, hashes).
const stemMemoMaxLen = 40

func init() {
	if err := registry.RegisterTokenFilter(stemFilterType, func(config map[string]any, _ *registry.Cache) (analysis.TokenFilter, error) {
		n := 0
		switch v := config["memo"].(type) {
		case float64: // from the index's stored mapping (JSON)
			n = int(v)
		case int:
			n = v
		}
		return newStemFilter(n), nil
	}); err != nil {
		panic(err)
	}
}

// stemFilter is Porter's stemmer with a bounded memo (stemFilterType),
// safe for concurrent use. The memo is a table of slots, a term's slot
// chosen by its hash: a look-up hashes the term once and compares it with
// the one entry of its slot, with no lock (scorch analyses documents on
// every core at once) and no map (the sharded maps' look-ups, a hash for
// the shard and another for the map under a read lock, were half of the
// stemmer's CPU in a build). A term stemmed is put in its slot, in place
// of the term there: the words a text repeats win their slots back.
type stemFilter struct {
	seed  maphash.Seed
	slots []atomic.Pointer[stemEntry] // a power of two of them; nil: no memo
}

// stemEntry is a term and its stem, never written after it is made.
type stemEntry struct {
	term []byte
	stem []byte // nil when the stem is the term
}

// newStemFilter is a stemmer that keeps at most max terms (0: none), in
// max slots rounded up to a power of two.
func newStemFilter(max int) *stemFilter {
	f := &stemFilter{seed: maphash.MakeSeed()}
	if max > 0 {
		n := 1
		for n < max {
			n <<= 1
		}
		f.slots = make([]atomic.Pointer[stemEntry], n)
	}
	return f
}

func (f *stemFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, t := range input {
		if t.KeyWord {
			continue
		}
		t.Term = f.stem(t.Term)
	}
	return input
}

// stem is what bleve's porter filter makes of term.
func (f *stemFilter) stem(term []byte) []byte {
	if f.slots == nil || len(term) > stemMemoMaxLen {
		return porterStem(term)
	}
	slot := &f.slots[maphash.Bytes(f.seed, term)&uint64(len(f.slots)-1)]
	if e := slot.Load(); e != nil && bytes.Equal(e.term, term) {
		if e.stem == nil {
			return term
		}
		// A copy: a token's term may be written over in place (the
		// snippeter reuses its buffer), the memo's never.
		return append([]byte(nil), e.stem...)
	}
	s := porterStem(term)
	e := &stemEntry{term: append([]byte(nil), term...)}
	if !bytes.Equal(s, term) {
		e.stem = append([]byte(nil), s...)
	}
	slot.Store(e)
	return s
}

// porterStem is bleve's porter filter on one term (porter.PorterStemmer).
func porterStem(term []byte) []byte {
	return analysis.BuildTermFromRunes(porterstemmer.StemWithoutLowerCasing(bytes.Runes(term)))
}
