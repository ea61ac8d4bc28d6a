package indexer

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	unitok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
)

// Bleve field names. "text" is what bleve searches: the document title and
// heading trail followed by the chunk's text. "head" is the title and the
// whole heading trail again, and "headlen" its token count (a keyword, read
// once per opening of the index from its dictionary: headLengths; it is a
// doc value too, which searches no longer read): BM25F (bm25f.go) scores
// the heading trail and the body (text minus head) as two fields. The
// others are keyword filters or stored for display.
const (
	fText    = "text"
	fHead    = "head"
	fHeadLen = "headlen" // tokens of head
	fPackage = "pkg"
	fPath    = "path"
	fTags    = "tags"
	fHeading = "heading"
	fLines   = "lines" // "start-end-prefixLen", stored only
	fDocKind = "dkind" // the document's kind (docKind), when it has one
	fTitle   = "title" // the document's title, with each chunk (BM25F's title field)
	fNav     = "nav"   // navTerm when the chunk is navigation (navChunk)
)

// chunkDoc is the bleve document of one chunk.
type chunkDoc struct {
	Text    string   `json:"text"`
	Head    string   `json:"head"`
	HeadLen string   `json:"headlen"`
	Pkg     string   `json:"pkg"`
	Path    string   `json:"path"`
	Tags    []string `json:"tags,omitempty"`
	Heading string   `json:"heading"`
	Lines   string   `json:"lines"`
	DocKind string   `json:"dkind,omitempty"`
	Title   string   `json:"title,omitempty"`
	Nav     string   `json:"nav,omitempty"`
}

// textAnalyzer analyses the searched fields and queries; keyTextAnalyzer
// is the same without stop words, for picking a query's candidates (every
// chunk has stop words).
const (
	textAnalyzer    = "ctx_en"
	keyTextAnalyzer = "ctx_en_key"
)

// stemFilterName is the analyzers' Porter stemmer: bleve's, with a memo
// (stemFilterType) of at most stemMemoSize terms in a build's mapping.
const stemFilterName = "ctx_stem"

func newMapping() mapping.IndexMapping { return mappingWith(stemMemoSize) }

// mappingWith is the index mapping, its stemmer keeping at most stemMemo
// terms (0: no memo).
func mappingWith(stemMemo int) mapping.IndexMapping {
	m := bleve.NewIndexMapping()
	if err := m.AddCustomTokenFilter(stemFilterName, map[string]any{"type": stemFilterType, "memo": stemMemo}); err != nil {
		panic(err)
	}
	// bleve's English analyzer (en.AnalyzerName), stop words kept, and
	// version numbers' shorter forms (versionForms).
	if err := m.AddCustomAnalyzer(textAnalyzer, map[string]any{
		"type":          custom.Name,
		"tokenizer":     unitok.Name,
		"token_filters": []any{en.PossessiveName, lowercase.Name, versionFilterName, stemFilterName},
	}); err != nil {
		panic(err)
	}
	if err := m.AddCustomAnalyzer(keyTextAnalyzer, map[string]any{
		"type":          custom.Name,
		"tokenizer":     unitok.Name,
		"token_filters": []any{en.PossessiveName, lowercase.Name, en.StopName, versionFilterName, stemFilterName},
	}); err != nil {
		panic(err)
	}
	m.ScoringModel = "bm25"
	m.DefaultAnalyzer = textAnalyzer
	m.StoreDynamic = false
	m.IndexDynamic = false
	m.DocValuesDynamic = false

	text := bleve.NewTextFieldMapping()
	text.Analyzer = textAnalyzer
	text.Store = true
	text.IncludeTermVectors = false
	text.IncludeInAll = false
	text.DocValues = false

	head := bleve.NewTextFieldMapping()
	head.Analyzer = textAnalyzer
	head.Store = false
	head.IncludeTermVectors = false
	head.IncludeInAll = false
	head.DocValues = false

	kw := func(store bool) *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.Store = store
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		f.DocValues = false
		f.SkipFreqNorm = true
		return f
	}
	headLen := kw(false)
	headLen.DocValues = true
	stored := func() *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = keyword.Name
		f.Index = false
		f.Store = true
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		f.DocValues = false
		return f
	}

	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(fText, text)
	doc.AddFieldMappingsAt(fHead, head)
	doc.AddFieldMappingsAt(fTitle, head)
	doc.AddFieldMappingsAt(fHeadLen, headLen)
	doc.AddFieldMappingsAt(fPackage, kw(true))
	doc.AddFieldMappingsAt(fPath, kw(true))
	doc.AddFieldMappingsAt(fTags, kw(true))
	doc.AddFieldMappingsAt(fDocKind, kw(false))
	doc.AddFieldMappingsAt(fNav, kw(false))
	doc.AddFieldMappingsAt(fHeading, stored())
	doc.AddFieldMappingsAt(fLines, stored())
	m.DefaultMapping = doc
	return m
}

