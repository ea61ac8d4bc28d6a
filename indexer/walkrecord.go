package indexer

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/indexer/walkrec"
	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/fileid"
)

// The walk record (index/walks.bin) lets the freshness check (Freshness)
// stat a package's documents without reading its folders again. A full
// walk of a package that matched its part of the catalogue records what
// the walk's result depended on (markdown.WalkOptions.Seen): every folder
// it entered with its stat data, taken before its entries were read, and
// the .gitignore files it consulted (a dir source's), with the documents
// it found. A folder's stat data move when an entry is added, removed or
// renamed in it (not when a file in it is written in place), so while
// every recorded folder and .gitignore keeps its stamp, a walk would find
// the same documents: the next check stats those alone (a write in place
// shows in its own stat data, as before) and compares them with the
// part's stamp, as after a full walk. A folder or .gitignore that moved,
// a part rebuilt since, a walk with a warning: the full walk, as before.
// How many documents git does not track the walk held back (a committed
// dir source's: heldBack) is recorded too, not taken for a warning: the
// tracked set is in the record's key (walkKey) and an untracked document
// added or removed moves its folder's stamp, so while the record holds
// the count does too, and the check says it again without a walk.
//
// A folder changed in the same tick of the file system's clock as its
// recorded stamp was taken can keep every field of it; fileid.Proves
// takes the record's time for that, and the record takes it
// walkRecordSettle before its walk started, so that only folders whose
// last change was well before the walk (coarse clocks, file systems that
// keep whole seconds) are trusted.
//
// The file is a cache: written by the check (not under the project lock:
// through confine, atomically, and only when it adds a package) and by
// nothing else; one that cannot be read, of another version or that does
// not match the catalogue is the full walk. A read-only project keeps
// none.
const walkRecordFile = "walks.bin"

// walkRecordSettle is how long before a walk starts a folder's last change
// must be for its stamp in the record to be trusted.
const walkRecordSettle = 3 * time.Second

// seenStat is one folder or .gitignore a recorded walk read (the
// record's format: walkrec).
type seenStat = walkrec.Seen

// pkgWalk is one package's recorded walk.
type pkgWalk struct {
	alias string
	key   string // walkKey of the package: its folder and the walk's options
	stamp string // the part's stamp the walk matched
	at    int64  // unix nanoseconds: a stamp proves nothing unless its ctime is before this
	seen  []seenStat
	docs  []string // the documents found, sorted
	held  int      // documents the walk held back (walkPackage)
}

// walkKey names what a package's walk depends on besides its files: its
// folder, its walk's options (WalkOptions) and the files git tracks of a
// committed dir source (project.Tracked's key: a `git add` is a new key,
// so a full walk).
func walkKey(pkg Package) string {
	o := WalkOptions(pkg)
	above := ""
	if o.Above != nil {
		above = pkg.Project + "\x00" + o.Above.Path
	}
	tracked := ""
	if pkg.Tracked != nil {
		tracked = pkg.Tracked.Key()
	}
	return strings.Join([]string{pkg.Dir, pkg.Only, above, boolStr(o.Gitignore), i64s(int64(o.MaxFiles)), i64s(o.MaxBytes), tracked}, "\x00")
}

func boolStr(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func i64s(n int64) string { return strconv.FormatInt(n, 10) }

// walkRecordVersion is what a record must have been written with.
func walkRecordVersion() string {
	return walkrec.Magic + i64s(schemaVersion) + " " + strings.Join(markdown.Extensions(), ",") + "\n"
}

// recorder collects what one package's walk read (markdown.WalkOptions.Seen).
type recorder struct {
	mu   sync.Mutex
	seen []seenStat
	bad  bool // a folder whose stat data could not be taken
}

func (c *recorder) add(s markdown.Seen) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.Info == nil {
		if s.Dir {
			c.bad = true
			return
		}
		if !s.Above {
			return // a folder's .gitignore that is not there: adding one moves the folder's stamp
		}
		c.seen = append(c.seen, seenStat{Path: s.Path, Above: true, Absent: true})
		return
	}
	c.seen = append(c.seen, seenStat{Path: s.Path, Above: s.Above, St: fileid.Of(s.Info)})
}

// record makes the walk record of pkg from its full walk w (recorded by
// c, started at start; settle is walkRecordSettle), which matched stamp; ok is false when the walk
// cannot be trusted later: a warning, a folder without stat data or one
// changed too close to the walk.
func (c *recorder) record(pkg Package, w walkedPackage, stamp string, start time.Time, settle time.Duration) (pkgWalk, bool) {
	at := start.Add(-settle).UnixNano()
	if c.bad || len(w.notes) > 0 || w.err != nil || stamp == "" {
		return pkgWalk{}, false
	}
	for _, s := range c.seen {
		if !s.Absent && !s.St.Proves(s.St, at) {
			return pkgWalk{}, false
		}
	}
	docs := make([]string, len(w.found))
	for i, f := range w.found {
		docs[i] = f.rel
	}
	return pkgWalk{alias: pkg.Alias, key: walkKey(pkg), stamp: stamp, at: at, seen: c.seen, docs: docs, held: w.held}, true
}

