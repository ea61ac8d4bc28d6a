// Package tokens counts o200k tokens (GPT-4o's o200k_base), the one way
// ctx measures text against a token budget: INDEX.md's budget (indexer)
// and an MCP answer's (mcpserver). Counts are the codec's exactly.
package tokens

import (
	"errors"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
	"github.com/tiktoken-go/tokenizer/codec"
)

// Codec is the o200k_base codec, loaded on first use once per process (its
// vocabulary is compiled into the binary, nothing is downloaded; loading
// takes a moment, so a caller may start it early). It holds no state of a
// count. It is codec.NewO200kBase, which tokenizer.Get(O200kBase) returns:
// Get names all five encodings, so a binary calling it links the four
// vocabularies ctx never uses as well (about 5 MB of code).
var Codec = sync.OnceValue(func() tokenizer.Codec {
	return codec.NewO200kBase()
})

// Counter counts o200k tokens, remembering the counts of the pieces it
// has seen (pieceCounter). Its zero value is ready; it is safe for
// concurrent use. Keep one where its memory pays (a server, a render).
type Counter struct {
	pieces pieceCounter
}

// Count is the number of o200k tokens of text; when the codec cannot be
// loaded or fails, the number of bytes (never fewer tokens than bytes: a
// safe over-estimate). The codec is loaded only when text holds a piece
// the counter does not know (Seed).
func (c *Counter) Count(text string) int {
	n, err := c.pieces.count(Codec, text)
	if err != nil {
		return len(text)
	}
	return n
}

// Knows reports whether the counter counts text without the codec: every
// piece of it is one it has counted, a seeded one, or one it counts by
// rule (one token whatever it is, a short hash's letters); it is count
// with a codec that notes the call. The seeded pieces it meets are the
// counter's own from then on, as after a count. A caller that
// will count text later can start loading the codec early when it does
// not (indexer: INDEX.md's record of what an update changed).
func (c *Counter) Knows(text string) bool {
	// count's own rule: a count whose codec says whether it was asked for
	// (none is given, so nothing is counted by it).
	needs := false
	_, _ = c.pieces.count(func() tokenizer.Codec { needs = true; return nil }, text)
	return !needs
}

// Seed gives the counter the counts of pieces a counter of an earlier
// process returned from Pieces, so that text made of them is counted
// without loading the codec (INDEX.md's render keeps them in the index:
// an update that changes a title counts it from them). An entry that is
// not one piece of o200k's pre-tokenizer, or whose count no piece of its
// length can have, is left out: the codec counts that piece again. Call
// it before the counter's first Count.
func (c *Counter) Seed(pieces map[string]int) {
	seed := make(map[string]int, len(pieces))
	for p, n := range pieces {
		if len(seed) == maxSeedPieces {
			break
		}
		if p != "" && len(p) <= maxPieceLen && n >= 1 && n <= len(p) && utf8.ValidString(p) && o200kNext(p, 0) == len(p) {
			seed[p] = n
		}
	}
	c.pieces.mu.Lock()
	c.pieces.seed = seed
	c.pieces.mu.Unlock()
}

// Pieces returns the counts of the pieces the counter has counted or
// taken from its seed since it was made, then as many of the rest of its
// seed as fit in maxSeedPieces in all (a later render may need a piece
// this one took from the memo of a section: INDEX.md's words stay), for a
// later counter's Seed.
func (c *Counter) Pieces() map[string]int {
	c.pieces.mu.RLock()
	defer c.pieces.mu.RUnlock()
	out := make(map[string]int, min(len(c.pieces.known)+len(c.pieces.seed), maxSeedPieces))
	for p, n := range c.pieces.known {
		if len(out) == maxSeedPieces {
			return out
		}
		out[p] = n
	}
	for p, n := range c.pieces.seed {
		if len(out) == maxSeedPieces {
			break
		}
		out[p] = n
	}
	return out
}

// maxSeedPieces bounds what Pieces returns (and so what a Seed holds):
// INDEX.md's words, at about 20 bytes each in JSON.
const maxSeedPieces = 1 << 13

// Counting o200k tokens fast (issue 13). tiktoken-go counts about 12 MB/s,
// most of it (85%) in splitting the text with o200k's pre-tokenizer
// pattern (a backtracking regexp); byte-pair encoding then works on each
// piece alone, so a text's count is the sum of its pieces' counts. A
// pieceCounter splits with o200kNext, the pattern written out by hand, and
// remembers the count of each piece it has seen (a search answer repeats
// its snippets' words in its text and in its JSON, and answers repeat the
// corpus's words): a piece not seen yet is counted by the codec, once.
// Counts are the codec's exactly (TestPieceCounterExact, FuzzO200kSplit).

