package indexer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/lazyre"
	"github.com/ctx-dev/ctx/internal/lockwait"
)

// bleveDirRE is what meta.json may name as the live bleve directory: one
// that Sync made, never a path elsewhere.
var bleveDirRE = lazyre.New(`^bleve-[0-9]+$`)

// Layout of <contextDir>/index/:
//
//	.write.lock   flock held by the one writer (Sync) at a time
//	.writing      present while Sync has the live bleve directory open read-write
//	meta.json     {"schema", "generation", "bleve", "builtAt", "chunks"}: which
//	              bleve directory is live; rewritten (temp file + rename) at the
//	              end of every Sync that changed something
//	catalog.json  the top of the catalogue (catalog.go): the packages
//	              indexed and, per package, the name and a summary of its
//	              part file
//	catalog/<hash>.json
//	              one package's part of the catalogue: per file, size,
//	              mtime, content hash, chunk count, and the document's
//	              title, summary, tags, type, line count, front matter
//	              (typed) and links as written: the link graph and
//	              metadata store (graph.go)
//	inlinks.json  {"graph", "docs"}: per package and path, how many other
//	              documents of the package link to the document (the
//	              in-link prior, inlinks.go), counted from the link graph
//	              the catalogue records as InLinks
//	versions.bin  the versioned copies of
//	              each package's pages (versions.go), found by publish
//	              from the catalogue's records and named by meta.json's
//	              Versions (versionsrec.go)
//	indexmd-tokens.json
//	              the token counts of INDEX.md's sections at the last
//	              render, by the hash of their text (a cache: costMemo)
//	walks.bin     the folders, .gitignore files and documents of each
//	              package's last full walk found fresh, for the next
//	              freshness check (a cache, written by Freshness:
//	              walkrecord.go)
//	bleve-<gen>/  the bleve (scorch) index named by meta.json
//	.bleve-<gen>.lock
//	              flock a Reader holds (shared) while it opens bleve-<gen>;
//	              a writer deletes a replaced directory only when it can
//	              take this lock exclusively
//
// schemaVersion covers the catalogue format, the bleve mapping and the
// parsing and chunking rules: when it changes, Sync rebuilds everything.
const schemaVersion = 32 // 10: trails keep <…>, drop HTML comments, number duplicates; chunks from markdown.Doc.Chunks; 11: text, rst, AsciiDoc, YAML, JSON and TOML documents; 12: the catalogue in one part file per package; 13: titles from the first heading of any level or an MDX export, heading-ID markers and rst roles stripped; 14: navigation chunks (fNav); 15: rst and AsciiDoc links, rst labels; 16: version numbers' shorter forms (versionForms); 17: HashiCorp heading anchor aliases ((#id)) stripped, front matter page_title before a first heading that is not an H1, lower-case "migrate"/"upgrade" file names not a kind; 18: the stemmer with a memo (ctx_stem) in the mapping; 19: document kinds from headings and titles too (deprecation notices, version-heading changelogs, migrate/ and upgrade/ folders); 20: AsciiDoc two-line titles and multi-line MDX tags and imports indexed as a reader sees them; 21: an .mdx heading's JSX tags are not its text (markdown.IsMDX); 22: rst chunks and summaries read by one rst reader (markdown.Doc.RST): roles and hyperlinks indexed as their text, code as written; 23: rst navigation chunks read by the rst reader (navRST); 24: raw rst roles and directive heads keep their backslashes, a wrapped directive head indexed as one block (RSTLine.Cont); 25: rst list items written without blank lines read as blocks of their own (RSTLine.Item), a literal block after a directive head that ends with "::", escaped tabs as spaces, a hidden toctree not shown; 26: rst enumerated list items only where docutils starts them (the next line blank, indented or the next enumerator), a directive head's literal block found however far its content's least indent is, a hidden toctree's caption not shown, a text block's lines flush with its left edge (a list item's: its text's column, after an enumerator on the marker's line only where docutils starts an item there; a field's body and an option's description flush with the least indent after their marker, a field ended by a line at its indent, a line block's line going on through every deeper line), a quoted literal block only after a blank line, "::" alone ends the enumerated lists at its indent; 27: rst content at once after the marker of a directive that takes no arguments (".. note::⏎   text": prose, items, nested blocks), a field, option or line block on a list item's marker line read at its text column, tabs expanded before an option's marker, a doctest ends the enumerated lists at its indent, a one-line "a::" (or "::") then a deeper line a definition list's term, a line block's "::" text, a no-argument directive's marker-line text its content's first line (its later lines prose), a paragraph's next line its text whatever it starts with (".. x::", ">>>"), a quoted literal block only the lines starting with its quote character; 28: a blank line ends a directive's head (its options) however deep in its content, a no-argument directive's options only at its content's indent, epigraph, highlights, pull-quote, header, footer and acks with no options (a field there shown), an option alone on an item's marker line text, a field body's bullet list for every bullet; 29: release announcements titled NAME-VERSION Release, a version's page with a "What's new" section (docKind); 30: a document whose title is not its front matter's takes the title of the Hugo bundle page that includes it whole (bundle.go), the bundle page stamped as its side file; 31: a fence indented into a list item is a fence (markdown.Scan's list items, polish23): its blank lines no longer split chunks, its lines are code, not headings or prose; 32: a heading line never ends a piece of a long section split by size, it opens the paragraph after it (markdown.appendChunks)

