package indexer

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	index "github.com/blevesearch/bleve_index_api"
)

// Ranking is textbook BM25F (Robertson & Zaragoza, "The Probabilistic
// Relevance Framework: BM25 and Beyond", 2009) over three fields of a
// chunk: its heading trail with the document title ("head"), its body (the
// rest of what bleve searches: text minus head) and the document's title
// again ("title", every chunk of the document has it; a title already in
// the head field counts in both, so the title weighs headWeight +
// titleWeight). For each query term t,
//
//	tf~(t) = Σ_f w_f · tf_f(t) / (1 − b + b · dl_f / avgdl_f)
//	score  = Σ_t q(t) · idf(t) · tf~(t) / (k1 + tf~(t))
//	idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
//
// where q(t), the term's weight in the query (flattenIDF), is 1 for a stop
// word and a question word and (idf(t) / m)^−idfFlatten for a content word,
// m the mean idf of the query's content words (issue 27's fourth round:
// with 0.3 no set of six lost MRR; a word rarer than the others, often
// one the answer does not use, no longer outweighs the rest),
// with w_f = 1 for the body, 3 for the head and 1 for the title (page-aware
// ranking, issue 27: the page whose title or heading is the question's
// subject comes before one that mentions it often; chosen on the 58, the
// held-out 60 and the Debian set, bench/relevance/README.md), k1 = 1.3
// (the textbook 1.2 until issue 27's third round: 1.3 moved a few ranks,
// more better than worse on the held-out 60, both Debian sets and the MDX
// set, none on the 58), b = 0.75, dl_f the field's token count in the
// chunk (from the index: bleve keeps the body's and the title's length in their postings, and
// the head's length as a doc value), avgdl_f the field's
// average over all chunks (meta.json), N the number of chunks and df(t)
// the number of chunks that hold t in either field. Each query term counts
// once, but for a question word ("how", "what", "do", "I", "can"…:
// questionTerms) of a query that has other words: it is scored in the head
// and title fields only (body weight 0), so "how do I" does not favour
// passages that say "how do I" while "How to write tests" still matches its
// title; and there only in a part of the heading that holds a content word
// of the query too (questionHead: the page's title, the trail below it),
// so "how do we deploy" does not favour a deploy page's "How to roll back"
// section over the page about deploying (issue 27, class A). Each chunk's
// sum is multiplied by 1 + titleCoverageBonus × titleCoverage, the share
// of the query's content words its page's title holds. A chunk of a changelog, release notes, a blog post, a "what's new"
// page or a migration guide (docKind) has its score multiplied by
// docKindPrior unless the query asks for such pages. Then each chunk gets
// pageShare of the best score of another chunk of its document among the
// candidates (pageScores): a page with several matching sections comes
// before one with a single one of about the same score. bleve's own BM25 is
// not this (it multiplies by a coordination
// factor, takes √tf, applies idf twice and rounds the average length up),
// so bleve only picks the candidates: its best rescoreCandidates chunks
// (a re-ranking of all of them measured the same, issue 15), which are
// scored again here.
const (
	bm25K1      = 1.3
	bm25B       = 0.75
	headWeight  = 3.0
	bodyWeight  = 1.0
	titleWeight = 1.0
	// titleCoverageBonus is how much more a chunk scores when its page's
	// title holds every content word of the query (titleCoverage; in
	// proportion when it holds some): chosen among 0.1, 0.2 and 0.3 on
	// the seven sets whose queries may be read, then checked once on
	// the blind ones (round 22, bench/README).
	titleCoverageBonus = 0.1
	// pageShare is the share of a document's next best chunk added to a
	// chunk's score (pageScores).
	pageShare = 0.05
	// idfFlatten is how far each content word's weight is pulled from its
	// idf towards the mean idf of the query's content words
	// (flattenIDF).
	idfFlatten = 0.3
	// rescoreCandidates is how many of bleve's best chunks are re-scored
	// (more when a search asks for many hits). With 50, recall@100 dropped.
	rescoreCandidates = 200
)

