package indexer

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/ctx-dev/ctx/internal/suggest"
	"github.com/ctx-dev/ctx/project"
)

// QuerySyntax describes the query language, for ctx search --help and the
// MCP search tool.
const QuerySyntax = `words match anywhere in a passage, stemmed ("installing" finds
"install"), best passages first; "an exact phrase" must appear word for
word; -word or -"a phrase" leaves out passages that have it; the
qualifiers package:ALIAS, path:PREFIX (a path inside the package, or
ALIAS/PATH as hits show it), tag:TAG and kind:KIND filter: a source kind
(git, dir, https) or a document kind (changelog, release, blog,
whatsnew, migration, deprecation); several of one qualifier match any of
them, different qualifiers must all hold. Anything else is a plain word; to search for a word that starts
with "-" or holds a ":", quote it ("-rf"). A query of exclusions alone
(-search.maxUniqueTimeseries), with no filter, has nothing to rank by:
its words are searched as written, and the answer says so.`

// parsedQuery is a query text split by the query syntax (QuerySyntax).
type parsedQuery struct {
	words    []string // plain words, in order (scored)
	apart    []int    // each i, in order, where words[i-1] and words[i] are not in a row: a phrase, an exclusion or a qualifier comes between
	phrases  []string // "exact phrases" (scored, and must appear)
	excluded []string // -word and -"phrase": passages with them are left out
	packages []string // package:ALIAS
	paths    []string // path:PREFIX
	tags     []string // tag:T (lower-cased, as tags are stored)
	kinds    []string // kind:K, a source kind (git, dir, https)
	docKinds []string // kind:K, a document kind (DocKinds)
	// exclPhrase says of each exclusion whether it is a phrase, so that
	// one with nothing else to search for is read as written (asWritten).
	exclPhrase []bool
	// asWritten says the query had exclusions and nothing else, no word,
	// no phrase, no filter: they were read as words (-word) and phrases
	// instead (queryOf, OnlyExclusions).
	asWritten bool
}

// positive is the scored text: the words and the phrases' words.
func (q parsedQuery) positive() string {
	return strings.Join(append(append([]string(nil), q.words...), q.phrases...), " ")
}

// parseQuery splits text into words, "phrases", -exclusions and the
// qualifiers package:, path:, tag: and kind:. It never fails: a quote that
// is not closed runs to the end, a qualifier with no value, an unknown
// qualifier and a lone "-" are plain words.
func parseQuery(text string) parsedQuery {
	var q parsedQuery
	gap := func() { // what is not a plain word parts the words around it
		if n := len(q.words); n > 0 && (len(q.apart) == 0 || q.apart[len(q.apart)-1] != n) {
			q.apart = append(q.apart, n)
		}
	}
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if unicode.IsSpace(r) {
			i += n
			continue
		}
		neg := false
		if r == '-' && i+1 < len(text) && (text[i+1] == '"' || startsWord(text[i+1:])) {
			neg = true
			i++
		}
		if text[i] == '"' {
			gap()
			end := strings.IndexByte(text[i+1:], '"')
			var phrase string
			if end < 0 {
				phrase, i = text[i+1:], len(text)
			} else {
				phrase, i = text[i+1:i+1+end], i+2+end
			}
			phrase = strings.Join(strings.Fields(phrase), " ")
			switch {
			case phrase == "":
			case neg:
				q.excluded, q.exclPhrase = append(q.excluded, phrase), append(q.exclPhrase, true)
			default:
				q.phrases = append(q.phrases, phrase)
			}
			continue
		}
		end := i
		for end < len(text) {
			r, n := utf8.DecodeRuneInString(text[end:])
			if unicode.IsSpace(r) {
				break
			}
			end += n
		}
		tok := text[i:end]
		i = end
		if neg {
			gap()
			q.excluded, q.exclPhrase = append(q.excluded, tok), append(q.exclPhrase, false)
			continue
		}
		if key, val, ok := strings.Cut(tok, ":"); ok && val != "" {
			switch strings.ToLower(key) {
			case "package":
				q.packages = append(q.packages, val)
				gap()
				continue
			case "path":
				q.paths = append(q.paths, pathPrefix(val))
				gap()
				continue
			case "tag":
				q.tags = append(q.tags, strings.ToLower(val))
				gap()
				continue
			case "kind":
				gap()
				if k := strings.ToLower(val); slices.Contains(DocKinds, k) {
					q.docKinds = append(q.docKinds, k)
				} else {
					q.kinds = append(q.kinds, k)
				}
				continue
			}
		}
		q.words = append(q.words, tok)
	}
	if n := len(q.apart); n > 0 && q.apart[n-1] == len(q.words) {
		q.apart = slices.Clip(q.apart[:n-1]) // nothing after it
		if n == 1 {
			q.apart = nil
		}
	}
	return q
}