const (
	metaFile    = "meta.json"
	catalogFile = "catalog.json"
	lockFile    = ".write.lock"
	// writingMarker exists while a Sync has the live bleve directory open
	// for writing.
	writingMarker = ".writing"
)

type meta struct {
	Schema     int       `json:"schema"`
	Generation int64     `json:"generation"`
	Bleve      string    `json:"bleve"`
	BuiltAt    time.Time `json:"builtAt"`
	Chunks     int       `json:"chunks"`
	// Tokens is the number of analysed tokens of the scored field over all
	// chunks: the real average length for BM25 (see bm25Stats).
	Tokens int64 `json:"tokens"`
	// HeadTokens is the number of tokens of the heading field (title and
	// heading trail) over all chunks, part of Tokens (see bm25f.go).
	HeadTokens int64 `json:"headTokens,omitempty"`
	// TitleTokens is the number of tokens of the title field (the
	// document's title, with each of its chunks) over all chunks.
	TitleTokens int64 `json:"titleTokens,omitempty"`
	// Versions names the versioned copies recorded for this generation
	// (versions.bin's ID, versionsrec.go); "" when none are (an index
	// written before them, or with a package whose records carry no kinds):
	// a search finds them in the snapshot then.
	Versions string `json:"versions,omitempty"`
	// Dirty is set while an incremental Sync changes the live directory;
	// finding it set means one was interrupted, and the next Sync rebuilds.
	Dirty bool `json:"dirty,omitempty"`
}