// bm25IDF is idf(t) for a term held by df of n chunks.
func bm25IDF(n, df float64) float64 {
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// fieldFreq is one field of a chunk for one term: the term's frequency,
// the field's length in the chunk and its average length.
type fieldFreq struct {
	tf, dl, avgdl, weight float64
}

// bm25fTerm is one term's share of a chunk's score.
func bm25fTerm(idf float64, fields ...fieldFreq) float64 {
	t := 0.0
	for _, f := range fields {
		if f.tf == 0 {
			continue
		}
		norm := 1 - bm25B
		if f.avgdl > 0 {
			norm += bm25B * f.dl / f.avgdl
		}
		t += f.weight * f.tf / norm
	}
	if t == 0 {
		return 0
	}
	return idf * t / (bm25K1 + t)
}

// fieldAnalyzer is textAnalyzer, for counting the heading field's tokens at
// index time (stateless: its stemmer keeps no memo).
var fieldAnalyzer = sync.OnceValue(func() analysis.Analyzer {
	return mappingWith(0).AnalyzerNamed(textAnalyzer)
})

// headTokens is the number of tokens textAnalyzer makes of head:
// the heading field's length in a chunk, exact (BM25F subtracts it from
// the searched field's length, which bleve records exactly).
func headTokens(head string) int {
	if head == "" {
		return 0
	}
	return len(fieldAnalyzer().Analyze([]byte(head)))
}

// headCount is headTokens(head), counted line by line: the analyzer's
// words never span a line break (Unicode word segmentation breaks around
// one), so head's tokens are its lines' tokens. lines holds the counts of
// the lines met so far: the chunks of one document repeat their title and
// first headings (processFile keeps one map a document). Text that is not
// UTF-8 is counted whole: the segmenter stops at its first bad byte.
func headCount(head string, lines map[string]int) int {
	if !utf8.ValidString(head) {
		return headTokens(head)
	}
	n := 0
	for line := range strings.SplitSeq(head, "\n") {
		if line == "" {
			continue
		}
		c, ok := lines[line]
		if !ok {
			c = headTokens(line)
			lines[line] = c
		}
		n += c
	}
	return n
}

// corpusStats are the collection statistics BM25F needs.
type corpusStats struct {
	n                          float64 // chunks
	avgBody, avgHead, avgTitle float64 // average field lengths in tokens
}

func newCorpusStats(chunks uint64, tokens, headTokens, titleTokens int64) corpusStats {
	if chunks == 0 {
		return corpusStats{}
	}
	n := float64(chunks)
	return corpusStats{n: n, avgBody: float64(max(tokens-headTokens, 0)) / n, avgHead: float64(headTokens) / n, avgTitle: float64(titleTokens) / n}
}

// candidate is one chunk bleve found, scored again by rescore.
type candidate struct {
	id    index.IndexInternalID
	ext   string // bleve document id (chunkID)
	score float64
}

// snapshotCache holds what the searches of one snapshot of the index
// (one opening: a read-only index keeps one snapshot) read once instead
// of on every search:
//
//   - every chunk's heading length (fHeadLen), from the field's
//     dictionary: a few dozen distinct lengths, each with its list of
//     chunks (about three searches' worth of reading the doc values of
//     the candidates);
//   - the postings of frequent terms (held by at least 1/frequentShare of
//     the chunks: stop words and the like), whole, in both fields: for
//     such a term, advancing to a search's candidates decodes most of its
//     postings anyway. At most cacheBytes of them.
//
// Each is read at its second use in the snapshot: the first search reads
// doc values and advances through postings as without a cache, so an
// opening that serves one search (after an idle pause, readerIdleClose)
// costs what it did. The numbers are the index's own, so a search scores
// the same with the cache as without.
type snapshotCache struct {
	mu       sync.Mutex
	rdr      index.IndexReader // the snapshot the rest was read from
	searches int               // of the snapshot, by headLengths
	heads    []uint32          // heading length by internal document number
	kinds    []bool            // whether the chunk's document has a kind (docKind), by internal document number
	kindsOK  bool              // kinds was read
	navs     []bool            // whether the chunk is navigation (navChunk), by internal document number
	navsOK   bool              // navs was read
	names    map[string]bool   // aliases asked about: whether each is a name (nameInIndex)
	aliases  []string          // the packages' aliases (packageAliases); nil: not read
	vers     *versionMap       // the pages' versioned copies (versionsOf)
	versOK   bool              // vers was read
	derived  int               // times vers was found in the snapshot, not read from versions.bin (tests)
	terms    map[string]*termPostings
	uses     map[string]int // frequent terms not kept yet: searches that had them
	bytes    int            // held by terms
	// cacheBytes bounds the postings held (cachedPostingsBytes; a test
	// sets 0 to compare with the uncached path).
	cacheBytes int
	// accum is the candidates' cache of the same opening: a term it holds
	// with its docs (accumPostings) is not read from the text postings
	// again; nil: always read.
	accum *accumCache
}

const (
	// frequentShare: a term held by at least 1/frequentShare of the
	// chunks has its postings kept by snapshotCache.
	frequentShare = 8
	// cachedPostingsBytes bounds the postings a snapshotCache keeps:
	// 12 bytes a posting in text, 8 in head and in title.
	cachedPostingsBytes = 16 << 20
	// keptPostingBytes bounds the bytes of a kept posting, in all three
	// fields.
	keptPostingBytes = 12 + 8 + 8
)

// termPostings is one term's postings, each field's in the order of the
// internal document numbers: in text, each chunk's frequency and text's
// length; in head, the frequency; in title, the frequency and title's
// length. Postings, not an entry for every chunk: kept at a term's first
// use, an entry for every chunk was 3.3 MB a term at ten times the
// corpus, and writing fresh memory (its page faults) most of the search
// that kept it.
type termPostings struct {
	df     uint64   // chunks that hold the term in text
	text   []uint32 // chunk numbers
	docs   []termDoc
	head   []uint32 // chunk numbers
	headTF []uint32
	title  []uint32 // chunk numbers
	titles []titleDoc
}

type termDoc struct{ text, dl uint32 }

type titleDoc struct{ title, tdl uint16 } // frequency and length

// bytes is what p holds.
func (p *termPostings) bytes() int {
	return 12*len(p.text) + 8*len(p.head) + 8*len(p.title)
}

// newSnapshotCache returns rescoring's cache of an opening whose
// candidates' cache is accum (or nil).
func newSnapshotCache(accum *accumCache) *snapshotCache {
	c := &snapshotCache{cacheBytes: cachedPostingsBytes, accum: accum}
	if accum != nil {
		accum.rescoring = c
	}
	return c
}

// room says whether c could keep the postings of term, in df chunks of
// rdr's snapshot, by what it holds now: not yet kept, and within its
// bound (a cache of another snapshot is emptied at its next use).
func (c *snapshotCache) room(rdr index.IndexReader, term string, df uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rdr != rdr {
		return int(df)*keptPostingBytes <= c.cacheBytes
	}
	return c.terms[term] == nil && c.bytes+int(df)*keptPostingBytes <= c.cacheBytes
}

// of makes c the cache of rdr's snapshot: emptied when it held another's.
// Call with c.mu held.
func (c *snapshotCache) of(rdr index.IndexReader) {
	if c.rdr == nil || c.rdr != rdr {
		c.rdr, c.searches, c.heads, c.terms, c.uses, c.bytes = rdr, 0, nil, nil, nil, 0
		c.kinds, c.kindsOK = nil, false
		c.navs, c.navsOK = nil, false
		c.names, c.aliases = nil, nil
		c.vers, c.versOK = nil, false
	}
}

// headLengths returns the heading lengths of rdr's snapshot by internal
// document number, read on the snapshot's second search; nil on its
// first. Each search calls it once.
func (c *snapshotCache) headLengths(ctx context.Context, rdr index.IndexReader) ([]uint32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.of(rdr)
	c.searches++
	if c.heads == nil && c.searches > 1 {
		heads, err := readHeadLengths(ctx, rdr)
		if err != nil {
			return nil, err
		}
		c.heads = heads
	}
	return c.heads, nil
}

// kindedChunks returns, by internal document number, whether each chunk of
// rdr's snapshot is of a document with a kind (docKind), read from the
// fDocKind postings on the snapshot's first call: those documents are
// few.
func (c *snapshotCache) kindedChunks(ctx context.Context, rdr index.IndexReader) ([]bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.of(rdr)
	if c.kindsOK {
		return c.kinds, nil
	}
	kinds, err := postingSet(ctx, rdr, fDocKind, DocKinds...)
	if err != nil {
		return nil, fmt.Errorf("indexer: read document kinds: %w", err)
	}
	c.kinds, c.kindsOK = kinds, true
	return kinds, nil
}

// navChunks returns, by internal document number, whether each chunk of
// rdr's snapshot is navigation (navChunk), read from the fNav postings on
// the snapshot's first call.
func (c *snapshotCache) navChunks(ctx context.Context, rdr index.IndexReader) ([]bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.of(rdr)
	if c.navsOK {
		return c.navs, nil
	}
	navs, err := postingSet(ctx, rdr, fNav, navTerm)
	if err != nil {
		return nil, fmt.Errorf("indexer: read navigation chunks: %w", err)
	}
	c.navs, c.navsOK = navs, true
	return navs, nil
}

// postingSet returns, by internal document number, whether each chunk's
// field has one of terms.
func postingSet(ctx context.Context, rdr index.IndexReader, field string, terms ...string) ([]bool, error) {
	var set []bool
	for _, t := range terms {
		err := eachPosting(ctx, rdr, t, field, func(id uint64) {
			set = grow(set, id)
			set[id] = true
		})
		if err != nil {
			return nil, err
		}
	}
	return set, nil
}

// readHeadLengths reads every chunk's fHeadLen from the field's
// dictionary and postings. A chunk with none (or a value that is not a
// number) has length 0.
func readHeadLengths(ctx context.Context, rdr index.IndexReader) ([]uint32, error) {
	lens := []uint32{}
	err := eachTerm(rdr, fHeadLen, func(term string) error {
		n, err := strconv.ParseUint(term, 10, 32)
		if err != nil || n == 0 {
			return nil
		}
		return eachPosting(ctx, rdr, term, fHeadLen, func(id uint64) {
			lens = grow(lens, id)
			lens[id] = uint32(n)
		})
	})
	if err != nil {
		return nil, fmt.Errorf("indexer: read heading lengths: %w", err)
	}
	return lens, nil
}

// eachTerm calls fn with every term of field's dictionary in rdr, until
// fn returns an error (then eachTerm returns it).
func eachTerm(rdr index.IndexReader, field string, fn func(term string) error) error {
	dict, err := rdr.FieldDict(field)
	if err != nil {
		return err
	}
	defer dict.Close()
	for {
		e, err := dict.Next()
		if err != nil || e == nil {
			return err
		}
		if err := fn(e.Term); err != nil {
			return err
		}
	}
}

// eachPosting calls fn with the id of every chunk whose field has term.
func eachPosting(ctx context.Context, rdr index.IndexReader, term, field string, fn func(id uint64)) error {
	r, err := rdr.TermFieldReader(ctx, []byte(term), field, false, false, false)
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = eachDoc(r, func(doc *index.TermFieldDoc) bool {
		fn(doc.ID.Value())
		return true
	})
	return err
}

// eachDoc calls fn with every posting r reads, until fn returns false
// (then eachDoc does too).
func eachDoc(r index.TermFieldReader, fn func(doc *index.TermFieldDoc) bool) (bool, error) {
	var d index.TermFieldDoc
	for {
		doc, err := r.Next(&d)
		if err != nil {
			return false, err
		}
		if doc == nil {
			return true, nil
		}
		if !fn(doc) {
			return false, nil
		}
	}
}

// normLength is the length of a posting's field from its norm (bleve
// stores 1/sqrt(length)); 0 when the posting has no norm.
func normLength(norm float64) float64 {
	if norm <= 0 {
		return 0
	}
	return math.Round(1 / (norm * norm))
}

// grow returns s long enough to hold index i.
func grow[T any](s []T, i uint64) []T {
	if i >= uint64(len(s)) {
		s = append(s, make([]T, i+1-uint64(len(s)))...)
	}
	return s
}

// cached returns term's postings in rdr's snapshot when c holds them.
func (c *snapshotCache) cached(rdr index.IndexReader, term string) *termPostings {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.of(rdr)
	return c.terms[term]
}

// keep reads text (term's text postings, unread, with frequencies and
// norms) and term's head postings whole and keeps them, when term is
// frequent in n chunks, was in an earlier search of the snapshot, and
// they fit. It returns nil, having read nothing from text, when not.
func (c *snapshotCache) keep(ctx context.Context, rdr index.IndexReader, term string, text index.TermFieldReader, n float64) (*termPostings, error) {
	df := text.Count()
	if float64(df)*frequentShare < n {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.of(rdr)
	if p := c.terms[term]; p != nil {
		return p, nil
	}
	if c.bytes+int(df)*keptPostingBytes > c.cacheBytes {
		return nil, nil
	}
	// At the snapshot's first search a term is not kept (an opening that
	// serves one search, the CLI's, pays nothing for it); after it, at
	// its first use (a server's second round of a query was as slow as
	// its first when kept at the second use).
	if c.searches <= 1 && c.uses[term] == 0 {
		if c.uses == nil {
			c.uses = map[string]int{}
		}
		c.uses[term]++ // frequent terms are few: at most frequentShare × the average chunk's tokens
		return nil, nil
	}
	delete(c.uses, term)
	p := &termPostings{df: df}
	// The candidates' cache read them in this search, with the same
	// snapshot (accumPostings): taken as they are, shared (neither cache
	// changes what it keeps).
	if a := c.accum.textPostings(rdr, term); a != nil && uint64(len(a.ids)) == df {
		p.text, p.docs = a.ids, a.docs
	} else {
		p.text, p.docs = make([]uint32, 0, df), make([]termDoc, 0, df)
		// A count or number that does not fit its slot (never so for a
		// chunk) keeps nothing.
		fits, err := eachDoc(text, func(doc *index.TermFieldDoc) bool {
			dl := normLength(doc.Norm)
			if doc.Freq > math.MaxUint32 || dl > math.MaxUint32 || doc.ID.Value() > math.MaxUint32 {
				return false
			}
			p.text = append(p.text, uint32(doc.ID.Value()))
			p.docs = append(p.docs, termDoc{text: uint32(doc.Freq), dl: uint32(dl)})
			return true
		})
		if err != nil {
			return nil, fmt.Errorf("indexer: read postings of %q: %w", term, err)
		}
		if !fits {
			return nil, nil
		}
	}
	head, err := rdr.TermFieldReader(ctx, []byte(term), fHead, true, false, false)
	if err != nil {
		return nil, fmt.Errorf("indexer: read postings of %q: %w", term, err)
	}
	defer head.Close()
	p.head, p.headTF = make([]uint32, 0, head.Count()), make([]uint32, 0, head.Count())
	fits, err := eachDoc(head, func(doc *index.TermFieldDoc) bool {
		if doc.Freq > math.MaxUint32 || doc.ID.Value() > math.MaxUint32 {
			return false
		}
		p.head = append(p.head, uint32(doc.ID.Value()))
		p.headTF = append(p.headTF, uint32(doc.Freq))
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("indexer: read postings of %q: %w", term, err)
	}
	if !fits {
		return nil, nil
	}
	title, err := rdr.TermFieldReader(ctx, []byte(term), fTitle, true, true, false)
	if err != nil {
		return nil, fmt.Errorf("indexer: read postings of %q: %w", term, err)
	}
	defer title.Close()
	p.title, p.titles = make([]uint32, 0, title.Count()), make([]titleDoc, 0, title.Count())
	fits, err = eachDoc(title, func(doc *index.TermFieldDoc) bool {
		dl := normLength(doc.Norm)
		if doc.Freq > math.MaxUint16 || dl > math.MaxUint16 || doc.ID.Value() > math.MaxUint32 {
			return false
		}
		p.title = append(p.title, uint32(doc.ID.Value()))
		p.titles = append(p.titles, titleDoc{title: uint16(doc.Freq), tdl: uint16(dl)})
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("indexer: read postings of %q: %w", term, err)
	}
	if !fits || c.bytes+p.bytes() > c.cacheBytes {
		return nil, nil
	}
	if c.terms == nil {
		c.terms = map[string]*termPostings{}
	}
	c.terms[term] = p
	c.bytes += p.bytes()
	return p, nil
}

// rescore sets the BM25F score of each candidate for terms (analysed, each
// once; those in headOnly scored in the head and title fields only; those
// in partOnly, only of compound words' parts, not counted by
// titleCoverage) from
// rdr's postings (through cache, the snapshot's), with the document kinds'
// prior when kindPrior, navigation chunks' prior (navPrior), the prior of
// the packages the query does not name (namedPackagePrior, when named is
// the alias of the one it names), the link
// prior (linkPrior: in-links and hub pages, in links by chunk key) and the page's share (pageScores), and sorts the
// candidates by it, best first (rankOrder: ties by chunk key).
// Candidates must be of rdr's snapshot.
func rescore(ctx context.Context, rdr index.IndexReader, terms []string, headOnly, stop, partOnly, joined map[string]bool, cands []*candidate, st corpusStats, cache *snapshotCache, kindPrior bool, links map[string]float64, named string) error {
	heads, err := cache.headLengths(ctx, rdr)
	if err != nil {
		return err
	}
	var kinded []bool
	if kindPrior {
		if kinded, err = cache.kindedChunks(ctx, rdr); err != nil {
			return err
		}
	}
	navs, err := cache.navChunks(ctx, rdr)
	if err != nil {
		return err
	}
	slices.SortFunc(cands, func(a, b *candidate) int { return bytes.Compare(a.id, b.id) })
	ft := newFreqTable(len(cands), len(terms))
	for j, t := range terms {
		ft.bodyless[j] = headOnly[t]
		ft.part[j] = partOnly[t]
		p := cache.cached(rdr, t)
		var text index.TermFieldReader
		if p == nil {
			if text, err = rdr.TermFieldReader(ctx, []byte(t), fText, true, true, false); err != nil {
				return fmt.Errorf("indexer: read postings of %q: %w", t, err)
			}
			if p, err = cache.keep(ctx, rdr, t, text, st.n); err != nil {
				text.Close()
				return err
			}
		}
		if p != nil {
			if text != nil {
				text.Close()
			}
			ft.fromCache(j, p, cands, st.n)
			continue
		}
		if err := ft.fromPostings(ctx, rdr, j, t, text, cands, st.n); err != nil {
			return err
		}
	}
	ft.flattenIDF(terms, headOnly, stop, joined)
	var dvr index.DocValueReader
	if heads == nil {
		if dvr, err = rdr.DocValueReader([]string{fHeadLen}); err != nil {
			return fmt.Errorf("indexer: read heading lengths: %w", err)
		}
	}
	for i, c := range cands {
		dlHead, err := headLength(dvr, heads, c)
		if err != nil {
			return err
		}
		c.score = ft.score(i, dlHead, st) * (1 + titleCoverageBonus*ft.titleCoverage(i))
		n := c.id.Value()
		if n < uint64(len(kinded)) && kinded[n] {
			c.score *= docKindPrior
		}
		if n < uint64(len(navs)) && navs[n] {
			c.score *= navPrior
		}
		if named != "" && !strings.HasPrefix(c.ext, named+"\x00") {
			c.score *= namedPackagePrior
		}
		if len(links) > 0 {
			k, _ := splitChunkID(c.ext)
			if f, ok := links[k]; ok {
				c.score *= f
			}
		}
	}
	pageScores(cands)
	slices.SortFunc(cands, func(a, b *candidate) int { return rankOrder(a.score, a.ext, b.score, b.ext) })
	return nil
}

// freqTable holds what rescore scores: each candidate's frequency of each
// term in each field, its text's and title's lengths, each term's IDF.
type freqTable struct {
	terms           int
	tf              []termFreqs // [candidate*terms + term]
	dlText, dlTitle []float64   // per candidate
	idf             []float64   // per term
	bodyless        []bool      // per term: scored in head and title only (a question word)
	content         []bool      // per term: neither a question word nor a stop word
	part            []bool      // per term: only of the parts of the query's compound words (compoundParts)
	weight          []float64   // per term: its share of the score (flattenIDF)
	pre             index.TermFieldDoc
}

type termFreqs struct{ text, head, title uint64 }

func newFreqTable(cands, terms int) *freqTable {
	return &freqTable{terms: terms, tf: make([]termFreqs, cands*terms),
		dlText: make([]float64, cands), dlTitle: make([]float64, cands), idf: make([]float64, terms), bodyless: make([]bool, terms), content: make([]bool, terms), part: make([]bool, terms), weight: make([]float64, terms)}
}

// flattenIDF sets each term's weight: 1 for a stop word (in stop) and a
// question word (in headOnly), and for each content word (the others)
// (idf / m)^−idfFlatten, m being the mean idf of the query's content
// words: a word rarer than the query's others counts less than its idf
// alone says, a commoner one more. A joined word (in joined:
// joinedWords) is weighed as a content word times joinWeight, but is not
// one: it does not count in m (a join the corpus does not hold has the
// largest idf), nor in what the title covers. Call once the idf of every
// term is set.
func (ft *freqTable) flattenIDF(terms []string, headOnly, stop, joined map[string]bool) {
	sum, n := 0.0, 0
	for j, t := range terms {
		ft.weight[j] = 1
		ft.content[j] = !headOnly[t] && !stop[t] && !joined[t]
		if joined[t] {
			ft.weight[j] = joinWeight
		}
		if ft.content[j] {
			sum += ft.idf[j]
			n++
		}
	}
	if n < 2 || sum <= 0 {
		return
	}
	mean := sum / float64(n)
	for j, t := range terms {
		if !headOnly[t] && !stop[t] {
			ft.weight[j] *= math.Pow(ft.idf[j]/mean, -idfFlatten)
		}
	}
}

// fromCache fills term j's column from the snapshot's cached postings;
// cands are in the order of their internal numbers.
func (ft *freqTable) fromCache(j int, p *termPostings, cands []*candidate, n float64) {
	ft.idf[j] = bm25IDF(n, float64(p.df))
	var t, h, k int // where cands are in p.text, p.head, p.title
	for i, c := range cands {
		id := c.id.Value()
		f := &ft.tf[i*ft.terms+j]
		if at, ok := postingAt(p.text, &t, id); ok {
			if d := p.docs[at]; d.text > 0 {
				f.text = uint64(d.text)
				if d.dl > 0 {
					ft.dlText[i] = float64(d.dl)
				}
			}
		}
		if at, ok := postingAt(p.head, &h, id); ok {
			f.head = uint64(p.headTF[at])
		}
		if at, ok := postingAt(p.title, &k, id); ok {
			if d := p.titles[at]; d.title > 0 {
				f.title = uint64(d.title)
				ft.dlTitle[i] = float64(d.tdl)
			}
		}
	}
}

// postingAt finds chunk id in ids (sorted) from *from on, ids being
// searched in increasing order: its index and true, or false; *from
// moves to where the next, larger, id is to be searched from.
func postingAt(ids []uint32, from *int, id uint64) (int, bool) {
	if id > math.MaxUint32 {
		*from = len(ids)
		return 0, false
	}
	at, ok := slices.BinarySearch(ids[*from:], uint32(id))
	at += *from
	*from = at
	return at, ok
}

// fromPostings fills term t's column (j) from rdr's postings of each field,
// text being the text field's reader (closed here).
func (ft *freqTable) fromPostings(ctx context.Context, rdr index.IndexReader, j int, t string, text index.TermFieldReader, cands []*candidate, n float64) error {
	for _, field := range [...]string{fText, fHead, fTitle} {
		r := text
		if field != fText {
			var err error
			if r, err = rdr.TermFieldReader(ctx, []byte(t), field, true, field == fTitle, false); err != nil {
				return fmt.Errorf("indexer: read postings of %q: %w", t, err)
			}
		} else {
			// Every word of head is in text: text's df is the number of
			// chunks that hold t in either field.
			ft.idf[j] = bm25IDF(n, float64(r.Count()))
		}
		err := ft.fromReader(r, field, j, cands)
		r.Close()
		if err != nil {
			return fmt.Errorf("indexer: read postings of %q: %w", t, err)
		}
	}
	return nil
}

// fromReader fills field's frequencies of term j from r.
func (ft *freqTable) fromReader(r index.TermFieldReader, field string, j int, cands []*candidate) error {
	if r.Count() == 0 {
		return nil
	}
	// Advance only forward: asked for an id at or before its position, a
	// scorch reader starts over.
	var d *index.TermFieldDoc
	for i, c := range cands {
		if d == nil || d.ID.Compare(c.id) < 0 {
			var err error
			if d, err = r.Advance(c.id, &ft.pre); err != nil {
				return err
			}
			if d == nil {
				return nil
			}
		}
		if !d.ID.Equals(c.id) {
			continue
		}
		f := &ft.tf[i*ft.terms+j]
		switch field {
		case fText:
			f.text = d.Freq
			if d.Norm > 0 {
				ft.dlText[i] = normLength(d.Norm)
			}
		case fHead:
			f.head = d.Freq
		default:
			f.title = d.Freq
			if d.Norm > 0 {
				ft.dlTitle[i] = normLength(d.Norm)
			}
		}
	}
	return nil
}

// headLength is candidate c's heading length: from the snapshot's cached
// lengths (heads), else from its doc value (dvr).
func headLength(dvr index.DocValueReader, heads []uint32, c *candidate) (float64, error) {
	dlHead := 0.0
	if dvr != nil {
		err := dvr.VisitDocValues(c.id, func(field string, term []byte) {
			if field == fHeadLen {
				if n, err := strconv.ParseUint(string(term), 10, 32); err == nil {
					dlHead = float64(n)
				}
			}
		})
		if err != nil {
			return 0, fmt.Errorf("indexer: read heading length: %w", err)
		}
	} else if n := c.id.Value(); n < uint64(len(heads)) {
		dlHead = float64(heads[n])
	}
	return dlHead, nil
}

// score is candidate i's BM25F score over the terms.
func (ft *freqTable) score(i int, dlHead float64, st corpusStats) float64 {
	dlBody := max(ft.dlText[i]-dlHead, 0)
	row := ft.tf[i*ft.terms : (i+1)*ft.terms]
	inTitle, inTrail := ft.subjectParts(row)
	score := 0.0
	for j, f := range row {
		body := float64(f.text) - float64(f.head)
		head, title := float64(f.head), float64(f.title)
		if ft.bodyless[j] {
			body = 0
			head, title = questionHead(head, title, inTitle, inTrail)
		}
		score += ft.weight[j] * bm25fTerm(ft.idf[j],
			fieldFreq{tf: max(body, 0), dl: dlBody, avgdl: st.avgBody, weight: bodyWeight},
			fieldFreq{tf: head, dl: dlHead, avgdl: st.avgHead, weight: headWeight},
			fieldFreq{tf: title, dl: ft.dlTitle[i], avgdl: st.avgTitle, weight: titleWeight})
	}
	return score
}

// titleCoverage is the share of the query's content words that candidate
// i's page title holds, each word counted by its weight in the score
// (flattenIDF's weight times its idf): 1 when the title names everything
// the query is about, 0 when it names none of it (or the query has no
// content word). A page whose title is the question's subject gets up to
// titleCoverageBonus more (issue 27, class A). The parts the search adds
// for a compound word (ft.part: fmt and errorf for fmt.Errorf) are not
// counted: the title field holds the compound whole, so with them the
// page titled "fmt.Errorf" held less of "fmt.Errorf" than one titled
// "Errorf in fmt" (review of round 22).
func (ft *freqTable) titleCoverage(i int) float64 {
	all, in := 0.0, 0.0
	for j, f := range ft.tf[i*ft.terms : (i+1)*ft.terms] {
		if !ft.content[j] || ft.part[j] {
			continue
		}
		w := ft.weight[j] * ft.idf[j]
		all += w
		if f.title > 0 {
			in += w
		}
	}
	if all <= 0 {
		return 0
	}
	return in / all
}

// subjectParts says whether a content word of the query is in the chunk's
// title and in its heading trail below the title (row: the chunk's
// frequencies of the query's terms).
func (ft *freqTable) subjectParts(row []termFreqs) (inTitle, inTrail bool) {
	for j, f := range row {
		if !ft.content[j] {
			continue
		}
		inTitle = inTitle || f.title > 0
		inTrail = inTrail || f.head > f.title
	}
	return inTitle, inTrail
}

// questionHead is a question word's frequencies in the head and title
// fields, counting the title's share only when the title holds a content
// word of the query and the trail's only when the trail does.
func questionHead(head, title float64, inTitle, inTrail bool) (float64, float64) {
	inHead := min(title, head)
	trail := head - inHead
	if !inTitle {
		title, inHead = 0, 0
	}
	if !inTrail {
		trail = 0
	}
	return inHead + trail, title
}

// pageScores adds to each candidate's score pageShare of the best score of
// another candidate of its document (page-aware ranking, issue 27: on the
// four query sets of bench/relevance, 0.05 was better than none on the
// held-out 60 and both Debian sets and even on the 58; 0.1 and more gained
// more on the Debian sets but lost on the 58 and on docker's pages, long
// references of many sections). The order of a document's own chunks is
// kept (pageShare < 1).
func pageScores(cands []*candidate) {
	type top2 struct{ first, second float64 }
	best := make(map[string]top2, len(cands))
	for _, c := range cands {
		k, _ := splitChunkID(c.ext)
		b := best[k]
		switch {
		case c.score > b.first:
			b.first, b.second = c.score, b.first
		case c.score > b.second:
			b.second = c.score
		}
		best[k] = b
	}
	for _, c := range cands {
		k, _ := splitChunkID(c.ext)
		if b := best[k]; c.score == b.first {
			c.score += pageShare * b.second
		} else {
			c.score += pageShare * b.first
		}
	}
}

func splitChunkID(id string) (string, int) {
	i := strings.LastIndexByte(id, 0)
	if i < 0 {
		return id, 0
	}
	n, _ := strconv.Atoi(id[i+1:])
	return id[:i], n
}

// containsPhrase reports whether tokens (an analysed text) hold phrase (an
// analysed phrase) at the same relative positions: word for word, with
// the gaps of removed stop words where the phrase has them.
func containsPhrase(tokens, phrase analysis.TokenStream) bool {
	if len(phrase) == 0 {
		return true
	}
	// A position may hold several terms: a word and its other forms
	// (versionForms).
	type posTerm struct {
		pos  int
		term string
	}
	at := make(map[posTerm]bool, len(tokens))
	for _, t := range tokens {
		at[posTerm{t.Position, string(t.Term)}] = true
	}
	first := phrase[0]
	for _, t := range tokens {
		if !bytes.Equal(t.Term, first.Term) {
			continue
		}
		ok := true
		for _, p := range phrase[1:] {
			if !at[posTerm{t.Position + p.Position - first.Position, string(p.Term)}] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
