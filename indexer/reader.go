package indexer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/ctx-dev/ctx/indexer/prewalk"
	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/ctx-dev/ctx/internal/suggest"
	"github.com/ctx-dev/ctx/project"
)

// ErrNoIndex is returned (wrapped) when <contextDir>/index has not been built.
var ErrNoIndex = errors.New("no search index yet: run `ctx index` (or `ctx install`) first")

// checkPackages is nil when every alias of packages is one of indexed, else
// the error of the first that is not: it wraps ErrUnknownPackage and names
// the indexed ones, so that a typo is not an empty answer.
func checkPackages(packages, indexed []string) error {
	for _, a := range packages {
		if !slices.Contains(indexed, a) {
			if len(indexed) == 0 {
				return fmt.Errorf("indexer: %q: %w (no package is indexed)", a, ErrUnknownPackage)
			}
			names := slices.Clone(indexed)
			slices.Sort(names)
			return fmt.Errorf("indexer: %q: %w%s (indexed: %s)", a, ErrUnknownPackage, suggest.Hint(a, names), strings.Join(names, ", "))
		}
	}
	return nil
}

// ErrUnknownPackage is returned (wrapped) by Documents for an alias the index
// does not know.
var ErrUnknownPackage = errors.New("package not in the index")

const (
	// readerIdleClose is how long a Reader keeps the bleve index open after
	// a call. While it is open, an incremental Sync in another process waits
	// (bolt's shared/exclusive flock on root.bolt), so keep it short.
	readerIdleClose = 250 * time.Millisecond
	// readerBoltTimeout bounds how long a query waits for an incremental
	// Sync that holds the index for writing.
	readerBoltTimeout = 10 * time.Second
	// maxBestScan bounds how many chunks a BestPerDocument search reads
	// while collecting distinct documents.
	maxBestScan = 5000
)

// Reader answers queries. Opening is cheap (nothing is loaded until the first
// call), so a server can start instantly. A Reader never blocks a writer for
// longer than one call (plus readerIdleClose).
//
// A Reader is safe for concurrent use.
type Reader struct {
	contextDir string

	mu       sync.Mutex
	metaStat FileVersion
	meta     meta
	// gitIndex is the stamp git's index had when meta.json (metaStat)
	// last passed checkMetaNotCommitted: a commit of the records during
	// a long life (ctx mcp's) rewrites git's index, not meta.json (red22).
	gitIndex fileid.Stamp
	// gitIndexFile finds the project's git index file (nil: the project
	// was not found), made once (gitIndexOnce): a stat a call, not a
	// search for it, except while the project is outside git (trust23: a
	// `git init` under a running server).
	gitIndexFile *project.GitIndexWatch
	gitIndexOnce sync.Once
	idx          *openIndex
	idxGen       int64
	idxDir       string
	users        int // calls using idx right now
	lastUse      time.Time
	timer        *time.Timer
	catStat      FileVersion
	cat          *catalog
	graph        *graph             // the link graph of graphOf (graph.go)
	graphOf      *catalog           // the catalogue graph was built from
	inl          map[string]float64 // link priors by chunk key (inlinks.go), of the file inlStat
	inlStat      FileVersion
	closed       bool

	// shortcuts counts the searches whose candidates allTermCandidates
	// or accumulatedCandidates found; exhaustive turns them off (tests
	// compare both ways).
	shortcuts  [2]atomic.Int64 // allTermCandidates, accumulatedCandidates
	exhaustive bool

	// walks counts the packages Freshness stat'ed from the walk record
	// and those it walked in full (walkrecord.go); walkSettle is
	// walkRecordSettle (tests make it 0 once the file system's clock has
	// moved past their files).
	walks      [2]atomic.Int64
	walkSettle time.Duration
	// early hands over the early walk of an index folder (prewalk.Take;
	// a test gives its own Walker's)
	early func(indexDir string) *prewalk.Walk
}

// FileVersion identifies one version of a file that writers replace by
// rename: a new file (inode), size or mtime means new content. Size and
// mtime alone are not enough: two writes within one clock tick can leave
// both unchanged.
type FileVersion struct {
	fi os.FileInfo
}

func stamp(path string) (FileVersion, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return FileVersion{}, err
	}
	return FileVersion{fi: fi}, nil
}

// Same reports whether s and o are the same version of the file (both
// known).
func (s FileVersion) Same(o FileVersion) bool {
	return s.fi != nil && o.fi != nil && os.SameFile(s.fi, o.fi) &&
		s.fi.Size() == o.fi.Size() && s.fi.ModTime().Equal(o.fi.ModTime())
}

// PublishedIndex is the version of <contextDir>/index published now: its
// meta.json's (every writer publishes by renaming a new one into place).
// Two equal versions taken at two moments mean no writer published
// between them.
func PublishedIndex(contextDir string) (FileVersion, error) {
	return stamp(filepath.Join(contextDir, project.IndexDir, metaFile))
}

// metaChecked holds, per .context folder, the meta.json version and git
// index stamp notCommitted last passed in this process: a search's two
// Readers (the freshness check's and the lexical search's) read git's
// index once.
var metaChecked struct {
	sync.Mutex
	v map[string]checkedMeta
}

type checkedMeta struct {
	meta     FileVersion
	gitIndex fileid.Stamp
}

// checkMetaNotCommitted is notCommitted, once per version st of
// contextDir's meta.json and of git's index in this process, and not
// when ownFile proves both (provenOwn). gitIndex and gitOK are git's
// index's stamp as gitIndexStamp tells it, taken before.
func checkMetaNotCommitted(contextDir string, st FileVersion, gitIndex fileid.Stamp, gitOK bool) error {
	metaChecked.Lock()
	prev, ok := metaChecked.v[contextDir]
	metaChecked.Unlock()
	if gitOK && ok && prev.meta.Same(st) && prev.gitIndex == gitIndex || provenOwn(filepath.Join(contextDir, project.IndexDir), st.fi, gitIndex, gitOK) {
		return nil
	}
	gitIndex, gitOK, err := notCommitted(contextDir)
	if err != nil {
		return err
	}
	if !gitOK {
		return nil
	}
	noteOwnChecked(contextDir, st, gitIndex)
	metaChecked.Lock()
	if metaChecked.v == nil {
		metaChecked.v = map[string]checkedMeta{}
	}
	metaChecked.v[contextDir] = checkedMeta{st, gitIndex}
	metaChecked.Unlock()
	return nil
}