// fieldLength estimates the number of tokens textAnalyzer makes of text
// (its BM25 document length): runs of letters and digits, joined over one
// '.', '\” or '’' between two of them as Unicode word segmentation does.
// Running the analyzer itself a second time
// would cost a quarter of a full build; on the shared corpus this count is
// within a few percent of it, and only the average over all chunks is used.
func fieldLength(text string) int64 {
	var n int64
	in := false // in a word
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		} else if c := wsClass[r]; c == wsLetter || c == wsDigit {
			// ASCII letters and digits, most of a text, without a call.
			in = true
			i++
			continue
		}
		switch {
		case isWordRune(r):
			in = true
		case in && (r == '.' || r == '\'' || r == '’') && i+size < len(text):
			if r2, _ := utf8.DecodeRuneInString(text[i+size:]); !isWordRune(r2) {
				in = false
				n++
			}
		case in:
			in = false
			n++
		}
		i += size
	}
	if in {
		n++
	}
	return n
}

// isWordRune reports whether r is a letter or a digit (fieldLength).
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r|0x20 && r|0x20 <= 'z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// chunkID names chunk i of a file in the bleve index.
func chunkID(alias, path string, i int) string {
	return alias + "\x00" + path + "\x00" + strconv.Itoa(i)
}

// searchText is what bleve searches for a chunk: the document title (when
// the heading trail does not start with it), the heading trail (minus the
// headings that are lines of the text), the parts of compound words (see
// compoundParts), words written with a mnemonic (see mnemonicWords), then
// the text. prefixLen is where the text starts:
// snippets are cut from the text only. head is the title (as above) and the
// whole heading trail, one per line: BM25F's heading field. Every word of
// head is also in text (the trail's last headings as lines of the chunk),
// so text minus head is the body.
func searchText(title string, c chunk, extra string) (text, head string, prefixLen int) {
	var h strings.Builder
	if title != "" && (len(c.Trail) == 0 || c.Trail[0] != title) {
		h.WriteString(title)
		h.WriteByte('\n')
	}
	for _, t := range c.Trail {
		h.WriteString(t)
		h.WriteByte('\n')
	}
	var b strings.Builder
	trail := c.Trail[:len(c.Trail)-min(c.headsInText, len(c.Trail))]
	if title != "" && (len(c.Trail) == 0 || c.Trail[0] != title) {
		b.WriteString(title)
		b.WriteByte('\n')
	}
	for _, t := range trail {
		b.WriteString(t)
		b.WriteByte('\n')
	}
	if extra != "" {
		b.WriteString(extra)
		b.WriteByte('\n')
	}
	body := c.body()
	if parts := compoundParts(body, 2000); parts != "" {
		b.WriteString(parts)
		b.WriteByte('\n')
	}
	if words := mnemonicWords(body, 2000); words != "" {
		b.WriteString(words)
		b.WriteByte('\n')
	}
	prefixLen = b.Len()
	b.WriteString(body)
	return b.String(), h.String(), prefixLen
}

func formatLines(start, end, prefix int) string {
	return fmt.Sprintf("%d-%d-%d", start, end, prefix)
}

func parseLines(s string) (start, end, prefix int) {
	parts := strings.SplitN(s, "-", 3)
	if len(parts) != 3 {
		return 0, 0, 0
	}
	start, _ = strconv.Atoi(parts[0])
	end, _ = strconv.Atoi(parts[1])
	prefix, _ = strconv.Atoi(parts[2])
	return start, end, prefix
}

