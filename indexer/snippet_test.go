package indexer

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/character"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
)

func TestSnippet(t *testing.T) {
	t.Parallel()
	a := newMapping().AnalyzerNamed(en.AnalyzerName)
	if a == nil {
		t.Fatal("no English analyzer")
	}
	long := strings.Repeat("filler words that say nothing much at all. ", 20)
	tests := []struct {
		name, text, query string
		want              []string // substrings of the snippet
		not               []string
	}{
		{"stemmed match marked", "We are configuring the Deployments carefully.", "configure deployment",
			[]string{"**configuring**", "**Deployments**"}, nil},
		{"window moves to the matches", long + "The rollback command is deployctl rollback. " + long, "rollback command",
			[]string{"**rollback** **command**", "… "}, []string{"filler words that say nothing much at all. filler words that say nothing much at all. filler words that say nothing much at all. filler words that say nothing much at all. filler"}},
		{"no match: the start of the text", "Plain text here.\nSecond line.", "zebra",
			[]string{"Plain text here. Second line."}, []string{"**"}},
		{"stop words are not marked", "The cat and the hat.", "the cat",
			[]string{"**cat**"}, []string{"**The**", "**the**"}},
		{"utf-8 safe", strings.Repeat("é", 300) + " naïve café", "café",
			[]string{"**café**"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := snippet(a, tt.text, queryTerms(a, tt.query))
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("snippet %q lacks %q", got, w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(got, w) {
					t.Errorf("snippet %q contains %q", got, w)
				}
			}
			if len(got) > snippetBytes+40 {
				t.Errorf("snippet is %d bytes", len(got))
			}
			if strings.Contains(got, "\n") {
				t.Errorf("snippet has a newline: %q", got)
			}
			if !isValidUTF8(got) {
				t.Errorf("snippet is not valid UTF-8: %q", got)
			}
		})
	}
}

// match is a matched word: its bytes and its term.
type match struct {
	start, end int
	term       string
}

// analyzeMatches is what snippeter.matches must give: the whole
// analyzer's tokens whose term is one of terms.
func analyzeMatches(a analysis.Analyzer, text string, terms map[string]bool) []match {
	var out []match
	for _, t := range a.Analyze([]byte(text)) {
		if terms[string(t.Term)] {
			out = append(out, match{t.Start, t.End, string(t.Term)})
		}
	}
	return out
}

// snippeterMatches is s.matches with each span's term.
func snippeterMatches(s *snippeter, text string) []match {
	names := map[int]string{}
	b := []byte(text)
	spans := s.matches(b)
	for term, id := range s.termIDs {
		names[id] = term
	}
	var out []match
	for _, sp := range spans {
		out = append(out, match{sp.start, sp.end, names[sp.term]})
	}
	if string(b) != text {
		out = append(out, match{-1, -1, "the text was changed"})
	}
	return out
}

// TestSnippeterMatches checks that segmenting as the tokenizer does and
// filtering each distinct word once (remembering its term across the texts
// of one search) finds exactly the words the whole analyzer finds, for
// both analyzers a search uses.
func TestSnippeterMatches(t *testing.T) {
	t.Parallel()
	texts := []string{
		"We are configuring the Deployments carefully; the deployment's CONFIG configures configs.",
		"Kubernetes' pods and the pod’s containers: Pods, PODS, pod's, podʼs.",
		"The \u212Aelvin sign (\u212A), Σίσυφος ΣΊΣΥΦΟΣ, İstanbul, naïve café, straße STRASSE.",
		"tar.gz fmt.Errorf snake_case 1.2.3 E[x]tract don't won’t 3.14 U.S.A. e.g. a_b_c",
		"日本語のテキスト and 中文 mixed with English words running runs ran",
		"🇫🇷🇩🇪 flags 👍🏽 emoji\u200dzwj, tabs\tand\r\nCRLF lines\x00 and \xff bad bytes",
		"",
		"   \n\t ",
	}
	queries := []string{"configure deployment the", "pod container kubernetes", "kelvin sisyphus istanbul cafe strasse", "tar gz errorf extract don't", "run english 日本語", "flag emoji line byte", "zzz"}
	for _, name := range []string{textAnalyzer, en.AnalyzerName} {
		a := newMapping().AnalyzerNamed(name)
		if a == nil {
			t.Fatalf("no analyzer %s", name)
		}
		for _, q := range queries {
			terms := queryTerms(a, q)
			s := newSnippeter(a, terms)
			for _, round := range []int{1, 2} { // the second round uses the remembered words
				for _, text := range texts {
					got, want := snippeterMatches(s, text), analyzeMatches(a, text, terms)
					if !slices.Equal(got, want) {
						t.Errorf("%s, %q, round %d, %q: matches %v, the analyzer %v", name, q, round, text, got, want)
					}
				}
			}
			if !s.direct || s.tokenizer == nil {
				t.Errorf("%s: the snippeter does not segment and filter word by word", name)
			}
		}
	}
}