// gitIndexNow is gitIndexStamp of r's project, its git index file kept
// once found (project.GitIndexWatch): the stamp of the project's git
// index now (zero outside git, or with no index yet), ok false when it
// cannot be told.
func (r *Reader) gitIndexNow() (s fileid.Stamp, ok bool) {
	r.gitIndexOnce.Do(func() {
		if p, err := project.At(filepath.Dir(r.contextDir)); err == nil {
			r.gitIndexFile = p.WatchGitIndex()
		}
	})
	if r.gitIndexFile == nil {
		return s, false
	}
	return statGitIndex(r.gitIndexFile.File())
}

// OpenReader returns a Reader for <contextDir>/index.
func OpenReader(contextDir string) (*Reader, error) {
	if contextDir == "" {
		return nil, errors.New("indexer: empty context directory")
	}
	return &Reader{contextDir: contextDir, walkSettle: walkRecordSettle, early: prewalk.Take}, nil
}

func (r *Reader) indexDir() string { return filepath.Join(r.contextDir, project.IndexDir) }

// loadMetaLocked refreshes r.meta when meta.json changed (one stat).
func (r *Reader) loadMetaLocked() error {
	p := filepath.Join(r.indexDir(), metaFile)
	if err := confine.New(r.contextDir).Check(p); err != nil {
		return fmt.Errorf("indexer: %w", err)
	}
	st, err := stamp(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", r.contextDir, ErrNoIndex)
		}
		return fmt.Errorf("indexer: %w", err)
	}
	gitIndex, gitOK := r.gitIndexNow()
	if st.Same(r.metaStat) && gitIndex == r.gitIndex {
		return nil
	}
	if err := checkMetaNotCommitted(r.contextDir, st, gitIndex, gitOK); err != nil {
		return err
	}
	r.gitIndex = gitIndex
	if st.Same(r.metaStat) {
		return nil // git's index changed, the records are still untracked
	}
	var m meta
	if err := readJSON(p, &m); err != nil {
		return fmt.Errorf("indexer: %w", err)
	}
	if m.Schema != schemaVersion {
		return oldSchema(r.indexDir(), m.Schema)
	}
	r.meta, r.metaStat = m, st
	return nil
}

// openIndex is one opening of the bleve index, with what searches need of
// its generation: meta.json's token totals, and what they read once
// (snapshotCache).
type openIndex struct {
	idx         bleve.Index
	tokens      int64  // meta.Tokens (see bm25Stats)
	headTokens  int64  // meta.HeadTokens (see bm25f.go)
	titleTokens int64  // meta.TitleTokens
	versions    string // meta.Versions: the recorded versioned copies (versionsrec.go)
	cache       *snapshotCache
	accum       *accumCache
}

func (o *openIndex) Close() error { return o.idx.Close() }

// acquire returns the open index, opening (or reopening, when a writer
// published a new generation) as needed. Call release when done.
func (r *Reader) acquire() (*openIndex, func(), error) {
	r.waitForWriter()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, nil, errors.New("indexer: reader is closed")
	}
	deadline := time.Now().Add(readerBoltTimeout)
	for attempt := 0; ; attempt++ {
		if err := r.loadMetaLocked(); err != nil {
			return nil, nil, err
		}
		if r.idx != nil && (r.idxGen != r.meta.Generation || r.idxDir != r.meta.Bleve) && r.users == 0 {
			r.idx.Close()
			r.idx = nil
		}
		if r.idx != nil {
			break
		}
		idx, err := r.openLiveLocked()
		if err != nil {
			// A writer published a new generation (or is deleting the
			// old directory) between reading meta.json and opening:
			// read meta.json again. Every retry follows a writer's
			// progress, so this ends; the deadline is a backstop.
			r.metaStat = FileVersion{}
			if errors.Is(err, errIndexMoved) && time.Now().Before(deadline) {
				if attempt > 2 {
					time.Sleep(5 * time.Millisecond)
				}
				continue
			}
			if attempt == 0 {
				continue
			}
			return nil, nil, err
		}
		r.idx = &openIndex{idx: idx, tokens: r.meta.Tokens, headTokens: r.meta.HeadTokens, titleTokens: r.meta.TitleTokens, versions: r.meta.Versions, accum: newAccumCache()}
		r.idx.cache = newSnapshotCache(r.idx.accum)
		r.idxGen, r.idxDir = r.meta.Generation, r.meta.Bleve
		break
	}
	idx := r.idx
	r.users++
	return idx, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.users--
		r.lastUse = time.Now()
		if r.idx != idx && r.users == 0 {
			idx.Close() // replaced while in use
		}
		if r.idx == idx && r.users == 0 && r.writerActive() {
			r.idx.Close()
			r.idx = nil
		}
		if r.timer == nil {
			r.timer = time.AfterFunc(readerIdleClose, r.idleClose)
		} else {
			r.timer.Reset(readerIdleClose)
		}
	}, nil
}

// errIndexMoved means the bleve directory meta.json named is no longer the
// live one.
var errIndexMoved = errors.New("search index replaced while opening it")

