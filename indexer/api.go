// Package indexer parses the markdown of installed context packages, keeps a
// catalogue and a bleve (BM25) search index under .context/index/, and writes
// .context/INDEX.md within a token budget.
//
// Parsing (markdown.go, parse.go, over the document model of package
// indexer/markdown): every .md, .markdown and .mdx file under each
// package's Dir (<contextDir>/packages/<alias>/, or a dir source's folder
// in place, or its one file; hidden files and folders are skipped,
// symlinks are not followed; files over 2 MB or with NUL bytes are skipped
// with a note). Front matter may be YAML (---),
// TOML (+++) or JSON ({ … }); broken front matter is reported with file:line
// and the body is indexed anyway. Title: front matter, else the first H1,
// else the file name. Summary: front matter summary/description, else the
// first paragraph of a Summary/Overview/Abstract section, else the first
// paragraph of prose. Tags: front matter tags and keywords, else a
// "Tags: a, b" line.
//
// Chunks follow H1–H3 headings and carry their heading trail and line range;
// near-empty sections join a neighbour, long ones are split at paragraph
// (then line) boundaries under 4,000 bytes; every non-blank line of the body
// is in exactly one chunk.
//
// Search (query.go, bleve.go, bm25f.go, reader.go, snippet.go): the query
// syntax ("phrase", -word, package:, path:, tag:, kind:), bleve picks
// candidates, BM25F ranks them over two fields (the heading trail with the
// title, and the body; English stemming, stop words kept); package, path
// and tags are keyword filters. Snippets are cut around the densest cluster
// of query terms, matched words marked **like this**.
//
// Storage and concurrency (store.go, sync.go): see the comments there. In
// short: one writer at a time (flock), full rebuilds into a fresh directory
// switched atomically, incremental updates in place, readers that open
// read-only per call and step aside for a writer.
//
// INDEX.md (indexmd.go): counted with the o200k tokenizer, never over the
// budget, degraded package by package (summaries → first sentences → titles
// → per-folder counts with example titles → per-folder counts → not listed)
// with a note saying so.
//
// This file holds the package's types shared with its callers (workspace,
// mcpserver, cmd). The functions of the contract live in sync.go (Sync),
// reader.go (OpenReader, Reader: Search, Documents, Freshness, Close). The
// document model (lines, outline, sections, which files are documents) is
// package indexer/markdown, shared with mcpserver.
package indexer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/tokens"
	"github.com/ctx-dev/ctx/project"
)

// Package is one installed package or dir source (the list comes from
// project.Project.Installed). Its files are under its Dir (only its Only
// file when set); a Package with no Dir is a locked package under
// <contextDir>/packages/<Alias>/.
type Package = project.Package

// Prepare loads what Sync may need (the tokenizer's vocabulary: about 50
// ms of CPU), so a caller can do it while it waits on the network; not
// when the index under contextDir keeps the counts of INDEX.md's pieces
// (tokensFile), which most renders need alone: a render that meets a
// piece they do not hold loads the vocabulary then.
func Prepare(contextDir string) {
	if _, err := os.Stat(filepath.Join(contextDir, project.IndexDir, tokensFile)); err == nil {
		return
	}
	tokens.Codec()
}

// DefaultBudgetTokens is INDEX.md's default budget.
const DefaultBudgetTokens = 8000

// DefaultSearchLimit is Query.Limit when 0.
const DefaultSearchLimit = 10

