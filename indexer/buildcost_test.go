package indexer

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// fieldLengthRef is fieldLength as it was before its scan kept no word
// (2026-11-27): the reference the faster scan must equal.
func fieldLengthRef(text string) int64 {
	var n int64
	var word []byte
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	end := func() {
		if len(word) > 0 {
			n++
			word = word[:0]
		}
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case isWord(r):
			word = append(word, text[i:i+size]...)
		case len(word) > 0 && (r == '.' || r == '\'' || r == '’') && i+size < len(text):
			if r2, _ := utf8.DecodeRuneInString(text[i+size:]); isWord(r2) {
				word = append(word, text[i:i+size]...)
			} else {
				end()
			}
		default:
			end()
		}
		i += size
	}
	end()
	return n
}

var fieldLengthSamples = []string{
	"", "a", ".", "a.", ".a", "a.b", "a..b", "it's", "it’s", "it'", "1.16.0", "v1.2.x",
	"don't stop", "e.g. this", "x\xffy", "\xff", "a\xe2\x80", "a’\xff", "日本語 テキスト",
	"ÉCOLE d'été", "Zürich’s straße.", "end.", "tab\tand\nnewline", "İ ı ǅ",
	"under_score and-dash", "٣.١٤ arabic digits", "ﬁne ligature",
}

// TestFieldLengthUnchanged: fieldLength counts what fieldLengthRef
// counts (it sets BM25's average length: a different count moves ranks).
func TestFieldLengthUnchanged(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/DESIGN.md")
	if err != nil {
		t.Fatal(err)
	}
	texts := append(append([]string{}, fieldLengthSamples...), string(b), strings.Join(stemSamples, " "))
	texts = append(texts, strings.Split(string(b), "\n")...)
	for _, text := range texts {
		if got, want := fieldLength(text), fieldLengthRef(text); got != want {
			t.Errorf("fieldLength(%.60q) = %d, want %d", text, got, want)
		}
	}
}

func FuzzFieldLength(f *testing.F) {
	for _, s := range fieldLengthSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := fieldLength(text), fieldLengthRef(text); got != want {
			t.Errorf("fieldLength(%q) = %d, want %d", text, got, want)
		}
	})
}

var headSamples = []string{
	"", "\n", "Title\n", "Title\nInstall\nOn Linux\n", "Kubernetes' pods\nv1.16.0 notes\n",
	"a\r\nb\r\n", "a\n\u0301b\n", "x\n\u200db", "日本語\nテキスト\n", "it's\n's\n", "1.2\n.3\n",
	"Title\nTitle\nTitle\n", "\xff\n\xfe", "e\u0301\n\u0301",
}

// TestHeadCountUnchanged: headCount, line by line with a memo, counts
// what headTokens counts of the whole heading field.
func TestHeadCountUnchanged(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/DESIGN.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]int{}
	texts := append(append([]string{}, headSamples...), string(b))
	for _, s := range headSamples {
		texts = append(texts, s+string(b[:200])+s)
	}
	for _, text := range texts {
		if got, want := headCount(text, lines), headTokens(text); got != want {
			t.Errorf("headCount(%.60q) = %d, want %d", text, got, want)
		}
	}
}

func FuzzHeadCount(f *testing.F) {
	for _, s := range headSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := headCount(text, map[string]int{}), headTokens(text); got != want {
			t.Errorf("headCount(%q) = %d, want %d", text, got, want)
		}
	})
}

// TestInlineLinksPrefilter: inlineLinks finds what inlineLinkRE finds on
// every line of this repository's markdown.
func TestInlineLinksPrefilter(t *testing.T) {
	t.Parallel()
	lines := []string{"[a](b)", "![x](y)", "[a] (b)", "[[w]](u)", "](", "[a](<b c>)", "x [a](b \"t\") y [c](d)"}
	files, _ := filepath.Glob("../docs/*.md")
	for _, f := range append(files, "../README.md", "../bench/README.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(string(b), "\n")...)
	}
	found := 0
	for _, l := range lines {
		got, want := inlineLinks(l), inlineLinkRE().FindAllStringSubmatchIndex(l, -1)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("inlineLinks(%q) = %v, want %v", l, got, want)
		}
		found += len(got)
	}
	if found == 0 {
		t.Error("no link found")
	}
}

// TestIsWordRuneIsLetterOrDigit: isWordRune, which compoundParts and
// fieldLength take for "a letter or a digit", is unicode's, on every rune.
func TestIsWordRuneIsLetterOrDigit(t *testing.T) {
	t.Parallel()
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if got, want := isWordRune(r), unicode.IsLetter(r) || unicode.IsDigit(r); got != want {
			t.Fatalf("isWordRune(%U) = %v, want %v", r, got, want)
		}
	}
}