// unmoved reports whether every folder and .gitignore rec's walk read is
// as it was then, proven by its stamp (fileid.Proves). Those in the
// package folder are stat'ed through tr (its Tree: from the open folder),
// the folder itself followed as fs.WalkDir stats its root; pre, when not
// nil, is their stat data in the record's order, taken by the early walk
// (indexer/prewalk) from the same folder (those above it are stat'ed
// here). A folder of
// the record that became a link is a stamp that moved: so the documents
// statDocs stats next are in the folders the walk found.
func (rec *pkgWalk) unmoved(pkg Package, tr *fileid.Tree, pre []fileid.Lstated) bool {
	for i, s := range rec.seen {
		var now fileid.Stamp
		var err error
		switch {
		case s.Above:
			var fi fs.FileInfo
			if fi, err = os.Lstat(filepath.Join(pkg.Project, filepath.FromSlash(s.Path))); err == nil {
				now = fileid.Of(fi)
			}
		case pre != nil:
			now, err = pre[i].St, pre[i].Err // the early walk's (prewalk)
		default:
			now, _, err = tr.Lstat(s.Path) // "." follows the folder, as os.Stat
		}
		if s.Absent {
			if !errors.Is(err, fs.ErrNotExist) {
				return false
			}
			continue
		}
		if err != nil || !s.St.Proves(now, rec.at) {
			return false
		}
	}
	return true
}

// statDocs stats the documents of rec in the package folder dir, as
// walkMarkdown does those it finds, and gives the stamp of those it found
// with their side files (partStamp's of the same fileStats, sideStamps'
// rules): a document gone or no longer a regular file is left out (the
// stamp then differs from the part's). pre, when not nil, is the batch of
// the documents the early walk (indexer/prewalk) started in dir; else
// one is made here. No fileStat is kept: the check
// compares the stamp only, and a package's thousands of fileStats were
// the check's largest allocation (each new page of memory is a page
// fault, ~15 µs on the VM of bench/README.md).
func (rec *pkgWalk) statDocs(dir string, tr *fileid.Tree, pre *fileid.Batch) string {
	if pre == nil {
		pre = fileid.NewBatch(dir, rec.docs)
	}
	stats := rec.docStamps(pre)
	st := newStamp()
	rel := func(k int) string { return rec.docs[k] }
	there := func(k int) bool { return stats[k].Err == nil && stats[k].Regular }
	listed := func(k int) (*sideStamp, bool) {
		if !there(k) {
			return nil, false
		}
		return sideOf(stats[k].St, true, nil), true
	}
	sideStat := func(p string) *sideStamp { return sideOf(tr.Lstat(p)) }
	for i, d := range rec.docs {
		if there(i) {
			s := stats[i].St
			bundle, _ := bundleOf(i, len(rec.docs), rel, listed)
			st.add(d, s.Size, s.MTime, s.CTime, s.Ino, kepOf(i, len(rec.docs), rel, listed, sideStat), bundle)
		}
	}
	return st.sum()
}

// docStamps is the stat data of rec's documents, in the record's order,
// from b, their batch (fileid.Batch: each stat'ed from the open package
// folder, whole paths' lookups were a quarter of a search process's
// samples, and no path is built), stat'ed by the caller and up to three
// goroutines more, one a run of 256 documents (a run of fewer is not
// worth a goroutine), beside what else stats it (the early walk).
func (rec *pkgWalk) docStamps(b *fileid.Batch) []fileid.Lstated {
	const workers, least = 4, 256
	return b.Wait(max(1, min(workers, len(rec.docs)/least)) - 1)
}

// encodeWalks writes the records (walkrec's format), sorted by alias.
func encodeWalks(recs map[string]pkgWalk) []byte {
	out := make(map[string]walkrec.Rec, len(recs))
	for a, r := range recs {
		out[a] = walkrec.Rec{Alias: r.alias, Key: r.key, Stamp: r.stamp, At: r.at, Seen: r.seen, Docs: r.docs, Held: r.held}
	}
	return walkrec.Encode(walkRecordVersion(), out)
}

// errWalkRecord is a walk record that cannot be read: ignored.
var errWalkRecord = walkrec.ErrRecord

