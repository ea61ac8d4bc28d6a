// Package indexer parses the markdown of installed context packages, keeps a
// catalogue and a bleve (BM25) search index under .context/index/, and writes
// .context/INDEX.md within a token budget.
//
// This file is the package's contract with its callers (workspace, mcpserver,
// cmd). Keep its signatures stable; put the implementation in other files.
package indexer

import (
	"context"
	"errors"
	"time"
)

// Package is one installed package, as the lockfile describes it. Its files
// are under <contextDir>/packages/<Alias>/.
type Package struct {
	Alias  string
	Source string
	Path   string // sub-path inside the source repository
	Ref    string
	Commit string // 40-hex
}

// DefaultBudgetTokens is INDEX.md's default budget.
const DefaultBudgetTokens = 8000

// Options configure Sync.
type Options struct {
	BudgetTokens int  // INDEX.md budget; 0 means DefaultBudgetTokens
	Rebuild      bool // drop the search index and build it again
	// Warn receives notes about input (broken front matter with file:line,
	// skipped binary or oversized files). May be nil.
	Warn func(msg string)
}

// SyncReport says what Sync did.
type SyncReport struct {
	Added, Updated, Removed, Unchanged int    // documents
	Chunks                             int    // chunks in the index after Sync
	IndexTokens                        int    // INDEX.md size in tokens
	Degraded                           string // "" or what INDEX.md shortened to fit
	Rebuilt                            bool   // the whole index was rebuilt (asked, or schema version changed)
}

// Sync brings the search index, the catalogue and INDEX.md in line with the
// packages on disk: only changed files are re-indexed; packages not in pkgs
// are dropped. Safe to call while readers (ctx search, ctx mcp) in other
// processes are open: they see the new data on their next query.
func Sync(ctx context.Context, contextDir string, pkgs []Package, opts Options) (*SyncReport, error) {
	return nil, errors.New("indexer: Sync not implemented")
}

// Query is a search request.
type Query struct {
	Text     string
	Packages []string // filter: any of these aliases (empty = all)
	Tags     []string // filter: documents with any of these tags (empty = all)
	Limit    int      // 0 means 10
	// BestPerDocument returns only the best chunk of each document.
	BestPerDocument bool
}

// Hit is one search result. Its JSON is ctx search --json's output.
type Hit struct {
	Package string  `json:"package"`
	Path    string  `json:"path"`    // inside the package, slash-separated
	Heading string  `json:"heading"` // heading trail, "A > B > C"
	Lines   [2]int  `json:"lines"`   // first and last line, 1-based, inclusive
	Score   float64 `json:"score"`
	Snippet string  `json:"snippet"` // matched terms marked with **…**
}

// Document is one catalogued markdown file.
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

// Freshness compares the index with the packages on disk.
type Freshness struct {
	Fresh   bool
	BuiltAt time.Time
	Stale   []string // aliases whose files changed, were added or removed since the index was built
}

// Reader answers queries. Opening is cheap (nothing is loaded until the first
// call), so a server can start instantly. A Reader never blocks a writer for
// longer than one call.
type Reader struct {
	contextDir string
}

// OpenReader returns a Reader for <contextDir>/index.
func OpenReader(contextDir string) (*Reader, error) {
	return nil, errors.New("indexer: OpenReader not implemented")
}

// Search runs q. An index that does not exist yet returns an error that says
// to run `ctx index`.
func (r *Reader) Search(ctx context.Context, q Query) ([]Hit, error) {
	return nil, errors.New("indexer: Search not implemented")
}

// Documents returns the catalogue of one package (or all, for ""), sorted by
// package then path.
func (r *Reader) Documents(alias string) ([]Document, error) {
	return nil, errors.New("indexer: Documents not implemented")
}

// Freshness reports whether the index matches pkgs and their files on disk.
// It must be cheap (stat, not read) so it can run before every MCP call.
func (r *Reader) Freshness(pkgs []Package) (Freshness, error) {
	return Freshness{}, errors.New("indexer: Freshness not implemented")
}

// Close releases what the Reader holds.
func (r *Reader) Close() error { return nil }

// Heading is one markdown heading (ATX or setext; never inside a code fence).
type Heading struct {
	Level int    // 1–6
	Text  string // without #s and trailing #s
	Line  int    // 1-based line of the heading (for setext, the text line)
}

// Outline returns the headings of a markdown document in order. Front matter
// is skipped. Used to cut sections (get_section).
func Outline(content []byte) []Heading {
	return nil
}