// o200kPattern is o200k_base's pre-tokenizer (tiktoken-go's
// codec.NewO200kBase), which o200kNext implements; the tests check them
// against each other.
const o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// pieceCounter counts o200k tokens, remembering up to maxPieces pieces'
// counts (all forgotten at once when full), of pieces up to maxPieceLen
// bytes (a document can hold long runs of letters, spaces or punctuation:
// each would be kept whole). Its zero value is ready.
type pieceCounter struct {
	mu    sync.RWMutex
	known map[string]int
	seed  map[string]int // counts from an earlier process (Counter.Seed); read only
}

// errNoCodec is count's error when it needs the codec and it cannot be
// loaded.
var errNoCodec = errors.New("tokens: the o200k codec cannot be loaded")

// maxPieces and maxPieceLen bound what a pieceCounter remembers: at most
// 32,768 pieces of at most 64 bytes, about 4 MB with the map's overhead.
const (
	maxPieces   = 1 << 15
	maxPieceLen = 64
)

// count is the o200k_base codec's count of text, codec() the codec
// (called only when a piece is neither known nor in the seed; nil when it
// cannot be loaded). A text that is not valid UTF-8 (which the codec's
// pattern reads as U+FFFD) is counted by the codec whole.
func (c *pieceCounter) count(codec func() tokenizer.Codec, text string) (int, error) {
	if !utf8.ValidString(text) {
		return codecCount(codec, text)
	}
	n := 0
	var missed, seeded []string
	c.mu.RLock()
	for i := 0; i < len(text); {
		j := o200kNext(text, i)
		if j == i { // U+007F: not counted
			i++
			continue
		}
		if k, ok := c.known[text[i:j]]; ok {
			n += k
		} else if oneToken(text[i:j]) {
			n++
		} else if h := hexIndex(text[i:j]); h >= 0 {
			n += int(hexCounts[h] - '0') // a short hash's letters (hex.go)
		} else if k, ok := c.seed[text[i:j]]; ok {
			n += k
			seeded = append(seeded, text[i:j])
		} else {
			missed = append(missed, text[i:j])
		}
		i = j
	}
	c.mu.RUnlock()
	if len(missed) == 0 && len(seeded) == 0 {
		return n, nil
	}
	counted := make([]int, len(missed))
	if len(missed) > 0 {
		cd := codec()
		if cd == nil {
			return 0, errNoCodec
		}
		for i, p := range missed {
			if o200kNext(p, 0) != len(p) {
				// The pattern cuts the piece alone otherwise (never seen):
				// the codec counts the text.
				return cd.Count(text)
			}
			k, err := cd.Count(p)
			if err != nil {
				return 0, err
			}
			counted[i] = k
			n += k
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.known)+len(missed)+len(seeded) > maxPieces {
		c.known = nil
	}
	if c.known == nil {
		c.known = make(map[string]int, 1024)
	}
	for i, p := range missed[:min(len(missed), maxPieces)] {
		if len(p) <= maxPieceLen {
			c.known[strings.Clone(p)] = counted[i] // not text's memory
		}
	}
	for _, p := range seeded[:min(len(seeded), maxPieces-len(c.known))] {
		c.known[strings.Clone(p)] = c.seed[p]
	}
	return n, nil
}

// oneToken reports whether piece is one o200k token whatever it is: one
// byte (every byte is a token), or one to three ASCII digits (the
// pre-tokenizer cuts numbers so, and each is a token of the vocabulary:
// TestOneToken checks all of them against the codec).
func oneToken(piece string) bool {
	if len(piece) == 1 {
		return piece[0] != del // never a piece: the codec skips it
	}
	if len(piece) > 3 {
		return false
	}
	for i := 0; i < len(piece); i++ {
		if piece[i] < '0' || piece[i] > '9' {
			return false
		}
	}
	return true
}

// codecCount is codec().Count(text), or errNoCodec.
func codecCount(codec func() tokenizer.Codec, text string) (int, error) {
	cd := codec()
	if cd == nil {
		return 0, errNoCodec
	}
	return cd.Count(text)
}

// o200kNext returns the end of the piece of text (valid UTF-8) that starts
// at byte i < len(text), as o200kPattern's leftmost match there: its
// alternatives are tried in order and the first that matches wins (the
// generated matcher makes the alternation atomic, and nothing follows it).
// Every position but one starts a match: U+007F, which the generated
// matcher leaves out of the classes that should hold it (its ASCII
// bitmaps), so the codec skips it; o200kNext returns i there.
func o200kNext(s string, i int) int {
	if e := letters(s, i, false); e > 0 {
		return e
	}
	if e := letters(s, i, true); e > 0 {
		return e
	}
	r, n := runeAt(s, i)
	if isN(r) { // \p{N}{1,3}
		e := i + n
		for k := 1; k < 3 && e < len(s); k++ {
			r, n := runeAt(s, e)
			if !isN(r) {
				break
			}
			e += n
		}
		return e
	}
	// ` ?[^\s\p{L}\p{N}]+[\r\n/]*` (the space and both loops atomic)
	j := i
	if s[j] == ' ' {
		j++
	}
	e := j
	for e < len(s) {
		r, n := runeAt(s, e)
		if unicode.IsSpace(r) || isL(r) || isN(r) || r == del {
			break
		}
		e += n
	}
	if e > j {
		for e < len(s) && (s[e] == '\r' || s[e] == '\n' || s[e] == '/') {
			e++
		}
		return e
	}
	// What is left starts with white space: its run is s[i:e].
	e, last, firstNL := i, i, -1
	for e < len(s) {
		r, n := runeAt(s, e)
		if !unicode.IsSpace(r) {
			break
		}
		if (r == '\r' || r == '\n') && firstNL < 0 {
			firstNL = e
		}
		last = e
		e += n
	}
	switch {
	case e == i:
		return i // U+007F: no match
	case firstNL >= 0:
		// `\s*[\r\n]+`: the regexp would give back white space up to
		// the run's last line break, but the codec's generated matcher
		// (regexp2cg) gives it back to the first: to there, and the
		// line breaks that follow it.
		k := firstNL
		for k < len(s) && (s[k] == '\r' || s[k] == '\n') {
			k++
		}
		return k
	case e == len(s):
		return e // `\s+(?!\S)`: all of it
	case last > i:
		return last // `\s+(?!\S)`: all but its last rune
	default:
		return e // `\s+`
	}
}

// letters matches, at i, the first alternative of o200kPattern (upper
// false: `P?U*L+C?`) or the second (upper true: `P?U+L*C?`), with
// P = [^\r\n\p{L}\p{N}], U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}],
// L = [\p{Ll}\p{Lm}\p{Lo}\p{M}] and C the contractions, backtracking as
// the regexp does: P taken first, then not. It returns the match's end,
// or 0 when the alternative does not match.
func letters(s string, i int, upper bool) int {
	r, n := runeAt(s, i)
	starts := [2]int{i + n, i} // P taken, then not
	if r == '\r' || r == '\n' || isL(r) || isN(r) || r == del {
		starts[0] = -1
	}
	for _, j := range starts {
		if j < 0 {
			continue
		}
		k := j // U's greedy run: s[j:k]
		for k < len(s) {
			r, n := runeAt(s, k)
			if !isUpper(r) {
				break
			}
			k += n
		}
		if upper {
			if k == j {
				continue
			}
			for k < len(s) {
				r, n := runeAt(s, k)
				if !isLower(r) {
					break
				}
				k += n
			}
			return contraction(s, k)
		}
		// L+ after U* giving back one rune at a time.
		for q := k; ; {
			e := q
			for e < len(s) {
				r, n := runeAt(s, e)
				if !isLower(r) {
					break
				}
				e += n
			}
			if e > q {
				return contraction(s, e)
			}
			if q == j {
				break
			}
			_, n := utf8.DecodeLastRuneInString(s[j:q])
			q -= n
		}
	}
	return 0
}

// contraction is the end of `(?i:'s|'t|'re|'ve|'m|'ll|'d)?` at i.
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return i
	}
	switch c := s[i+1] | 0x20; {
	case c == 's' || c == 't' || c == 'm' || c == 'd':
		return i + 2
	case (c == 'r' || c == 'v') && i+2 < len(s) && s[i+2]|0x20 == 'e':
		return i + 3
	case c == 'l' && i+2 < len(s) && s[i+2]|0x20 == 'l':
		return i + 3
	case strings.HasPrefix(s[i+1:], "ſ"): // U+017F folds to s
		return i + 1 + len("ſ")
	}
	return i
}

// del is U+007F, which the codec's matcher matches with no class.
const del = 0x7f

func isL(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r|0x20 && r|0x20 <= 'z'
	}
	return unicode.Is(unicode.L, r)
}

func isN(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.Is(unicode.N, r)
}

func isUpper(r rune) bool {
	if r < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z'
	}
	return isUpperRest(r)
}

func isUpperRest(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
}

func isLower(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z'
	}
	return isLowerRest(r)
}

func isLowerRest(r rune) bool {
	return unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M)
}

// runeAt is utf8.DecodeRuneInString(s[i:]), ASCII first.
func runeAt(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}