// Options configure Sync.
type Options struct {
	BudgetTokens int  // INDEX.md budget; 0 means DefaultBudgetTokens
	Rebuild      bool // drop the search index and build it again
	// DeferIndexMD makes Sync publish the search index and the catalogue
	// without rendering INDEX.md (the most of a small re-index's work:
	// it reads every part of the catalogue). The catalogue still records
	// what INDEX.md was last rendered from, so RenderIndexMD, or the next
	// Sync of any kind, renders it; SyncReport's IndexTokens and Degraded
	// are then the last render's. For ctx mcp's re-index of an edit.
	DeferIndexMD bool
	// Packages, when set, is called by Sync once it holds the index's
	// lock, and what it returns is indexed instead of Sync's pkgs: the
	// project as it is after any other writer of the index has finished.
	// For ctx mcp, whose re-index starts from a view read earlier: a
	// `ctx add` or `git add` since (another ctx writes the manifest and
	// the lock before it takes the index's lock) must not be undone by
	// the server's older view.
	Packages func() []Package
	// Recent, when set, is called before INDEX.md is rendered, and what it
	// returns is recorded as what the last update changed (NoteRecent's
	// record), so that the one render shows it: an update's summary
	// without a second render of INDEX.md (issue 31). An empty list
	// leaves the record as it is. A record that cannot be written is a
	// warning. A Stream's Finish calls it on a goroutine of its own, while
	// it writes the search index (startNoteRecent).
	Recent func() []RecentChange
	// Warn receives notes about input (broken front matter with file:line,
	// skipped binary or oversized files). May be nil.
	Warn func(msg string)

	// batchDocs, when above 0, is the chunks a batch of the search index
	// holds at most (batchDocs): tests make a full build of a few files
	// write several segments.
	batchDocs int
	// compactMax, when above 0, replaces compactMaxChunks: tests build a
	// few chunks and check the bound.
	compactMax int
	// afterRead, when set, is called by a Stream's worker after it has read
	// a landed package: tests change a file after that read.
	afterRead func(alias string)
	// afterOpen, when set, is called by a Stream's worker after it has
	// tried to open the live directory early (Stream.openEarly); tests.
	afterOpen func()
	// beforeMeta, when set, is called by publish after the catalogue is
	// written and before the durability pass and meta.json: an error
	// stops publish there, as a crash would (tests).
	beforeMeta func() error
	// durableSynced, when set, is called by the durability pass (durable)
	// with the files it synced, once they are (tests).
	durableSynced func(paths []string)
	// writerBolt, when above 0, replaces writerBoltTimeout, the writer's
	// wait for readers' bolt locks: tests.
	writerBolt time.Duration
}

// SyncReport says what Sync did.
type SyncReport struct {
	Added, Updated, Removed, Unchanged int    // documents
	Chunks                             int    // chunks in the index after Sync
	IndexTokens                        int    // INDEX.md size in tokens
	Degraded                           string // "" or what INDEX.md shortened to fit
	Rebuilt                            bool   // the whole index was rebuilt (asked, or schema version changed)

	merged     bool // the rebuild was merged into one segment (tests: scorch's own merger may merge too, when it likes)
	foldedSegs int  // segments scorch's merges of a rebuild took in, compact's included (tests)
	batches    int  // batches written: scorch made a segment of each (tests)
}

// Query length caps: a search takes at most MaxQueryBytes of text and at
// most MaxQueryTerms words, whichever comes first. A query of 100,000 words
// took 14.9 s and 476 MB; one at the cap takes well under a second.
const (
	MaxQueryBytes = 8 << 10
	MaxQueryTerms = 1000
	// MaxQueryFilters bounds each filter list of a Query (packages, kinds,
	// tags, paths): an MCP client's 60,000 tags cost 5.3 s of CPU
	// (review18a), each one a term query of its own.
	MaxQueryFilters = 100
)

// checkFilters refuses a Query with more than MaxQueryFilters values in
// one of its filter lists (ErrQueryTooLong).
func checkFilters(q Query) error {
	for _, f := range []struct {
		name string
		n    int
	}{{"packages", len(q.Packages)}, {"kinds", len(q.Kinds)}, {"tags", len(q.Tags)}, {"paths", len(q.Paths)}} {
		if f.n > MaxQueryFilters {
			return fmt.Errorf("%w: %d %s, more than the %d a search takes; name a few, or none for all", ErrQueryTooLong, f.n, f.name, MaxQueryFilters)
		}
	}
	return nil
}

// ErrQueryTooLong is returned (wrapped) by CheckQuery and Search for a query
// over the caps.
var ErrQueryTooLong = errors.New("query too long")

