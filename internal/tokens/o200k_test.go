package tokens

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	"github.com/tiktoken-go/tokenizer"
)

// regexpPieces are text's pieces as the codec cuts them: o200kPattern's
// matches, with the regexp engine the codec uses (the same pattern gets
// the same generated matcher).
func regexpPieces(t testing.TB, text string) []string {
	re := regexp2.MustCompile(o200kPattern, regexp2.None)
	var out []string
	m, err := re.FindStringMatch(text)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		out = append(out, m.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func splitPieces(text string) []string {
	var out []string
	for i := 0; i < len(text); {
		j := o200kNext(text, i)
		if j == i && text[i] == del {
			i++
			continue
		}
		if j <= i || j > len(text) {
			panic("o200kNext did not advance")
		}
		out = append(out, text[i:j])
		i = j
	}
	return out
}

// trickyRunes are runes at the edges of o200kPattern's classes: letters
// of each case category, marks, numbers of each kind, white space of
// every kind (and look-alikes that are not), apostrophes and the letters
// of the contractions (ſ folds to s), slashes and line breaks.
var trickyRunes = []rune("aAzZsStTrReEvVmMlLdDſ'’ \t\n\r\v\f\u0085\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\u180e\u200b\u001c\u001f" +
	"\u007f/\\.,;:!?-_()[]{}<>\"`#*|~@$%^&+=0123456789²³½Ⅻ٣०" +
	"éÉßǅǈʰˆ中文ひらがなカタカナ한국어\u0301\u0308\u093f\u0e31ªº" + "ΣσςДдİıﬁ" + "😀🎉\U0001F3FB")

func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		if r.IntN(4) == 0 { // runs of one class are where backtracking happens
			c := trickyRunes[r.IntN(len(trickyRunes))]
			for range 1 + r.IntN(5) {
				b.WriteRune(c)
			}
			continue
		}
		b.WriteRune(trickyRunes[r.IntN(len(trickyRunes))])
	}
	return b.String()
}

// testTexts are the texts the split and the counter are checked on: edge
// cases, random texts of tricky runes, and the repository's markdown.
func testTexts(t testing.TB) []string {
	texts := []string{
		"", " ", "  ", "a", "a ", " a", "a  b", "a\n\nb", "a \n \n b", "  \n", "\n  ", "x\r\n\r\ny",
		"I'm you're we've he'll she'd it's don't DON'T I'M ſ'ſ 'ſ x'ſ", "hello'world", "'s", "''s'",
		"ABC", "ABCdef", "abcDEF", "HTTPServer", "iPhone", "ǅungla", "ʰʰʰ", "中文 中文字", "e\u0301\u0301", "\u0301a", "\u0301\u0301",
		"12345678", "\x7f", "a\x7fb", " \x7f\x7f ", "\x7f\n", "a1b22c333d4444", "²³½", " (foo)", " ((/\n//", "path/to/file.go", "//\n/", " ...\n\n", "--force", "x\u00a0\u00a0y",
		"tabs\t\tand\t\nbreaks", "\u2028\u2029x", "😀😀 🎉x", "**bold** _it_ `code`", "{\"json\":\"value\",\"n\":[1,2,3]}",
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		texts = append(texts, randomText(r, 1+r.IntN(40)))
	}
	_ = filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.Contains(p, "/.git/") {
			if b, err := os.ReadFile(p); err == nil && utf8.Valid(b) {
				texts = append(texts, string(b))
			}
		}
		return nil
	})
	return texts
}

// TestO200kSplit checks o200kNext against the codec's regexp.
func TestO200kSplit(t *testing.T) {
	for _, text := range testTexts(t) {
		if got, want := splitPieces(text), regexpPieces(t, text); !slices.Equal(got, want) {
			t.Fatalf("pieces of %q:\n got %q\nwant %q", text, got, want)
		}
	}
}

// FuzzO200kSplit checks o200kNext against the codec's regexp.
func FuzzO200kSplit(f *testing.F) {
	for _, s := range testTexts(f)[:200] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return
		}
		if got, want := splitPieces(text), regexpPieces(t, text); !slices.Equal(got, want) {
			t.Fatalf("pieces of %q:\n got %q\nwant %q", text, got, want)
		}
	})
}