// compoundParts returns the parts of the words of text that are joined by
// dots or underscores (tar.gz, fmt.Errorf, snake_case; not version numbers
// like 1.2.3, v1.2.3 or 1.2.x: versionWord), each once, space-separated,
// at most limit bytes. The English analyzer keeps such a word whole, so "tar" would not find "tar.gz" nor
// "Errorf" find "fmt.Errorf": the parts are indexed next to the chunk (not
// shown in snippets) and added to queries, so either form matches the other.
func compoundParts(text string, limit int) string {
	if strings.IndexByte(text, '.') < 0 && strings.IndexByte(text, '_') < 0 {
		return ""
	}
	var b strings.Builder
	var seen map[string]bool
	isWord := isWordRune // a letter or a digit
	i := 0
	for i < len(text) {
		// Find a maximal run word([._]word)+ starting at i.
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isWord(r) {
			i += n
			continue
		}
		start, j, seps := i, i, 0
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if isWord(r) {
				j += n
				continue
			}
			if (r == '.' || r == '_') && j+1 < len(text) {
				if r2, _ := utf8.DecodeRuneInString(text[j+1:]); isWord(r2) {
					j++
					seps++
					continue
				}
			}
			break
		}
		i = j
		if seps == 0 {
			continue
		}
		word := text[start:j]
		if seen == nil {
			seen = map[string]bool{}
		}
		if seen[word] {
			continue
		}
		seen[word] = true
		parts := strings.FieldsFunc(word, func(r rune) bool { return r == '.' || r == '_' })
		if !hasLetter(parts) || versionWord(word) {
			continue
		}
		for _, p := range parts {
			if b.Len()+len(p)+1 > limit {
				return b.String()
			}
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(p)
		}
	}
	return b.String()
}

// mnemonicWords returns, each once and space-separated (at most limit
// bytes), the words that text writes with a bracketed mnemonic, brackets
// removed: "E[x]tract" is "Extract", "[c]reate" is "create". Command-line
// docs (tldr pages among them) mark the letter of a flag that way, and the
// analyzer would see "e", "x" and "tract", so "extract" would not find the
// page. A bracketed run with no letters beside it ("[x]", "[ ]") is a
// checkbox or a reference, not a word.
//
// The words are the leftmost-first matches of `\pL*\[\pL{1,3}\]\pL*`, one
// after the other, found by a scan (the regexp was 8% of a full build);
// TestMnemonicWordsMatchesRegexp and FuzzMnemonicWords compare the two.
func mnemonicWords(text string, limit int) string {
	if strings.IndexByte(text, '[') < 0 {
		return ""
	}
	var b strings.Builder
	var seen map[string]bool
	// run is where the letters before i start (no earlier than the end of
	// the last match): a match starts there when text[i] opens one.
	run := 0
	for i := 0; i < len(text); {
		c := text[i]
		if c == '[' {
			open, end, ok := mnemonicBracket(text, i)
			if !ok {
				i++
				run = i
				continue
			}
			stop := end + 1
			for stop < len(text) {
				r, n := utf8.DecodeRuneInString(text[stop:])
				if !unicode.IsLetter(r) {
					break
				}
				stop += n
			}
			start := run
			i, run = stop, stop
			if start == open && end == stop-1 {
				continue // "[x]": nothing beside the brackets
			}
			w := text[start:open] + text[open+1:end] + text[end+1:stop]
			if seen[w] {
				continue
			}
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[w] = true
			if b.Len()+len(w)+1 > limit {
				break
			}
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(w)
			continue
		}
		if c < utf8.RuneSelf {
			i++
			if !('a' <= c|0x20 && c|0x20 <= 'z') {
				run = i
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		if !unicode.IsLetter(r) {
			run = i
		}
	}
	return b.String()
}

// mnemonicBracket reports whether text[open] ('[') starts one to three
// letters and a ']', and where that ']' is.
func mnemonicBracket(text string, open int) (int, int, bool) {
	j, letters := open+1, 0
	for j < len(text) && letters <= 3 {
		r, n := utf8.DecodeRuneInString(text[j:])
		if !unicode.IsLetter(r) {
			break
		}
		j += n
		letters++
	}
	if letters < 1 || letters > 3 || j >= len(text) || text[j] != ']' {
		return open, 0, false
	}
	return open, j, true
}

// versionWord reports whether a word joined by dots is a version number
// (1.2.3, v1.2, 1.2.x): not a compound of parts, but a number whose
// shorter forms the analyzers index (versionForms).
func versionWord(word string) bool {
	w := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(word, "v"), "V"), ".x"), ".X")
	if w == "" {
		return false
	}
	for _, r := range w {
		if r != '.' && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}

func hasLetter(parts []string) bool {
	for _, p := range parts {
		for _, r := range p {
			if unicode.IsLetter(r) {
				return true
			}
		}
	}
	return false
}