// queryOf is q's text parsed (parseQuery), its exclusions read as written
// when they are all it has: no word, no phrase and no filter (its text's
// qualifiers or q's own). Left out of every passage, they would leave
// nothing to rank, every hit at score 0 (set 20's query 76, a flag pasted
// as the query: -search.maxUniqueTimeseries); so each -word is a word,
// each -"phrase" a phrase, and asWritten is set. With a filter, the
// exclusions still leave passages out of what it lists ("-wizard
// package:docs").
func queryOf(q Query) parsedQuery {
	pq := parseQuery(strings.TrimSpace(q.Text))
	if len(pq.excluded) == 0 || len(pq.words) > 0 || len(pq.phrases) > 0 || len(q.Filters()) > 0 {
		return pq
	}
	for i, x := range pq.excluded {
		if pq.exclPhrase[i] {
			pq.phrases = append(pq.phrases, x)
		} else {
			pq.words = append(pq.words, "-"+x)
		}
	}
	pq.excluded, pq.exclPhrase, pq.asWritten = nil, nil, true
	return pq
}

// OnlyExclusions reports whether q has exclusions (-word, -"phrase") and
// no word, phrase or filter, so that search reads them as written
// (queryOf); an answer then says so (OnlyExclusionsNote).
func OnlyExclusions(q Query) bool { return queryOf(q).asWritten }

// OnlyExclusionsNote is what an answer says of a query of exclusions alone
// (OnlyExclusions). The MCP tools' note and ctx search's share it.
const OnlyExclusionsNote = `the query has only words that start with "-", which leave out the passages that have them, and nothing to search for: they were searched for as written instead; to leave them out, add the words to search for (deploy -staging)`

// ErrUnknownKind is returned (wrapped) by CheckQuery and Search for a
// kind: qualifier whose value is neither a source kind nor a document kind.
var ErrUnknownKind = errors.New("no such kind")

// checkQualifiers refuses a qualifier of q whose values are a closed set
// given a value outside it: kind:. (package: is checked against the index,
// by Search; path: and tag: take any value.) The error names the values
// there are and those the typo may mean (suggest.For), so that a typo is
// not an empty answer.
func checkQualifiers(q parsedQuery) error {
	for _, k := range q.kinds {
		if slices.Contains(project.Kinds, k) {
			continue
		}
		var qualified []string
		for _, name := range slices.Concat(project.Kinds, DocKinds) {
			qualified = append(qualified, "kind:"+name)
		}
		quote := ""
		if !strings.Contains(k, `"`) {
			quote = `; to search for the text itself, put it in double quotes inside the query: "kind:` + k + `"`
		}
		return fmt.Errorf("%q: %w%s; kind: takes a source kind (%s) or a document kind (%s)%s",
			"kind:"+k, ErrUnknownKind, suggest.Hint("kind:"+k, qualified), strings.Join(project.Kinds, ", "), strings.Join(DocKinds, ", "), quote)
	}
	return nil
}

// Filters names the kinds of filter q has, its own and its text's
// qualifiers: "package", "kind", "tag", "path", in that order, each once;
// none for words alone. A note on an empty answer names them.
func (q Query) Filters() []string {
	pq := parseQuery(strings.TrimSpace(q.Text))
	var f []string
	for _, c := range []struct {
		name string
		n    int
	}{
		{"package", len(q.Packages) + len(pq.packages)},
		{"kind", len(q.Kinds) + len(pq.kinds) + len(pq.docKinds)},
		{"tag", len(q.Tags) + len(pq.tags)},
		{"path", len(q.Paths) + len(pq.paths)},
	} {
		if c.n > 0 {
			f = append(f, c.name)
		}
	}
	return f
}

// pathPrefix is a path filter's prefix (path:PREFIX, Query.Paths): a path
// inside the package, so a leading "/" is dropped.
func pathPrefix(s string) string { return strings.TrimPrefix(s, "/") }

// startsWord reports whether s starts with a letter or digit (so "-x" is
// an exclusion, and "--force" or "- " are plain words).
func startsWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// questionWords are the words of a question that say it is one ("how do I
// …", "what is …", "can I …") rather than what it is about. The
// interrogatives but "why" (a page that explains why says "why"), do,
// does, did, the personal pronouns a question is put in, and the modal
// verbs. Measured on bench/relevance's four sets (issue 27).
var questionWords = map[string]bool{
	"how": true, "what": true, "when": true, "where": true, "which": true, "who": true,
	"do": true, "does": true, "did": true,
	"i": true, "my": true, "me": true, "we": true, "you": true, "your": true,
	"can": true, "could": true, "should": true, "would": true,
}

// questionTerms returns the terms (analysed by text) of words that are
// question words (questionWords), when words also hold a content word:
// one that is neither a question word nor a stop word (stop, the analyzer
// that drops stop words, says). rescore scores these terms in the heading
// and title fields only; a query of question and stop words alone keeps
// them whole.
func questionTerms(text, stop analysis.Analyzer, words []string) map[string]bool {
	var qs map[string]bool
	content := false
	for _, w := range words {
		lw := strings.ToLower(strings.Trim(w, `"'?!.,;:()`))
		if !questionWords[lw] {
			content = content || len(stop.Analyze([]byte(w))) > 0
			continue
		}
		for _, t := range text.Analyze([]byte(w)) {
			if qs == nil {
				qs = map[string]bool{}
			}
			qs[string(t.Term)] = true
		}
	}
	if !content {
		return nil
	}
	return qs
}