// decodeWalks reads what encodeWalks wrote (walkrec.Decode, of this
// version); any fault is errWalkRecord. The records' strings are b's
// bytes, so b must not change while the records are used: readWalks
// hands over the buffer it read and never touches again.
func decodeWalks(b []byte) (map[string]pkgWalk, error) {
	header, recs, err := walkrec.Decode(b)
	if err != nil {
		return nil, err
	}
	return walksOf(header, recs)
}

// walksOf is the records walkrec.Decode read with header, when header is
// this version's.
func walksOf(header string, recs map[string]walkrec.Rec) (map[string]pkgWalk, error) {
	if header != walkRecordVersion() {
		return nil, errWalkRecord
	}
	out := make(map[string]pkgWalk, len(recs))
	for a, r := range recs {
		out[a] = pkgWalk{alias: r.Alias, key: r.Key, stamp: r.Stamp, at: r.At, seen: r.Seen, docs: r.Docs, held: r.Held}
	}
	return out, nil
}

// readWalks reads indexDir's walk record; nil when there is none or it
// cannot be read.
func readWalks(indexDir string) map[string]pkgWalk {
	b, err := readIndexFile(filepath.Join(indexDir, walkRecordFile))
	if err != nil {
		return nil
	}
	recs, err := decodeWalks(b) // b is the records' from now on (decodeWalks)
	if err != nil {
		return nil
	}
	return recs
}

// writeWalks replaces the walk record; an error (a read-only project, say)
// leaves the old one or none, which only costs the next check a full walk.
// It is a cache (readWalks takes a record that does not decode as none),
// so it is written with no fsync: a search that writes it does not wait
// for the disk.
func writeWalks(contextDir, indexDir string, recs map[string]pkgWalk) {
	_ = confine.New(contextDir).WriteCacheAtomic(filepath.Join(indexDir, walkRecordFile), encodeWalks(recs), 0o644)
}

// freshWalks walks pkgs for Freshness (walkPackages' result): a package
// whose walk record still holds (the same folder and options, the part's
// stamp it matched, every folder and .gitignore it read unmoved) has its
// recorded documents stat'ed; the others are walked in full, and each
// that matches its part (parts) is recorded for the next check. skip(i)
// says a package is stale whatever its files: no record is made of it.
func (r *Reader) freshWalks(ctx context.Context, pkgs []Package, parts map[string]catalogPart, skip func(i int) bool) []walkedPackage {
	start := time.Now()
	indexDir := r.indexDir()
	pre := r.early(indexDir)
	var recs map[string]pkgWalk
	if pre != nil {
		recs, _ = walksOf(pre.Header, pre.Recs) // the early walk read it: not again
	} else {
		recs = readWalks(indexDir)
	}
	walks := make([]walkedPackage, len(pkgs))
	recd := make([]*recorder, len(pkgs))
	used := make([]bool, len(pkgs))
	eachPackage(len(pkgs), func(i int) {
		p, w := pkgs[i], &walks[i]
		if w.err = ctx.Err(); w.err != nil {
			return
		}
		if p.Only != "" || skip(i) {
			w.found, w.held, w.err = walkPackage(ctx, p, func(s string) { w.notes = append(w.notes, s) }, nil)
			return
		}
		part := parts[p.Alias]
		if rec, ok := recs[p.Alias]; ok && part.File != "" && rec.key == walkKey(p) && rec.stamp == part.Stamp {
			tr := fileid.NewTree(p.Dir)
			var seen []fileid.Lstated
			var docs *fileid.Batch
			if pre != nil && pre.Docs[p.Alias] != nil && pre.Docs[p.Alias].Root() == p.Dir {
				seen, docs = pre.Seen[p.Alias].Wait(0), pre.Docs[p.Alias]
			}
			if rec.unmoved(p, tr, seen) {
				w.stamp, w.held, used[i] = rec.statDocs(p.Dir, tr, docs), rec.held, true
				tr.Close()
				r.walks[0].Add(1)
				return
			}
			tr.Close()
		}
		c := &recorder{}
		recd[i] = c
		r.walks[1].Add(1)
		w.found, w.held, w.err = walkPackage(ctx, p, func(s string) { w.notes = append(w.notes, s) }, c.add)
	})
	if ctx.Err() != nil {
		return walks // stopped: no record of a walk cut short
	}
	next := map[string]pkgWalk{}
	added := false
	for i, p := range pkgs {
		part := parts[p.Alias]
		switch {
		case used[i]:
			next[p.Alias] = recs[p.Alias]
		case recd[i] != nil && part.File != "" && filesMatch(walks[i], part):
			if rec, ok := recd[i].record(p, walks[i], part.Stamp, start, r.walkSettle); ok {
				next[p.Alias], added = rec, true
			}
		}
	}
	if added {
		writeWalks(r.contextDir, indexDir, next)
	}
	return walks
}