// fileRecord is what the catalogue knows of one document.
type fileRecord struct {
	Path string `json:"path"`
	// PathBytes is Path's bytes when they are not UTF-8 (a file name is
	// any bytes on Linux), which JSON cannot hold: encoding/json writes
	// each as U+FFFD, so the recorded path was never the file's and every
	// Sync removed and added the document again (red23). readPart takes
	// Path from it; processFile sets it. As the state file's pathBytes
	// (workspace's fileState).
	PathBytes   []byte   `json:"pathBytes,omitempty"`
	Size        int64    `json:"size"`
	ModNS       int64    `json:"mtime"`
	CNS         int64    `json:"ctime,omitempty"` // inode change time (see fileid)
	Ino         uint64   `json:"ino,omitempty"`
	Hash        string   `json:"hash"`
	Chunks      int      `json:"chunks"`
	Tokens      int64    `json:"tokens,omitempty"`      // analysed tokens of its chunks' scored text
	HeadTokens  int64    `json:"headTokens,omitempty"`  // of which in their heading field (title and trail)
	TitleTokens int64    `json:"titleTokens,omitempty"` // in their title field
	Skipped     string   `json:"skipped,omitempty"`     // why the file is not indexed
	Title       string   `json:"title,omitempty"`
	Summary     string   `json:"summary,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	Type        string   `json:"type,omitempty"`
	Lines       int      `json:"lines"`
	// Kind is the document's kind (docKind) when it has one; kinds says
	// the record carries it (parsed by this ctx, or read from a part whose
	// records all do: catalogPart.Kinds). A record of an older ctx has no
	// kind recorded, whatever its document's.
	Kind  string `json:"kind,omitempty"`
	kinds bool
	// KEP is the stat data of the kep.yaml read as this README's metadata.
	KEP *sideStamp `json:"kep,omitempty"`
	// Bundle is the stat data of the bundle page read with this document
	// (bundleOf), whose title it may take (bundle.go).
	Bundle *sideStamp `json:"bundle,omitempty"`
	// Meta is the normalised front matter (with kep.yaml's fields), as
	// encodeMeta stores it; Links the document's links as written
	// (links.go), resolved when read (graph.go).
	Meta  map[string]any `json:"meta,omitempty"`
	Links []rawLink      `json:"links,omitempty"`
	// Labels are the rst labels the document defines, the targets of
	// :ref: links (LinkRef).
	Labels []string `json:"labels,omitempty"`

	metaDecoded bool // Meta holds Date values (typedMeta), in a Reader's copy only
	// raw is the record's bytes in the part it was read from (readPart),
	// which encodePart copies instead of encoding the record again. Whoever
	// changes a field of a record read from a part sets it to nil.
	raw []byte
}

// catalog is the top of the catalogue (catalog.go) and the parts read so
// far.
type catalog struct {
	Schema   int                    `json:"schema"`
	Packages []Package              `json:"packages"`
	Parts    map[string]catalogPart `json:"parts"` // alias → its part (packages with records)
	// Bleve is the bleve directory the catalogue describes: one that is
	// not meta.json's (a crash between writing the two) means a rebuild.
	Bleve   string       `json:"bleve"`
	IndexMD indexMDState `json:"indexMD"`
	// InLinks is the link graph (linkGraphInput) inlinks.json was
	// counted from.
	InLinks string `json:"inLinks,omitempty"`

	Files map[string][]fileRecord `json:"-"` // alias → records sorted by path, of the parts read (records)
	graph *graph                  // the link graph of Files, all parts read (linkGraph)
	// keepRaw makes records keep each record's bytes (fileRecord.raw): set
	// by a Sync's plan, which writes the parts it reads again; a Reader's
	// catalogue keeps only the records.
	keepRaw bool
}

// indexMDState records what INDEX.md was last rendered from.
type indexMDState struct {
	Input    string `json:"input"` // indexInputHash
	Tokens   int    `json:"tokens"`
	Degraded string `json:"degraded,omitempty"`
	// Graph is linkGraphInput of the catalogue, InDegrees the hash of its
	// documents' in-degrees: while Graph is the same, so are they.
	Graph     string `json:"graph,omitempty"`
	InDegrees string `json:"inDegrees,omitempty"`
}

func (r fileRecord) document(alias string) Document {
	return Document{
		Package:  alias,
		Path:     r.Path,
		Title:    r.Title,
		Summary:  r.Summary,
		Tags:     r.Tags,
		Type:     r.Type,
		Size:     r.Size,
		Lines:    r.Lines,
		Modified: time.Unix(0, r.ModNS).UTC(),
	}
}

// dirLockPath is the flock file that guards bleve directory name against
// deletion while a Reader opens it.
func dirLockPath(indexDir, name string) string {
	return filepath.Join(indexDir, "."+name+".lock")
}

// removeBleveDir deletes a bleve directory that is no longer live, unless a
// Reader is opening it right now; it then stays for the next Sync. (A Reader
// that has it open already keeps reading: on Unix, deleted files live until
// closed.)
func removeBleveDir(d confine.Dir, indexDir, name string) {
	lp := dirLockPath(indexDir, name)
	if d.Check(lp) != nil {
		return
	}
	l := lockwait.File(lp)
	ok, err := lockwait.Exclusive(context.Background(), l, 0)
	if err != nil || !ok {
		return
	}
	defer l.Close()
	if err := d.RemoveAll(filepath.Join(indexDir, name)); err == nil {
		d.Remove(lp)
	}
}

// tryRLock takes a shared flock on the lock file p without needing to
// write: it opens an existing lock file read-only, creates a missing one
// when it can, and goes on without the lock (ok, nothing to release) when
// the index directory cannot be written (a read-only project, a container
// mount): no writer can change that directory either.
//
// The lock file is opened as lockwait opens one (lockwait.Existing, then
// lockwait.File to create it): a link there is refused, not followed, and
// a fifo is not waited on (red22: a fifo in index/, from a tar archive of
// a project, hung every search).
func tryRLock(d confine.Dir, p string) (release func(), ok bool, err error) {
	l := lockwait.Existing(p)
	ok, err = lockwait.Shared(context.Background(), l, 0)
	if errors.Is(err, fs.ErrNotExist) {
		if err := d.Check(p); err != nil {
			return nil, false, err
		}
		l = lockwait.File(p)
		ok, err = lockwait.Shared(context.Background(), l, 0)
		if err != nil && confine.CannotWrite(err) {
			return func() {}, true, nil
		}
	}
	if err != nil || !ok {
		l.Close()
		return nil, false, err
	}
	return func() { l.Close() }, true, nil
}

// readJSON decodes the index's own JSON file at path into v. It decodes
// with jsonfile.Unmarshal (segmentio's decoder, encoding/json's result and
// message when that refuses the file): a search process decodes meta.json,
// meta.own.json, catalog.json and inlinks.json each for the first time,
// and encoding/json took 341 µs for the four where jsonfile.Unmarshal
// takes 246 (bench/README.md, start22).
func readJSON(path string, v any) error {
	b, err := readIndexFile(path)
	if err != nil {
		return err
	}
	if err := jsonfile.Unmarshal(b, v); err != nil {
		return &DamagedFileError{Path: path, Err: err}
	}
	return nil
}

// maxIndexFileBytes bounds a read of one of the index's own files
// (readIndexFile): far above any the indexer writes (a catalogue part of
// bench/scale's 10× corpus is a few MB), so only a planted or sparse file
// meets it.
const maxIndexFileBytes = 1 << 30

// readIndexFile reads one of the index's own files whole, bounded
// (internal/boundedfile: a regular file only, never waiting on a fifo, at
// most maxIndexFileBytes). index/ is ctx's, but a project unpacked from a
// tar archive keeps fifos, and a plain read of one hung every search and
// every index update for ever (red23). A file that is not regular, or
// over the bound, is a DamagedFileError (its hint: `ctx index --rebuild`;
// Sync rebuilds; the readers of caches take it as absent, and the next
// write replaces it by rename).
func readIndexFile(path string) ([]byte, error) {
	b, err := boundedfile.ReadFile(path, maxIndexFileBytes)
	if be, ok := errors.AsType[*boundedfile.Error](err); ok {
		what := boundedfile.Describe(be.Mode)
		if be.Kind == boundedfile.ErrTooLarge {
			what = fmt.Sprintf("more than the %d bytes ctx reads of it", be.Max)
		}
		return nil, &DamagedFileError{Path: path, Err: fmt.Errorf("%w (%s)", be.Kind, what)}
	}
	return b, err
}

// DamagedFileError is a file of the index that ctx cannot use (cut short,
// edited, of another shape): its message names the file, says what is
// wrong and how to recreate it. `ctx index` rebuilds such an index itself
// (rebuildNote says so, with no hint), and `ctx search` adds no hint of
// its own to this one's.
type DamagedFileError struct {
	Path string
	Err  error
}

func (e *DamagedFileError) Error() string {
	return fmt.Sprintf("%s: %v (run `ctx index --rebuild` to recreate it)", e.Path, e.Err)
}

func (e *DamagedFileError) Unwrap() error { return e.Err }

// rebuildNote is the warning of a Sync that rebuilds the index because err
// (reading its files) says it is damaged: the file and what is wrong,
// then what ctx does; not DamagedFileError's hint to run `ctx index`.
func rebuildNote(err error) string {
	if d, ok := errors.AsType[*DamagedFileError](err); ok {
		return fmt.Sprintf("%s: %v; rebuilding the index", d.Path, d.Err)
	}
	return fmt.Sprintf("%v; rebuilding the index", err)
}

// writeFileAtomic writes data to path (inside d) through a temporary file,
// fsync and rename, so a reader sees the old or the new file, never a torn
// one.
func writeFileAtomic(d confine.Dir, path string, data []byte) error {
	return d.WriteFileAtomic(path, data, 0o644)
}

func writeJSONAtomic(d confine.Dir, path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeFileAtomic(d, path, append(b, '\n'))
}