// twoTokens makes two tokens of each: the word, and the word with "2",
// at the next position (two words) or at the word's own (two forms of
// one word, as versionForms).
type twoTokens struct{ samePosition bool }

func (f twoTokens) Filter(in analysis.TokenStream) analysis.TokenStream {
	var out analysis.TokenStream
	for _, t := range in {
		t2 := *t
		t2.Term = append(append([]byte(nil), t.Term...), '2')
		if !f.samePosition {
			t2.Position++
		}
		out = append(out, t, &t2)
	}
	return out
}

// TestSnippeterOtherAnalyzers checks the ways around the fast path: a
// tokenizer other than the unicode one, and a filter that makes two tokens
// of one at two positions (found at the first word, after which the
// analyzer runs whole). Two forms at one position stay on the fast path.
func TestSnippeterOtherAnalyzers(t *testing.T) {
	t.Parallel()
	lower := lowercase.NewLowerCaseFilter()
	text := "Alpha beta, alpha2 BETA gamma-alpha"
	terms := map[string]bool{"alpha": true, "beta2": true}
	for name, a := range map[string]*analysis.DefaultAnalyzer{
		"character tokenizer": {Tokenizer: character.NewCharacterTokenizer(func(r rune) bool { return r != ' ' && r != ',' }), TokenFilters: []analysis.TokenFilter{lower}},
		"two tokens of one":   {Tokenizer: unicode.NewUnicodeTokenizer(), TokenFilters: []analysis.TokenFilter{lower, twoTokens{}}},
		"two forms of one":    {Tokenizer: unicode.NewUnicodeTokenizer(), TokenFilters: []analysis.TokenFilter{lower, twoTokens{samePosition: true}}},
	} {
		s := newSnippeter(a, terms)
		for round := 1; round <= 2; round++ {
			got, want := snippeterMatches(s, text), analyzeMatches(a, text, terms)
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("%s, round %d: matches %v, the analyzer %v", name, round, got, want)
			}
		}
		if s.direct != (name == "two forms of one") || (s.tokenizer == nil) != (name == "two tokens of one") {
			t.Errorf("%s: direct %v, tokenizer %v", name, s.direct, s.tokenizer)
		}
	}
}

func isValidUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestCompoundParts(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"extract a tar.gz archive":           "tar gz",
		"call fmt.Errorf, then fmt.Errorf":   "fmt Errorf",
		"snake_case_name and 1.2.3 and 1.2.": "snake case name",
		"end of sentence. Next one_":         "",
		"naïve.café":                         "naïve café",
		"no compounds here":                  "",
	}
	for in, want := range tests {
		if got := compoundParts(in, 1000); got != want {
			t.Errorf("compoundParts(%q) = %q, want %q", in, got, want)
		}
	}
	if got := compoundParts("a.b c.d e.f", 4); got != "a b" {
		t.Errorf("limit: %q", got)
	}
}