// CheckQuery refuses a query text over MaxQueryBytes bytes or MaxQueryTerms
// words (runs of non-space characters), leading and trailing space aside
// (ErrQueryTooLong), and one with a qualifier the query syntax does not
// take (ErrUnknownKind: checkQualifiers). It is the one place the rules
// live: Search applies it, and the CLI and the MCP server call it to
// refuse a query before they do any work.
func CheckQuery(text string) error {
	text = strings.TrimSpace(text)
	if n := len(text); n > MaxQueryBytes {
		return fmt.Errorf("%w: %d bytes, more than the %d (8 KB) a search takes; search for a few distinctive words or a phrase, not a whole document", ErrQueryTooLong, n, MaxQueryBytes)
	}
	if n := len(strings.Fields(text)); n > MaxQueryTerms {
		return fmt.Errorf("%w: %d words, more than the %d a search takes; search for a few distinctive words or a phrase, not a whole document", ErrQueryTooLong, n, MaxQueryTerms)
	}
	return checkQualifiers(parseQuery(text))
}

// Query is a search request.
type Query struct {
	Text     string
	Packages []string // filter: any of these aliases (empty = all)
	Kinds    []string // filter: packages of any of these kinds (project.KindGit, KindDir, KindHTTPS; empty = all)
	Tags     []string // filter: documents with any of these tags (empty = all)
	Paths    []string // filter: documents whose path inside the package starts with any of these (as path:PREFIX; empty = all)
	Limit    int      // 0 means DefaultSearchLimit
	// BestPerDocument returns only the best chunk of each document.
	BestPerDocument bool

	// ids, when not nil, restricts the search to these chunks, with no
	// words scored: the filters, phrases and exclusions of Text only
	// (SearchHybrid's semantic half).
	ids []string
}

// Hit is one search result. Its JSON is ctx search --json's output.
type Hit struct {
	Package string   `json:"package"`
	Path    string   `json:"path"`    // inside the package, slash-separated
	Heading string   `json:"heading"` // heading trail, "A > B > C"
	Lines   [2]int   `json:"lines"`   // first and last line, 1-based, inclusive
	Score   float64  `json:"score"`
	Tags    []string `json:"tags,omitempty"` // the document's tags
	Snippet string   `json:"snippet"`        // matched terms marked with **…**
	// More, in a BestPerDocument search, is how many other chunks of the
	// document were among the chunks ranked (the best few hundred that
	// hold the query's words): the document's other matching sections,
	// which a search of all chunks with a path: filter lists.
	More int `json:"more,omitempty"`
	// Versions are the other versions the page exists in, when the
	// package keeps a copy of it per release (versions.go): current
	// copies first ("current" for the unversioned one, or main, next…),
	// then newest first, at most maxOtherVersions. The search gives one
	// copy of a page.
	Versions []string `json:"versions,omitempty"`

	id     string // the chunk's (chunkID)
	family string // the page's versioned copies' family (versionCopy.family), if any
}

// Document is one catalogued document (any format markdown.FormatOf names).
type Document struct {
	Package  string    `json:"package"`
	Path     string    `json:"path"`
	Title    string    `json:"title"`
	Summary  string    `json:"summary,omitempty"`
	Tags     []string  `json:"tags,omitempty"`
	Type     string    `json:"type,omitempty"`
	Size     int64     `json:"size"`
	Lines    int       `json:"lines"`
	Modified time.Time `json:"modified"`
}

// Behind says why an index that is behind what (the packages whose files
// changed since it was built) could not be brought up to date, and what to
// do: a read-only project, or err from the re-index. It is the one wording
// of ctx search's warning and the MCP server's note.
func Behind(what string, err error) string {
	if confine.CannotWrite(err) {
		return fmt.Sprintf("results may be stale: %s changed since the index was built, and the project is read-only, so ctx cannot re-index it here; run `ctx index` where it can be written", what)
	}
	return fmt.Sprintf("results may be stale: %s changed since the index was built, and re-indexing failed (%s); run `ctx index`", what, safetext.Text(err.Error()))
}

// Freshness compares the index with the packages on disk.
type Freshness struct {
	Fresh bool
	// BuiltAt is when the index was last written; zero when there is none,
	// or none this ctx can read (another schema's): every alias is stale.
	BuiltAt time.Time
	Stale   []string // aliases whose files changed, were added or removed since the index was built
	// Held says, one line a package in pkgs' order, how many documents
	// git does not track the check's walk held back in each committed
	// dir source (the warning Sync gives: the same every check while no
	// file is added or tracked; from the walk record, without a walk).
	Held []string
}
