package indexer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blevesearch/segment"
)

// libWords holds the library segmenter's word and type slices between
// calls: given nil, SegmentWordsDirect makes room for 1,000 words (32 KB
// made and zeroed) for every text, which was two thirds of
// TestSegmentWordsEqualsLibrary's CPU. It appends to what it is given, so
// the words are the same. One per goroutine.
type libWords struct {
	val   [][]byte
	types []int
}

// sameWords reports how segmentWords' words of text differ from those of
// the library's segmenter ("" when they do not): each word's place in the
// text, its bytes and its type.
func (b *libWords) sameWords(text string) string {
	data := []byte(text)
	lv, lt, _, _ := segment.SegmentWordsDirect(data, b.val[:0], b.types[:0])
	b.val, b.types = lv, lt
	var want []string
	for i, v := range lv {
		if lt[i] != segment.None {
			want = append(want, fmt.Sprintf("%d %q %d", cap(data)-cap(v), v, lt[i]))
		}
	}
	// Start from words already in hand, as a pooled buffer would.
	pre := [][]byte{[]byte("x")}
	gv, gt := segmentWords(data, pre, []int{segment.Letter})
	if len(gv) != len(gt) || len(gv) == 0 || string(gv[0]) != "x" {
		return "the words in hand were not kept"
	}
	var got []string
	for i, v := range gv[1:] {
		got = append(got, fmt.Sprintf("%d %q %d", cap(data)-cap(v), v, gt[i+1]))
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%d words %q, want %d %q", len(got), got, len(want), want)
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Sprintf("word %d: %s, want %s", i, got[i], want[i])
		}
	}
	return ""
}

// TestSegmentWordsEqualsLibrary: segmentWords finds the words the library
// finds, of the same types, on this repository's docs and the relevance
// corpus (whole and line by line), and on every text of up to four
// characters of an alphabet with a character of each class of the word
// rules, line ends and non-ASCII letters, marks and joiners among them.
func TestSegmentWordsEqualsLibrary(t *testing.T) {
	t.Parallel()
	texts := streamTexts(t)
	alphabet := []string{"a", "Z", "7", "_", ":", ".", "'", ",", ";", "\"", " ", "\n", "\r", "-", "é", "\u0301", "\u200d", "カ", "’"}
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			texts = append(texts, prefix+c)
			gen(prefix+c, n-1)
		}
	}
	gen("", 4)
	asciiOnly := 0
	var lib libWords
	for _, text := range texts {
		if d := lib.sameWords(text); d != "" {
			t.Fatalf("%.80q: %s", text, d)
		}
		if !strings.ContainsFunc(text, func(r rune) bool { return r >= 0x80 }) {
			asciiOnly++
		}
	}
	if asciiOnly < len(texts)/4 {
		t.Fatalf("only %d of %d texts are ASCII: the hand path is hardly tested", asciiOnly, len(texts))
	}
}

func FuzzSegmentWords(f *testing.F) {
	for _, s := range streamSamples {
		f.Add(s)
	}
	f.Add("a.b 1.2 a.1 1.a a:b 1:2 1,2 a,b a'b 1'2 _ __ 1_ _a a_.b a._b x1.2 1a:b e.g. 10.0.0.1 v1.16.x\r\nnext é.b")
	f.Add("a.b\na\u0301.c\n1,2\n\xff 3.4")
	var lib libWords
	f.Fuzz(func(t *testing.T, text string) {
		if d := lib.sameWords(text); d != "" {
			t.Fatalf("%q: %s", text, d)
		}
	})
}