// TestPieceCounterExact checks that a pieceCounter counts what the codec
// does, on fresh and remembered pieces, across its reset when full, and
// on text that is not valid UTF-8: a count it gets wrong could let an
// answer over its budget through.
func TestPieceCounterExact(t *testing.T) {
	codec := Codec()
	if codec == nil {
		t.Fatal("the o200k codec did not load")
	}
	texts := append(testTexts(t), "bad \xff\xfe utf-8 \xc3", "\xe2\x82", strings.Repeat("word ", 5000))
	var c pieceCounter
	for round := range 2 { // the second round reads remembered pieces
		for _, text := range texts {
			want, err := codec.Count(text)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.count(func() tokenizer.Codec { return codec }, text)
			if err != nil || got != want {
				t.Fatalf("round %d: count of %.200q = %d, %v; the codec counts %d", round, text, got, err, want)
			}
		}
	}
	if len(c.known) > maxPieces {
		t.Errorf("remembers %d pieces, over %d", len(c.known), maxPieces)
	}
}

// BenchmarkCount counts a text of the size of a search answer (22 KB of
// the design record) with the codec and with a warm pieceCounter.
func BenchmarkCount(b *testing.B) {
	data, err := os.ReadFile("../../docs/DESIGN.md")
	if err != nil {
		b.Skip(err)
	}
	text := strings.ToValidUTF8(string(data[:min(len(data), 22_000)]), "")
	codec := Codec()
	if codec == nil {
		b.Fatal("the o200k codec did not load")
	}
	b.Run("codec", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			codec.Count(text)
		}
	})
	b.Run("pieces", func(b *testing.B) {
		var c pieceCounter
		c.count(func() tokenizer.Codec { return codec }, text)
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			c.count(func() tokenizer.Codec { return codec }, text)
		}
	})
}

// TestCounter: Count is the codec's count, and a zero Counter is ready.
func TestCounter(t *testing.T) {
	t.Parallel()
	var c Counter
	for _, text := range []string{"", "hello world", "# INDEX\n\n- [a](a.md)\n", "bad \xff utf-8"} {
		want, err := Codec().Count(text)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Count(text); got != want {
			t.Errorf("Count(%q) = %d, the codec counts %d", text, got, want)
		}
	}
	if n := c.Count("hello world"); n != 2 {
		t.Errorf("Count(hello world) = %d, want 2", n)
	}
}

// TestSeedCountsWithoutTheCodec: a Counter seeded with the pieces an
// earlier counter returned counts text made of those pieces exactly, and
// without loading the codec; a piece it does not know loads it; entries
// that cannot be one piece's count are left out of the seed.
func TestSeedCountsWithoutTheCodec(t *testing.T) {
	codec := Codec()
	if codec == nil {
		t.Fatal("the o200k codec did not load")
	}
	load := func() tokenizer.Codec { return codec }
	before := "# Context index\n\n## docs\n\n- [Page 7](docs/part3/page007.md) — Some documentation text.\n"
	var first Counter
	if _, err := first.pieces.count(load, before); err != nil {
		t.Fatal(err)
	}
	pieces := first.Pieces()
	if len(pieces) == 0 {
		t.Fatal("Pieces returned nothing after a count")
	}

	var second Counter
	second.Seed(pieces)
	// The title changed, in words the first render had seen.
	after := "# Context index\n\n## docs\n\n- [Page 7](docs/part3/page007.md) — Some text documentation text.\n"
	want, err := codec.Count(after)
	if err != nil {
		t.Fatal(err)
	}
	loaded := false
	got, err := second.pieces.count(func() tokenizer.Codec { loaded = true; return codec }, after)
	if err != nil || got != want {
		t.Fatalf("seeded count = %d, %v; the codec counts %d", got, err, want)
	}
	if loaded {
		t.Error("the seeded counter loaded the codec for text made of seeded pieces")
	}
	if p := second.Pieces(); len(p) != len(pieces) {
		t.Errorf("Pieces after a seeded count: %d pieces, want the seed's %d (used or not)", len(p), len(pieces))
	}

	// A new word needs the codec; the count stays exact.
	novel := after + "- [Kubernetes rollout](k.md)\n"
	want, _ = codec.Count(novel)
	loaded = false
	got, err = second.pieces.count(func() tokenizer.Codec { loaded = true; return codec }, novel)
	if err != nil || got != want || !loaded {
		t.Fatalf("count with a new piece = %d, %v (codec loaded: %v); the codec counts %d", got, err, loaded, want)
	}
	// Without a codec, a new piece is an error (Count: the byte count).
	var third Counter
	third.Seed(pieces)
	if _, err := third.pieces.count(func() tokenizer.Codec { return nil }, novel); err == nil {
		t.Error("a piece neither known nor seeded was counted with no codec")
	}

	// Not one piece, a count no piece of its length has, not UTF-8: left out.
	var bad Counter
	bad.Seed(map[string]int{"hello world": 2, " world": 7, "x": 0, "\xff": 1, "": 1, " world\n": 2})
	if len(bad.pieces.seed) != 0 {
		t.Errorf("Seed kept %v", bad.pieces.seed)
	}
}