// openLiveLocked opens the bleve directory r.meta names, read-only. It holds
// the directory's open lock (dirLockPath) while opening, so a writer that
// replaced the directory cannot delete it under the open (see
// removeBleveDir), and checks that meta.json still names it once the lock
// is held.
func (r *Reader) openLiveLocked() (bleve.Index, error) {
	name := r.meta.Bleve
	if !bleveDirRE().MatchString(name) {
		return nil, fmt.Errorf("indexer: %s names %q as the search index, not one ctx makes: run `ctx index --rebuild`", filepath.Join(r.indexDir(), metaFile), name)
	}
	release, ok, err := tryRLock(confine.New(r.contextDir), dirLockPath(r.indexDir(), name))
	if err != nil {
		return nil, fmt.Errorf("indexer: lock search index %s: %w", name, err)
	}
	if !ok {
		return nil, errIndexMoved // a writer is deleting it
	}
	defer release()
	var m meta
	if err := readJSON(filepath.Join(r.indexDir(), metaFile), &m); err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	if m.Bleve != name {
		return nil, errIndexMoved
	}
	dir := filepath.Join(r.indexDir(), name)
	idx, err := bleve.OpenUsing(dir, map[string]any{"read_only": true, "bolt_timeout": readerBoltTimeout.String()})
	if err != nil {
		return nil, fmt.Errorf("indexer: open search index %s: %w (run `ctx index --rebuild` if it persists)", dir, err)
	}
	return idx, nil
}

// writerActive reports whether a Sync has the live directory open for
// writing (or is waiting to): the marker exists and the write lock is held.
func (r *Reader) writerActive() bool {
	if _, err := os.Stat(filepath.Join(r.indexDir(), writingMarker)); err != nil {
		return false
	}
	release, ok, err := tryRLock(confine.New(r.contextDir), filepath.Join(r.indexDir(), lockFile))
	if err != nil {
		return false
	}
	if ok {
		release() // nobody holds the write lock: the marker is stale
		return false
	}
	return true
}

// waitForWriter lets an incremental Sync in, then waits (at most
// readerBoltTimeout) for it to finish before this Reader opens the index
// again.
func (r *Reader) waitForWriter() {
	if !r.writerActive() {
		return
	}
	r.mu.Lock()
	if r.idx != nil && r.users == 0 {
		r.idx.Close()
		r.idx = nil
	}
	r.mu.Unlock()
	deadline := time.Now().Add(readerBoltTimeout)
	for r.writerActive() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
}

func (r *Reader) idleClose() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.idx != nil && r.users == 0 && time.Since(r.lastUse) >= readerIdleClose/2 {
		r.idx.Close()
		r.idx = nil
	}
}

// Close releases what the Reader holds.
func (r *Reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.timer != nil {
		r.timer.Stop()
	}
	if r.idx != nil && r.users == 0 {
		err := r.idx.Close()
		r.idx = nil
		return err
	}
	return nil
}

