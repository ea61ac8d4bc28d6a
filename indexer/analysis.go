package indexer

import (
	"bytes"
	"hash/maphash"
	"sync"

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

// stemMemoSize bounds the stems a mapping's filter keeps: the first terms
// met, most of them a text's frequent words. Small, the memo stays in the
// processor's cache: analysing the shared corpus on one thread (three
// alternated rounds in one process) cost 17% less than bleve's porter
// filter with 4,096 terms, 13% with 1,024, and only 11% with 131,072
// (the look-ups missed the cache; in a build, where other work shares it,
// no gain at all: 8.8% of the build's CPU against Porter's 8.6%).
const stemMemoSize = 1 << 12

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

// stemShards is how many parts the memo is cut into, each with its own
// lock: scorch analyses documents on every core at once.
const stemShards = 16

// stemFilter is Porter's stemmer with a bounded memo (stemFilterType). It
// is safe for concurrent use.
type stemFilter struct {
	seed   maphash.Seed
	shards []stemShard // nil: no memo
}

type stemShard struct {
	mu   sync.RWMutex
	max  int
	memo map[string][]byte // term → its stem; nil when the stem is the term
	_    [64]byte          // a cache line of its own
}

// newStemFilter is a stemmer that keeps at most max terms (0: none).
func newStemFilter(max int) *stemFilter {
	f := &stemFilter{seed: maphash.MakeSeed()}
	if max > 0 {
		f.shards = make([]stemShard, stemShards)
		for i := range f.shards {
			f.shards[i] = stemShard{max: (max + stemShards - 1) / stemShards, memo: map[string][]byte{}}
		}
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
	if f.shards == nil || len(term) > stemMemoMaxLen {
		return porterStem(term)
	}
	sh := &f.shards[maphash.Bytes(f.seed, term)%stemShards]
	sh.mu.RLock()
	s, ok := sh.memo[string(term)]
	sh.mu.RUnlock()
	if ok {
		if s == nil {
			return term
		}
		// A copy: a token's term may be written over in place (the
		// snippeter reuses its buffer), the memo's never.
		return append([]byte(nil), s...)
	}
	s = porterStem(term)
	sh.mu.Lock()
	if len(sh.memo) < sh.max {
		if bytes.Equal(s, term) {
			sh.memo[string(term)] = nil
		} else {
			sh.memo[string(term)] = append([]byte(nil), s...)
		}
	}
	sh.mu.Unlock()
	return s
}

// porterStem is bleve's porter filter on one term (porter.PorterStemmer).
func porterStem(term []byte) []byte {
	return analysis.BuildTermFromRunes(porterstemmer.StemWithoutLowerCasing(bytes.Runes(term)))
}