// TestOneToken: every piece oneToken counts as one token without the
// codec (each byte, each run of one to three digits) is one to the codec.
func TestOneToken(t *testing.T) {
	codec := Codec()
	if codec == nil {
		t.Fatal("the o200k codec did not load")
	}
	var pieces []string
	for b := range 127 { // not U+007F, never a piece (o200kNext)
		pieces = append(pieces, string(rune(b)))
	}
	for n := range 1000 {
		pieces = append(pieces, fmt.Sprint(n), fmt.Sprintf("%02d", n%100), fmt.Sprintf("%03d", n))
	}
	for _, p := range pieces {
		if !oneToken(p) {
			t.Fatalf("oneToken(%q) = false", p)
		}
		if n, err := codec.Count(p); err != nil || n != 1 {
			t.Fatalf("the codec counts %q as %d tokens (%v), oneToken as 1", p, n, err)
		}
	}
	for _, p := range []string{"1234", "ab", " 1", "é", "\x7f"} {
		if oneToken(p) {
			t.Errorf("oneToken(%q) = true", p)
		}
	}
}

// TestCodecIsO200kBase: Codec is the library's o200k_base codec (what
// tokenizer.Get(O200kBase) returns), named through its codec package so
// that no other vocabulary is linked; the other tests count against it.
func TestCodecIsO200kBase(t *testing.T) {
	c := Codec()
	if c == nil || c.GetName() != string(tokenizer.O200kBase) {
		t.Fatalf("Codec() = %v, want the %s codec", c, tokenizer.O200kBase)
	}
	// "hello world" is two o200k tokens, ids 24912 and 2375.
	if ids, _, err := c.Encode("hello world"); err != nil || !slices.Equal(ids, []uint{24912, 2375}) {
		t.Fatalf("Encode(hello world) = %v, %v", ids, err)
	}
}

// TestKnowsIsCountWithoutTheCodec: Knows(text) is true exactly when
// counting text would not call the codec (upd23: the indexer starts
// loading it early when a render will need it).
func TestKnowsIsCountWithoutTheCodec(t *testing.T) {
	codec := Codec()
	if codec == nil {
		t.Fatal("the o200k codec did not load")
	}
	var first Counter
	seen := "- `docs` `7816305` → `62aa2fc` (2026-11-28): 1 document, 2 sections changed: `part3/page303.md: Page, edition 230`\n"
	if _, err := first.pieces.count(func() tokenizer.Codec { return codec }, seen); err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"",
		seen,
		"123 4567 ! ?",                       // one token each by rule
		"`abcdef0` `cbcaf12` `0123456`",      // a short hash's letters
		"- `docs`: Page, edition 231\n",      // seeded words
		"- `docs`: Page, Kubernetes rollout", // a new word
		"zebra",
		"Page\x7fedition",
		"\xffPage", // not UTF-8: the codec counts it whole
	}
	for _, text := range texts {
		var c Counter
		c.Seed(first.Pieces())
		knows := c.Knows(text)
		called := false
		want, _ := codec.Count(text)
		got, err := c.pieces.count(func() tokenizer.Codec { called = true; return codec }, text)
		if err != nil || (got != want && utf8.ValidString(text)) {
			t.Fatalf("%q: count %d, %v; the codec counts %d", text, got, err, want)
		}
		if knows == called {
			t.Errorf("%q: Knows %v, yet the count called the codec: %v", text, knows, called)
		}
		if !c.Knows(text) && utf8.ValidString(text) {
			t.Errorf("%q: not known after it was counted", text)
		}
	}
}