func TestMnemonicWords(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"- E[x]tract an archive: `tar xf x`":       "Extract",
		"[c]reate, [l]ist or [v]erbose; [c]reate":  "create list verbose",
		"- [x] done\n- [ ] todo, see [a] and [ab]": "",
		"a [link](https://x) and [text][ref]":      "",
		"Ex[tra]ct and m[ake] and [fooo]bar":       "Extract make",
		"no brackets at all":                       "",
	}
	for in, want := range tests {
		if got := mnemonicWords(in, 1000); got != want {
			t.Errorf("mnemonicWords(%q) = %q, want %q", in, got, want)
		}
	}
	if got := mnemonicWords("[a]b [c]d [e]f", 5); got != "ab cd" {
		t.Errorf("limit: %q", got)
	}
}

// mnemonicRE is what mnemonicWords's scan finds, as a regexp (the code
// before the scan): a word with one to three letters in brackets.
var mnemonicRE = regexp.MustCompile(`\pL*\[\pL{1,3}\]\pL*`)

// mnemonicWordsRE is mnemonicWords as it was written with mnemonicRE.
func mnemonicWordsRE(text string, limit int) string {
	if strings.IndexByte(text, '[') < 0 {
		return ""
	}
	var b strings.Builder
	seen := map[string]bool{}
	for _, m := range mnemonicRE.FindAllString(text, -1) {
		open, end := strings.IndexByte(m, '['), strings.IndexByte(m, ']')
		if open == 0 && end == len(m)-1 {
			continue
		}
		w := m[:open] + m[open+1:end] + m[end+1:]
		if seen[w] {
			continue
		}
		seen[w] = true
		if b.Len()+len(w)+1 > limit {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

// mnemonicTricky are inputs where a scan could part from the regexp:
// matches that touch, letters shared between two, brackets of 0 to 4
// letters, nested and unclosed brackets, non-ASCII letters and marks,
// invalid UTF-8, the limit.
var mnemonicTricky = []string{
	"a[b]c[d]e", "a[b]cd[e]f", "[a][b][c]", "x[a][b]y", "[[a]]", "[[ab]c]", "a[[b]]c",
	"[abcd]e", "e[abcd]", "a[]b", "a[ ]b", "a[1]b", "a[b1]c", "[a", "a]", "a[b", "]a[b]c[",
	"ÉE[é]tß", "日本[語]文", "ǅ[ǈ]ǋ", "a\u0301[b]c", "Ⅻ[Ⅻ]", "a[b\u0300]c", "\xff[a]b", "a[\xffb]c",
	"a[\xe4\xb8]b", "x\xe4[ab]c", "é[é]é[é]", "-[x]-", "A[b]C d[E]f A[b]C", "[x]y[x]y",
	"ab[c]d ab[c]d ab[cd]", "tar [x]f, [v]erbose [f]ile [z]ip [c]reate", "[a]b [c]d [e]f",
	"\x00[a]\x00b", "a\n[b]\nc", "a[b]\tc", "[ab]", "z[abc]", "[abc]z", "q[abcd]",
}

func TestMnemonicWordsMatchesRegexp(t *testing.T) {
	t.Parallel()
	for _, in := range mnemonicTricky {
		for _, limit := range []int{0, 1, 2, 3, 5, 8, 1000} {
			if got, want := mnemonicWords(in, limit), mnemonicWordsRE(in, limit); got != want {
				t.Errorf("mnemonicWords(%q, %d) = %q, the regexp gives %q", in, limit, got, want)
			}
		}
	}
	// Every string of up to five symbols from a small alphabet.
	alphabet := []string{"a", "[", "]", " ", "é", "1", "\xff"}
	var walk func(s string, n int)
	walk = func(s string, n int) {
		if got, want := mnemonicWords(s, 1000), mnemonicWordsRE(s, 1000); got != want {
			t.Fatalf("mnemonicWords(%q) = %q, the regexp gives %q", s, got, want)
		}
		if n == 0 {
			return
		}
		for _, a := range alphabet {
			walk(s+a, n-1)
		}
	}
	walk("", 6)
}

func FuzzMnemonicWords(f *testing.F) {
	for _, s := range mnemonicTricky {
		f.Add(s, 1000)
	}
	f.Add("[a]b [c]d [e]f", 5)
	f.Fuzz(func(t *testing.T, text string, limit int) {
		if got, want := mnemonicWords(text, limit), mnemonicWordsRE(text, limit); got != want {
			t.Errorf("mnemonicWords(%q, %d) = %q, the regexp gives %q", text, limit, got, want)
		}
	})
}

func FuzzSnippet(f *testing.F) {
	a := newMapping().AnalyzerNamed(en.AnalyzerName)
	f.Add("The rollback command is deployctl rollback.", "rollback")
	f.Add("naïve.café snake_case tar.gz", "tar café")
	f.Add("pod's \xff\x00 bad bytes", "pod byte")
	f.Fuzz(func(t *testing.T, text, query string) {
		terms := queryTerms(a, query+" "+compoundParts(query, 1000))
		// The words found are the analyzer's, invalid UTF-8 and all.
		if got, want := snippeterMatches(newSnippeter(a, terms), text), analyzeMatches(a, text, terms); !slices.Equal(got, want) {
			t.Errorf("matches %v, the analyzer %v", got, want)
		}
		if !isValidUTF8(text) {
			text = strings.ToValidUTF8(text, "\uFFFD")
		}
		s := snippet(a, text, terms)
		if !isValidUTF8(s) {
			t.Errorf("invalid UTF-8 snippet %q", s)
		}
		_ = compoundParts(text, 50)
	})
}

// snippet returns about snippetBytes of text around the densest cluster of
// query terms, each matched word marked **like this**, on one line.
func snippet(a analysis.Analyzer, text string, terms map[string]bool) string {
	return newSnippeter(a, terms).snippet([]byte(text))
}

// TestSnippetBoldIsOnlyAMatch (audit16, finding 8): in a snippet, `**`
// marks a match and nothing else. The document's own bold goes (a bold
// word that did not match looked matched, one that did came out as
// "****staging****"), so do a heading's opening #s, and a match inside a
// code span marks the whole span from outside its backquotes (inside,
// the marks render as text); emphasis inside a code span is code and stays.
func TestSnippetBoldIsOnlyAMatch(t *testing.T) {
	t.Parallel()
	a := newMapping().AnalyzerNamed("en")
	text := "2. The image is deployed to **staging** and the smoke tests run."
	if got := snippet(a, text, queryTerms(a, "image")); strings.Contains(got, "**staging**") {
		t.Errorf("query image: %q marks staging, which did not match", got)
	}
	if got := snippet(a, text, queryTerms(a, "staging")); got != "2. The image is deployed to **staging** and the smoke tests run." {
		t.Errorf("query staging: %q", got)
	}
	for _, tt := range []struct{ text, query, want string }{
		{"# Rolling back a bad deploy\n\nRun it.", "rollback deploy", "Rolling back a bad **deploy** Run it."},
		{"Intro.\n\n## After the rollback\n\nCheck __the__ graphs.", "rollback", "Intro. After the **rollback** Check __the__ graphs."},
		{"Run `deployctl rollback SERVICE` now, or `**kwargs` rollback.", "rollback", "Run **`deployctl rollback SERVICE`** now, or `**kwargs` **rollback**."},
		{"- **Operations lead** investigates; **Communications lead** updates.", "operations lead",
			"- **Operations** **lead** investigates; Communications **lead** updates."},
		// The window starts inside a code span: its backquotes pair from
		// the start of the line, so the span's closing one pairs with
		// nothing after it and the match is marked as text.
		{"Intro `" + strings.Repeat("filler ", 40) + "end` and then the rollback happens here `x`.", "rollback",
			"… filler filler filler filler end` and then the **rollback** happens here `x`."},
		// Adjacent matches make one mark.
		{"Read the 日本語 guide.", "日本語", "Read the **日本語** guide."},
	} {
		if got := snippet(a, tt.text, queryTerms(a, tt.query)); got != tt.want {
			t.Errorf("query %q in %q:\n got %q\nwant %q", tt.query, tt.text, got, tt.want)
		}
	}
}