// Search runs q. The text follows the query syntax (QuerySyntax): its
// package:, path:, tag: and kind: qualifiers narrow q's filters further
// (all must hold; q.Paths and the path: qualifiers are two filters). A
// path filter is a path inside a package, or ALIAS/PATH as hits show it.
// A package (q.Packages, package:) the index does not hold is an error
// wrapping ErrUnknownPackage that lists the indexed ones. An index that does not exist yet returns an error that
// says to run `ctx index`; a query over the caps is ErrQueryTooLong, a
// kind: that is no kind ErrUnknownKind (CheckQuery); nothing else in the
// text is an error.
//
// bleve finds the candidates (the words in any order, the filters, the
// exclusions, every word of each phrase); the best of them by bleve's score
// are ranked again by BM25F (bm25f.go), then each phrase is checked word
// for word on the chunk's text.
func (r *Reader) Search(ctx context.Context, q Query) ([]Hit, error) {
	text := strings.TrimSpace(q.Text)
	if text == "" {
		return nil, errors.New("indexer: empty query: say what to look for")
	}
	if err := CheckQuery(text); err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	if err := checkFilters(q); err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	pq := queryOf(q)
	packages, aliases, none, err := r.packageFilters(q, pq)
	if err != nil || none {
		return nil, err
	}
	open, release, err := r.acquire()
	if err != nil {
		return nil, err
	}
	defer release()
	idx := open.idx
	analyzer := idx.Mapping().AnalyzerNamed(textAnalyzer)

	positive := pq.positive()
	if q.ids != nil {
		positive = "" // filters only (vectors_search.go)
	}
	typed := positive
	if parts := compoundParts(positive, 1000); parts != "" {
		positive += " " + parts
	}
	rdr, err := snapshotReader(idx)
	if err != nil {
		return nil, fmt.Errorf("indexer: search: %w", err)
	}
	defer rdr.Close()
	var joined map[string]bool // terms of adjacent words written as one (joinedWords)
	if positive, joined, err = withJoined(ctx, rdr, idx.Mapping(), pq, positive); err != nil {
		return nil, err
	}
	var terms []string // analysed, each once
	for t := range queryTerms(analyzer, positive) {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	partOnly := partTerms(analyzer, typed, positive, terms)
	// Stop words are scored but do not pick candidates: every chunk has
	// them. keyTerms are the others (all terms when there are no others).
	keyAnalyzer, keyTerms := keyTextAnalyzer, queryTerms(idx.Mapping().AnalyzerNamed(keyTextAnalyzer), positive)
	if len(keyTerms) == 0 {
		keyAnalyzer, keyTerms = textAnalyzer, queryTerms(analyzer, positive)
	}
	// A question's words ("how do I") are scored in titles and headings
	// only, when it has other words (questionTerms).
	var headOnly map[string]bool
	if q.ids == nil {
		headOnly = questionTerms(analyzer, idx.Mapping().AnalyzerNamed(keyTextAnalyzer), pq.words)
		for _, p := range pq.phrases { // a phrase's words are asked for as they are
			for t := range queryTerms(analyzer, p) {
				delete(headOnly, t)
			}
		}
	}
	// Stop words (the terms that do not pick candidates) keep their idf
	// whole; the content words' are flattened (flattenIDF).
	stop := map[string]bool{}
	for _, t := range terms {
		if !keyTerms[t] {
			stop[t] = true
		}
	}
	bq, phrases, excludedPhrases, filtered := buildQuery(idx, pq, q, positive, len(terms) > 0, keyAnalyzer, packages, aliases)

	docs, _ := idx.DocCount()
	// Candidates: bleve's best size chunks (in id order when nothing is
	// scored). When they hold fewer than limit hits (one document's chunks
	// filling them for BestPerDocument, phrases not found) and bleve has
	// more, ask again for four times as many, up to maxBestScan: a larger
	// candidate set keeps the order of the chunks already in it.
	size := min(max(rescoreCandidates, 20*limit), maxBestScan)
	if len(terms) == 0 {
		size = min(limit*20, maxBestScan)
	}
	var vm *versionMap         // the pages' versioned copies, read when a candidate is in a version folder
	var inl map[string]float64 // link priors (inlinks.go), read at the first rescore
	named := ""                // the package the query names (priors)
	plain := len(terms) > 0 && len(pq.phrases) == 0 && len(pq.excluded) == 0 && !filtered && !r.exhaustive
	keep := func(body []byte) bool {
		if len(phrases) == 0 && len(excludedPhrases) == 0 {
			return true
		}
		toks := analyzer.Analyze(bytes.Clone(body)) // analysing changes the bytes
		return allPhrases(toks, phrases) && !anyPhrase(toks, excludedPhrases)
	}
	for {
		var stats *search.BM25Stats
		if len(terms) > 0 {
			stats = bm25Stats(idx, open.tokens)
		}
		res, err := r.candidates(ctx, idx, rdr, bq, plain, positive, keyAnalyzer, len(keyTerms), size, stats, len(terms) == 0, open.accum)
		if err != nil {
			return nil, err
		}
		cands := candidatesOf(res)
		if vm, err = open.cache.versionsFor(ctx, rdr, vm, cands, r.indexDir(), open.versions); err != nil {
			return nil, err
		}
		if len(terms) > 0 {
			if inl == nil {
				if inl, named, err = r.priors(ctx, open.cache, rdr, analyzer, q, pq); err != nil {
					return nil, err
				}
			}
			if err := rescore(ctx, rdr, terms, headOnly, stop, partOnly, joined, cands, newCorpusStats(docs, open.tokens, open.headTokens, open.titleTokens), open.cache, !queryAsksForKinds(pq.words) && len(pq.docKinds) == 0, inl, named); err != nil {
				return nil, err
			}
			vm.order(cands, queryVersions(pq.words))
		}
		hits, err := collectHits(ctx, rdr, cands, q.BestPerDocument, vm, limit, keep, newSnippeter(analyzer, keyTerms).snippet)
		if err != nil || len(hits) == limit || uint64(len(res.Hits)) >= res.Total || size >= maxBestScan {
			return hits, err
		}
		size = min(size*4, maxBestScan)
	}
}

// snapshotReader opens a reader of idx's current snapshot (the caller
// closes it).
func snapshotReader(idx bleve.Index) (index.IndexReader, error) {
	adv, err := idx.Advanced()
	if err != nil {
		return nil, err
	}
	return adv.Reader()
}

// partTerms returns the terms (of terms, analysed from positive) that
// only the parts added for compound words hold (compoundParts), typed
// being positive without them: such a term is not of the query's subject
// a title may hold (titleCoverage; the title field holds no compound's
// parts). Nil when positive has no parts.
func partTerms(a analysis.Analyzer, typed, positive string, terms []string) map[string]bool {
	if typed == positive {
		return nil
	}
	words := queryTerms(a, typed)
	parts := map[string]bool{}
	for _, t := range terms {
		if !words[t] {
			parts[t] = true
		}
	}
	return parts
}

// candidatesOf returns bleve's hits as candidates to rescore. The index is
// open read-only: one snapshot, so bleve's internal ids are rdr's.
func candidatesOf(res *bleve.SearchResult) []*candidate {
	cands := make([]*candidate, 0, len(res.Hits))
	for _, h := range res.Hits {
		cands = append(cands, &candidate{id: h.IndexInternalID, ext: h.ID})
	}
	return cands
}

// priors reads what rescore ranks by besides the query's words: the link
// priors (inLinks) and the package the query names
// (snapshotCache.packageNamed; none when q or the query's qualifiers
// filter packages).
func (r *Reader) priors(ctx context.Context, cache *snapshotCache, rdr index.IndexReader, a analysis.Analyzer, q Query, pq parsedQuery) (map[string]float64, string, error) {
	inl, err := r.inLinks()
	if err != nil || len(q.Packages)+len(pq.packages) > 0 {
		return inl, "", err
	}
	named, err := cache.packageNamed(ctx, rdr, a, pq.words)
	return inl, named, err
}

// packageFilters returns the package filters of a search: q's, the
// query's package: qualifiers, and for each kind filter (q's, the kind:
// qualifiers of packages) the packages of those kinds; none when no
// indexed package is of those kinds. A package filter that names a
// package the index does not have is ErrUnknownPackage, naming the
// indexed ones; then a tag filter (q's, or the tag: qualifiers) of which
// no tag is an indexed document's is ErrUnknownTag (checkTags). aliases are the indexed packages, when a package or path
// filter is set (a path may start with its alias, as hits show it).
func (r *Reader) packageFilters(q Query, pq parsedQuery) (packages [][]string, aliases map[string]bool, none bool, err error) {
	packages = [][]string{q.Packages, pq.packages}
	if len(q.Packages)+len(pq.packages)+len(q.Paths)+len(pq.paths) > 0 {
		r.mu.Lock()
		cat, err := r.loadCatalogLocked()
		r.mu.Unlock()
		if err != nil {
			return nil, nil, false, err
		}
		aliases = map[string]bool{}
		var names []string
		for _, p := range cat.Packages {
			aliases[p.Alias] = true
			names = append(names, p.Alias)
		}
		for _, ps := range packages {
			if err := checkPackages(ps, names); err != nil {
				return nil, nil, false, err
			}
		}
	}
	// After the packages: a tag is looked for in the packages there are.
	for _, tags := range [][]string{q.Tags, pq.tags} {
		if err := r.checkTags(tags); err != nil {
			return nil, nil, false, err
		}
	}
	for _, kinds := range [][]string{q.Kinds, pq.kinds} {
		if len(kinds) == 0 {
			continue
		}
		r.mu.Lock()
		cat, err := r.loadCatalogLocked()
		r.mu.Unlock()
		if err != nil {
			return nil, nil, false, err
		}
		of := kindAliases(cat.Packages, kinds, nil)
		if len(of) == 0 {
			return nil, nil, true, nil
		}
		packages = append(packages, of)
	}
	return packages, aliases, false, nil
}

// buildQuery is bleve's query for a search: the words (scored, picking
// candidates with keyAnalyzer), every word of each phrase, the excluded
// words, and the filters (packages, document kinds, tags, paths). It
// returns the phrases of more than one word, and the excluded ones, to be
// checked word for word on the chunks' text, and whether any filter is set.
func buildQuery(idx bleve.Index, pq parsedQuery, q Query, positive string, scored bool, keyAnalyzer string, packages [][]string, aliases map[string]bool) (*query.BooleanQuery, []analysis.TokenStream, []analysis.TokenStream, bool) {
	analyzer := idx.Mapping().AnalyzerNamed(textAnalyzer)
	bq := bleve.NewBooleanQuery()
	switch {
	case scored:
		mq := bleve.NewMatchQuery(positive)
		mq.SetField(fText)
		mq.Analyzer = keyAnalyzer
		bq.AddShould(mq)
	case q.ids != nil:
		bq.AddMust(bleve.NewDocIDQuery(q.ids)) // only these, not every chunk then a filter (vectors_search.go)
	default:
		bq.AddShould(bleve.NewMatchAllQuery())
	}
	var phrases, excludedPhrases []analysis.TokenStream
	for _, p := range pq.phrases {
		toks := analyzer.Analyze([]byte(p))
		if len(toks) == 0 {
			continue
		}
		mq := bleve.NewMatchQuery(p)
		mq.SetField(fText)
		mq.Analyzer = textAnalyzer
		if len(idx.Mapping().AnalyzerNamed(keyTextAnalyzer).Analyze([]byte(p))) > 0 {
			mq.Analyzer = keyTextAnalyzer
		}
		mq.SetOperator(query.MatchQueryOperatorAnd)
		bq.AddMust(mq)
		if len(toks) > 1 {
			phrases = append(phrases, toks)
		}
	}
	for _, x := range pq.excluded {
		toks := analyzer.Analyze([]byte(x))
		switch len(toks) {
		case 0:
		case 1:
			t := bleve.NewTermQuery(string(toks[0].Term))
			t.SetField(fText)
			bq.AddMustNot(t)
		default:
			excludedPhrases = append(excludedPhrases, toks)
		}
	}
	filters := searchFilters(pq, q, packages, aliases)
	switch len(filters) {
	case 0:
	case 1:
		bq.AddFilter(filters[0])
	default:
		bq.AddFilter(bleve.NewConjunctionQuery(filters...))
	}
	return bq, phrases, excludedPhrases, len(filters) > 0
}

// searchFilters are a search's filters: each must hold. aliases are the
// indexed packages (packageFilters).
func searchFilters(pq parsedQuery, q Query, packages [][]string, aliases map[string]bool) []query.Query {
	var filters []query.Query
	for _, p := range packages {
		if len(p) > 0 {
			filters = append(filters, termsQuery(fPackage, p, false))
		}
	}
	if len(pq.docKinds) > 0 {
		filters = append(filters, termsQuery(fDocKind, pq.docKinds, false))
	}
	for _, tags := range [][]string{q.Tags, pq.tags} {
		if len(tags) > 0 {
			filters = append(filters, termsQuery(fTags, tags, true))
		}
	}
	for _, paths := range [][]string{q.Paths, pq.paths} {
		if len(paths) == 0 {
			continue
		}
		var qs []query.Query
		for _, p := range uncoveredPrefixes(paths, aliases) {
			pre := bleve.NewPrefixQuery(p)
			pre.SetField(fPath)
			qs = append(qs, pre)
			// The form hits show, ALIAS/PATH, is one too (pathMatches).
			if alias, rest, ok := strings.Cut(p, "/"); ok && aliases[alias] {
				in := bleve.NewPrefixQuery(rest)
				in.SetField(fPath)
				qs = append(qs, bleve.NewConjunctionQuery(termsQuery(fPackage, []string{alias}, false), in))
			}
		}
		filters = append(filters, bleve.NewDisjunctionQuery(qs...))
	}
	return filters
}

// uncoveredPrefixes are the path filters of one list (pathPrefix'ed) that
// no other one covers: a prefix of p, in both of p's forms (pathMatches),
// matches all p does, so p adds nothing to the answer; it would add a
// prefix query expanded over every path it matches (red18 finding 2: 999
// `path:/` made one search expand the whole path field 999 times). What
// is kept is one of each, and no kept one starts with another in the form
// both have, so the expansion is bounded by about the number of paths,
// whatever the query. A covering q holds p's ALIAS/PATH form too only when
// q reaches into the alias (holds its "/") or p has no such form.
func uncoveredPrefixes(paths []string, aliases map[string]bool) []string {
	ps := make([]string, 0, len(paths))
	for _, p := range paths {
		ps = append(ps, pathPrefix(p))
	}
	slices.SortFunc(ps, func(a, b string) int {
		if d := len(a) - len(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	ps = slices.Compact(ps)
	kept := ps[:0]
	for _, p := range ps {
		alias, _, hasForm := strings.Cut(p, "/")
		hasForm = hasForm && aliases[alias]
		covered := false
		for _, q := range kept {
			if strings.HasPrefix(p, q) && (strings.Contains(q, "/") || !hasForm) {
				covered = true
				break
			}
		}
		if !covered {
			kept = append(kept, p)
		}
	}
	return kept
}

// pathMatches reports whether the document path of package alias is
// under the path filter p: p is a path inside a package, or the form hits
// show, ALIAS/PATH, when ALIAS is one of the indexed packages (aliases).
// searchFilters asks bleve the same.
func pathMatches(p, alias, path string, aliases map[string]bool) bool {
	p = pathPrefix(p)
	if strings.HasPrefix(path, p) {
		return true
	}
	a, rest, ok := strings.Cut(p, "/")
	return ok && a == alias && aliases[a] && strings.HasPrefix(path, rest)
}

// candidates returns bleve's best size chunks for bq, ties at the cut
// settled by chunk key (searchCut; in id order when byID); for a plain query, the same candidates from fewer chunks when
// that is provably so (candidates.go).
func (r *Reader) candidates(ctx context.Context, idx bleve.Index, rdr index.IndexReader, bq query.Query, plain bool, positive, keyAnalyzer string, keyTerms, size int, stats *search.BM25Stats, byID bool, cache *accumCache) (*bleve.SearchResult, error) {
	if plain {
		ways := []func() (*bleve.SearchResult, bool, error){
			func() (*bleve.SearchResult, bool, error) {
				return allTermCandidates(ctx, idx, rdr, positive, keyAnalyzer, size, stats)
			},
			func() (*bleve.SearchResult, bool, error) {
				return accumulatedCandidates(ctx, idx, rdr, positive, keyAnalyzer, size, stats, cache)
			},
		}
		order := []int{1}
		if keyTerms == 2 {
			order = []int{0, 1} // the chunks with both are fewer than those with the rarer
		}
		for _, way := range order {
			res, found, err := ways[way]()
			if err != nil {
				return nil, fmt.Errorf("indexer: search: %w", err)
			}
			if found {
				r.shortcuts[way].Add(1)
				return res, nil
			}
		}
	}
	req := bleve.NewSearchRequestOptions(bq, size, 0, false)
	var res *bleve.SearchResult
	var err error
	if byID {
		req.SortBy([]string{"_id"}) // a total order of its own
		res, err = idx.SearchInContext(ctx, req)
	} else {
		if stats != nil {
			req.PreSearchData = map[string]any{search.BM25PreSearchDataKey: stats}
		}
		res, err = searchCut(ctx, idx, req, size)
	}
	if err != nil {
		return nil, fmt.Errorf("indexer: search: %w", err)
	}
	return res, nil
}

// collectHits turns candidates, best first, into at most limit hits: only
// the best chunk of each document when bestPerDoc (with how many others
// of the document are among the candidates: Hit.More), only chunks whose
// text keep accepts, and of a page's versioned copies (vm) only the first
// copy given, naming the others' versions (Hit.Versions).
func collectHits(ctx context.Context, rdr index.IndexReader, cands []*candidate, bestPerDoc bool, vm *versionMap, limit int, keep func(text []byte) bool, snip func(text []byte) string) ([]Hit, error) {
	var hits []Hit
	seen := map[string]bool{}
	given := map[string]string{} // a versioned page's family → the copy given
	var chunks map[string]int    // of each document among cands (Hit.More)
	if bestPerDoc {
		chunks = make(map[string]int, len(cands))
		for _, c := range cands {
			key, _ := splitChunkID(c.ext)
			chunks[key]++
		}
	}
	for _, c := range cands {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// The chunk's id names its document (chunkID): a document
		// already given is skipped before its stored fields are read.
		key, _ := splitChunkID(c.ext)
		if bestPerDoc && seen[key] {
			continue
		}
		var vc *versionCopy
		if vm != nil {
			vc = vm.copies[key]
		}
		if vc != nil && given[vc.family] != "" && given[vc.family] != key {
			continue
		}
		h, body, err := loadHitAt(rdr, c.id, c.ext)
		if err != nil {
			return nil, err
		}
		if !keep(body) {
			continue
		}
		seen[key] = true
		var versions []string
		family := ""
		if vc != nil {
			given[vc.family] = key
			versions, family = vm.others(vc), vc.family
		}
		start, end, prefix := parseLines(h.lines)
		if prefix > len(body) {
			prefix = 0
		}
		hits = append(hits, Hit{
			Package:  h.Package,
			Path:     h.Path,
			Heading:  h.Heading,
			Lines:    [2]int{start, end},
			Score:    c.score,
			Tags:     h.Tags,
			Snippet:  snip(body[prefix:]),
			More:     max(chunks[key]-1, 0),
			Versions: versions,
			id:       c.ext,
			family:   family,
		})
		if len(hits) == limit {
			break
		}
	}
	return hits, nil
}

// storedHit is what the index stores of a chunk.
type storedHit struct {
	Package, Path, Heading, lines string
	Tags                          []string
}

// loadHit reads the stored fields of chunk id: the hit's fields and the
// searched text (not to be changed).
func loadHit(rdr index.IndexReader, id string) (storedHit, []byte, error) {
	doc, err := rdr.Document(id)
	if err != nil {
		return storedHit{}, nil, fmt.Errorf("indexer: read search hit: %w", err)
	}
	var h storedHit
	var body []byte
	if doc == nil {
		return h, nil, nil
	}
	doc.VisitFields(func(f index.Field) {
		body = h.set(f.Name(), f.Value(), body)
	})
	return h, body, nil
}

// set keeps stored field name's value (val, copied) in h, or returns
// val itself when name is fText (else body).
func (h *storedHit) set(name string, val, body []byte) []byte {
	switch name {
	case fPackage:
		h.Package = string(val)
	case fPath:
		h.Path = string(val)
	case fHeading:
		h.Heading = string(val)
	case fLines:
		h.lines = string(val)
	case fText:
		return val
	case fTags:
		h.Tags = append(h.Tags, string(val))
	}
	return body
}

// loadHitAt is loadHit for a chunk found by a search of rdr: num is its
// internal number, ext its id. The stored fields are read at num, in its
// segment, without loadHit's look-up of ext in the id field (a
// dictionary look-up in every segment of the index) nor a copy of every
// field; after checking that the chunk there is ext. An index that is not
// scorch's, or a chunk that is not there, is read by loadHit.
func loadHitAt(rdr index.IndexReader, num index.IndexInternalID, ext string) (storedHit, []byte, error) {
	is, ok := rdr.(*scorch.IndexSnapshot)
	if !ok {
		return loadHit(rdr, ext)
	}
	n, base := num.Value(), uint64(0)
	for _, seg := range is.Segments() {
		count := seg.Segment().Count() // deleted chunks too: the internal numbers' span (chunkNumbers)
		if n >= base+count {
			base += count
			continue
		}
		local := n - base
		id, err := seg.DocID(local)
		if err != nil {
			return storedHit{}, nil, fmt.Errorf("indexer: read search hit: %w", err)
		}
		if string(id) != ext {
			break
		}
		var h storedHit
		var body []byte
		err = seg.VisitDocument(local, func(name string, _ byte, val []byte, _ []uint64) bool {
			switch name {
			case "_id":
			case fText:
				body = bytes.Clone(val) // val is the segment's buffer
			default:
				body = h.set(name, val, body)
			}
			return true
		})
		if err != nil {
			return storedHit{}, nil, fmt.Errorf("indexer: read search hit: %w", err)
		}
		return h, body, nil
	}
	return loadHit(rdr, ext)
}

func allPhrases(toks analysis.TokenStream, phrases []analysis.TokenStream) bool {
	for _, p := range phrases {
		if !containsPhrase(toks, p) {
			return false
		}
	}
	return true
}

func anyPhrase(toks analysis.TokenStream, phrases []analysis.TokenStream) bool {
	for _, p := range phrases {
		if containsPhrase(toks, p) {
			return true
		}
	}
	return false
}

// kindAliases returns the aliases of the indexed packages whose kind is one
// of kinds (no kind: git) and that are in only when only is not empty: the
// kind filter is a filter on packages, resolved through the catalogue.
func kindAliases(indexed []Package, kinds, only []string) []string {
	var out []string
	for _, p := range indexed {
		kind := p.Kind
		if kind == "" {
			kind = project.KindGit
		}
		if slices.Contains(kinds, kind) && (len(only) == 0 || slices.Contains(only, p.Alias)) {
			out = append(out, p.Alias)
		}
	}
	return out
}

// bm25Stats gives bleve the real average length of the scored field. Left
// alone, bleve 2.x takes the number of distinct terms in the field's
// dictionary divided by the number of documents as the average length
// (about 5 tokens on the shared corpus, whose chunks average over 100), so
// every chunk longer than a few words is penalised as if it were huge and
// short pages that mention a query word once beat the page about it. With
// the real average, on bench/relevance: MRR 0.55 → 0.7.
func bm25Stats(idx bleve.Index, tokens int64) *search.BM25Stats {
	docs, err := idx.DocCount()
	if err != nil || docs == 0 || tokens <= 0 {
		return nil
	}
	n := int(docs)
	// Every field a query can touch needs an entry; only fText is scored
	// (the others are filters), so theirs are placeholders. "*" is the
	// field bleve's optimised disjunction of several terms (a filter on
	// two packages) asks for.
	return &search.BM25Stats{DocCount: float64(docs), FieldCardinality: map[string]int{
		fText: int(tokens), fPackage: n, fPath: n, fTags: n, fDocKind: n, "*": n,
	}}
}

// termsQuery matches any of the values exactly (tags are stored lower-case).
func termsQuery(field string, values []string, lower bool) query.Query {
	var qs []query.Query
	for _, v := range values {
		if lower {
			v = tagKey(v)
		}
		t := bleve.NewTermQuery(v)
		t.SetField(field)
		qs = append(qs, t)
	}
	if len(qs) == 1 {
		return qs[0]
	}
	return bleve.NewDisjunctionQuery(qs...)
}

// oldSchema is the error of an index that another version of ctx wrote
// (meta.json's or the catalogue's schema is not schemaVersion): a reader
// cannot use it, `ctx index` rebuilds it.
func oldSchema(indexDir string, schema int) error {
	return fmt.Errorf("indexer: the index in %s has schema %d, this ctx needs %d: run `ctx index`", indexDir, schema, schemaVersion)
}

// loadCatalogLocked refreshes the cached catalogue when catalog.json changed.
func (r *Reader) loadCatalogLocked() (*catalog, error) {
	p, st, err := r.catalogStamp()
	if err != nil {
		return nil, err
	}
	if r.cat != nil && st.Same(r.catStat) {
		return r.cat, nil
	}
	for attempt := 0; ; attempt++ {
		c, err := readCatalog(r.indexDir())
		if err == nil && c.Schema != schemaVersion {
			return nil, oldSchema(r.indexDir(), c.Schema) // its parts are of that schema too
		}
		if err == nil {
			err = r.loadParts(&c)
		}
		if err == nil {
			r.cat, r.catStat = &c, st
			return r.cat, nil
		}
		// A writer replaced the catalogue between reading its top and a
		// part: read the new top.
		if !isCatalogGone(err) || attempt >= 20 {
			return nil, fmt.Errorf("indexer: %w", err)
		}
		if st, err = stamp(p); err != nil {
			return nil, fmt.Errorf("indexer: %w", err)
		}
	}
}

// catalogStamp returns the catalogue's top file and its stat stamp, or
// ErrNoIndex when there is none.
func (r *Reader) catalogStamp() (string, FileVersion, error) {
	p := filepath.Join(r.indexDir(), catalogFile)
	if err := confine.New(r.contextDir).Check(p); err != nil {
		return "", FileVersion{}, fmt.Errorf("indexer: %w", err)
	}
	st, err := stamp(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", FileVersion{}, fmt.Errorf("%s: %w", r.contextDir, ErrNoIndex)
		}
		return "", FileVersion{}, fmt.Errorf("indexer: %w", err)
	}
	return p, st, nil
}

// loadCatalogTopLocked returns the catalogue's top file alone: its
// packages and the name and stat stamp of each package's part, which is
// all Freshness compares. The cached whole catalogue when it is current;
// else the top is read and no part (decoding the parts is most of the cost
// of loading the catalogue: 30 ms of a CLI search's 70 at 1x).
func (r *Reader) loadCatalogTopLocked() (*catalog, error) {
	_, st, err := r.catalogStamp()
	if err != nil {
		return nil, err
	}
	if r.cat != nil && st.Same(r.catStat) {
		return r.cat, nil
	}
	c, err := readCatalog(r.indexDir())
	if err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	return &c, nil
}

// loadParts reads every part of c, reusing the records of the parts the
// cached catalogue has already read.
func (r *Reader) loadParts(c *catalog) error {
	c.Files = make(map[string][]fileRecord, len(c.Parts))
	for alias, part := range c.Parts {
		if r.cat != nil {
			if old, ok := r.cat.Parts[alias]; ok && old.File == part.File {
				c.Files[alias] = r.cat.Files[alias]
				continue
			}
		}
		if _, err := c.records(r.indexDir(), alias); err != nil {
			return err
		}
	}
	return nil
}

// Documents returns the catalogue of one package (or all, for ""), sorted by
// package then path. Files that were skipped (binary, oversized) are not
// listed. An alias the index does not know gives an error wrapping
// ErrUnknownPackage.
func (r *Reader) Documents(alias string) ([]Document, error) {
	r.mu.Lock()
	cat, err := r.loadCatalogLocked()
	r.mu.Unlock()
	if err != nil {
		return nil, err
	}
	var aliases []string
	for a := range cat.Files {
		if alias == "" || a == alias {
			aliases = append(aliases, a)
		}
	}
	if alias != "" && len(aliases) == 0 {
		known := false
		for _, p := range cat.Packages {
			known = known || p.Alias == alias
		}
		if !known {
			var names []string
			for _, p := range cat.Packages {
				names = append(names, p.Alias)
			}
			return nil, fmt.Errorf("indexer: %q: %w (indexed: %s)", alias, ErrUnknownPackage, strings.Join(names, ", "))
		}
	}
	sort.Strings(aliases)
	docs := []Document{}
	for _, a := range aliases {
		for _, rec := range cat.Files[a] {
			if rec.Skipped == "" {
				docs = append(docs, rec.document(a))
			}
		}
	}
	return docs, nil
}

// Freshness reports whether the index matches pkgs and their files on disk.
// It is cheap: it stats files (size and mtime, against each package's
// stamp in the catalogue's top file) and reads nothing else but the walk
// record (walkrecord.go), which spares it reading the packages' folders
// while none of them moved. No index at all, one written by a
// ctx with another schema, or one whose update was interrupted, is not an
// error: it is reported as not fresh with every alias stale (Sync fixes it).
func (r *Reader) Freshness(pkgs []Package) (Freshness, error) {
	return r.FreshnessContext(context.Background(), pkgs)
}

// FreshnessContext is Freshness, stopped with ctx's error when ctx ends
// during the walk (checked at each package and each entry of its walk; no
// walk record is written of a walk cut short): the MCP server's check,
// which runs in the background, ends with the server.
func (r *Reader) FreshnessContext(ctx context.Context, pkgs []Package) (Freshness, error) {
	r.mu.Lock()
	var cat *catalog
	var err error
	var builtAt time.Time
	usable := false // meta.json present, of this schema, not mid-update, and the catalogue of its bleve directory
	if merr := r.loadMetaLocked(); merr != nil || !r.meta.Dirty {
		cat, err = r.loadCatalogTopLocked()
		if err == nil && merr == nil {
			builtAt = r.meta.BuiltAt
			usable = cat.Schema == schemaVersion && cat.Bleve == r.meta.Bleve
		}
	}
	// A dirty meta.json (an update interrupted) is not usable whatever the
	// catalogue holds: written with no fsync each until the update's
	// publish (durable), it may be torn.
	r.mu.Unlock()
	if errors.Is(err, ErrNoIndex) || (err == nil && !usable) {
		f := Freshness{}
		for _, p := range pkgs {
			f.Stale = append(f.Stale, p.Alias)
		}
		sort.Strings(f.Stale)
		return f, nil
	}
	if err != nil {
		return Freshness{}, err
	}
	indexed := map[string]Package{}
	for _, p := range cat.Packages {
		indexed[p.Alias] = p
	}
	stale := map[string]bool{}
	want := map[string]bool{}
	pkgs = withDirs(r.contextDir, pkgs)
	walks := r.freshWalks(ctx, pkgs, cat.Parts, func(i int) bool {
		ip, ok := indexed[pkgs[i].Alias]
		return !ok || !sameIdentity(ip, pkgs[i])
	})
	if err := ctx.Err(); err != nil {
		return Freshness{}, err
	}
	for i, p := range pkgs {
		want[p.Alias] = true
		ip, ok := indexed[p.Alias]
		if !ok || !sameIdentity(ip, p) || !filesMatch(walks[i], cat.Parts[p.Alias]) {
			stale[p.Alias] = true
		}
	}
	for a := range indexed {
		if !want[a] {
			stale[a] = true
		}
	}
	f := Freshness{BuiltAt: builtAt, Stale: slices.Sorted(maps.Keys(stale))}
	f.Fresh = len(f.Stale) == 0
	for i, w := range walks {
		if w.held > 0 {
			f.Held = append(f.Held, heldBack(pkgs[i], w.held))
		}
	}
	return f, nil
}

// filesMatch compares the stat data of a package's files (w, its walk)
// with its part of the catalogue (partStamp; no part: no files).
func filesMatch(w walkedPackage, part catalogPart) bool {
	if w.stamp != "" {
		return part.File != "" && w.stamp == part.Stamp
	}
	found, err := w.found, w.err
	if err != nil && !isNotExist(err) {
		return false
	}
	if part.File == "" {
		return len(found) == 0
	}
	return partStamp(found) == part.Stamp
}
