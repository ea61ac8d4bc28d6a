package indexer

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/lockwait"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"
	"github.com/gofrs/flock"
)

// Concurrency between processes
//
// One writer at a time: Sync holds an exclusive flock on index/.write.lock for
// its whole run (a second Sync waits for it, or gives up when its context
// ends). Readers never take that lock.
//
// A full build (first run, --rebuild, schema change) writes a new directory
// bleve-<gen+1> that no reader knows yet, then switches meta.json to it with
// an atomic rename and deletes the old directory (unless a reader is opening
// it right now: see removeBleveDir); readers are never blocked by a rebuild,
// and one that still has the old directory open keeps reading it (the files
// stay alive until it closes them).
//
// An incremental Sync opens the live directory read-write. Bleve's scorch
// takes a bolt flock on root.bolt (exclusive for a writer, shared for
// read-only opens), and Linux flock lets new shared holders in while an
// exclusive one waits, so a busy reader could starve the writer. Hence the
// marker index/.writing: Sync creates it before opening the live directory
// and removes it after closing it. A Reader that sees the marker (and the
// write lock held: a marker left by a crashed writer is ignored) closes its
// handle after the current call and waits for the marker to go before
// opening again. Readers open the index read-only, keep it for at most
// readerIdleClose after a call, and check meta.json (one stat) before every
// call: a new generation makes them reopen. So no process waits on another
// for longer than one query, or one incremental batch; bolt timeouts
// (writerBoltTimeout, readerBoltTimeout) turn anything unforeseen into an
// error instead of a hang.

const (
	writerBoltTimeout = 30 * time.Second
	// earlyBoltTimeout is the bolt wait of Stream.openEarly's open, which
	// falls back to Finish's own open (writerBoltTimeout) when a reader
	// holds bolt that long: the early open is off the critical path, and
	// with the writer's wait it doubled the worst case to 60 s. A reader
	// that sees the .writing marker lets go after its current call, which
	// this covers.
	earlyBoltTimeout = 250 * time.Millisecond
	// batchBytes and batchDocs bound a bleve batch: scorch analyses the
	// whole batch (every token of every chunk, with its positions) before
	// it writes the batch's segment, so a batch's analysis is most of a
	// full build's peak heap. A rebuild that compact will merge into one
	// segment writes half batches (batchFull): the shared corpus' build
	// peaked at about 150 MB RSS instead of 210 for the same CPU. Past
	// compactMaxChunks they are whole again: at 10× (216,610 chunks, not
	// merged) half batches all along gave scorch's own merger twice the
	// segments to fold, +45% CPU and +12% RSS (bench/README.md, issue 31).
	batchBytes = 4 << 20 // flush a bleve batch at about this much text
	batchDocs  = 2000
	// compactMaxChunks bounds the full builds merged into one segment
	// (compact): merging holds the whole index in memory, which at 10×
	// the shared corpus (216,610 chunks) raised the build's peak from
	// 371 to 654 MB; at 1× (21,632 chunks) it costs no more than the
	// build (bench/README.md, round 5).
	compactMaxChunks = 50000
)

// Sync brings the search index, the catalogue and INDEX.md in line with the
// packages on disk: only changed files are re-indexed; packages not in pkgs
// are dropped. Safe to call while readers (ctx search, ctx mcp) in other
// processes are open: they see the new data on their next query.
//
// It runs in four steps, each its own function: planSync decides from the
// catalogue and stat data what to do, parseFiles reads and parses the files
// that may have changed (in parallel), applyPlan writes them into the bleve
// index (a batch in the live directory, or a new generation), and publish
// writes INDEX.md, the catalogue and meta.json.
func Sync(ctx context.Context, contextDir string, pkgs []Package, opts Options) (*SyncReport, error) {
	warn, budget := opts.warnFunc(), opts.budget()
	pkgs, err := sortedPackages(pkgs)
	if err != nil {
		return nil, err
	}

	// Every write and delete goes through d, which refuses to pass through a
	// symbolic link (bleve writes by path: the directories handed to it are
	// checked first).
	d := confine.New(contextDir)
	indexDir := filepath.Join(contextDir, project.IndexDir)
	lock, err := lockIndex(ctx, d, indexDir, lockwait.Forever, warn)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	gitIndex, gitOK, err := notCommitted(contextDir)
	if err != nil {
		return nil, err
	}
	if opts.Packages != nil {
		if pkgs, err = sortedPackages(opts.Packages()); err != nil {
			return nil, err
		}
	}

	p, err := planSync(contextDir, indexDir, pkgs, opts.Rebuild, warn)
	if err != nil {
		return nil, err
	}
	rep := &SyncReport{Rebuilt: p.rebuild, Removed: p.removed}
	parsed := parseFiles(ctx, p.jobs, nil)
	defer parsed.stop()
	out, err := applyPlan(ctx, newWriter(d, indexDir, p, opts), p, parsed, rep, warn)
	if err != nil {
		return nil, err
	}
	dur := &durable{synced: opts.durableSynced}
	defer dur.sync() // what publish did not sync (it failed): recent.json
	if !opts.DeferIndexMD {
		noteRecent(d, indexDir, opts, dur, warn)
	}
	if err := publish(d, contextDir, indexDir, p, out, pubOpts{budget: budget, deferMD: opts.DeferIndexMD, dur: dur, beforeMeta: opts.beforeMeta}, rep); err != nil {
		return nil, err
	}
	noteOwn(d, indexDir, gitIndex, gitOK)
	return rep, nil
}

// warnFunc is Options.Warn, or a func that drops warnings.
func (o Options) warnFunc() func(string) {
	if o.Warn == nil {
		return func(string) {}
	}
	return o.Warn
}

// budget is Options.BudgetTokens, or DefaultBudgetTokens.
func (o Options) budget() int {
	if o.BudgetTokens <= 0 {
		return DefaultBudgetTokens
	}
	return o.BudgetTokens
}

// RenderIndexMD renders INDEX.md from the catalogue as it is, when what it
// is made of (or the budget) changed since it was last rendered or it is
// missing: the second half of a Sync run with Options.DeferIndexMD. When
// INDEX.md is current, or there is no catalogue yet (an error), it only
// reads the catalogue's top (no lock, nothing written). ctx stops it
// between its steps (each part of the catalogue read, the render, the
// write); then nothing is written and the catalogue still says INDEX.md is
// behind, so the next RenderIndexMD or Sync renders it. INDEX.md is written
// atomically (confine) and, when it changed, the catalogue records what it
// was rendered from, as Sync does.
func RenderIndexMD(ctx context.Context, contextDir string, opts Options) (*SyncReport, error) {
	warn, budget := opts.warnFunc(), opts.budget()
	indexDir := filepath.Join(contextDir, project.IndexDir)
	target := filepath.Join(contextDir, project.IndexName)
	cat, err := readCatalog(indexDir)
	if err != nil {
		return nil, fmt.Errorf("indexer: render INDEX.md: %w; run `ctx index`", err)
	}
	if indexMDCurrent(&cat, budget, target) {
		return &SyncReport{IndexTokens: cat.IndexMD.Tokens, Degraded: cat.IndexMD.Degraded}, nil
	}
	d := confine.New(contextDir)
	lock, err := lockIndex(ctx, d, indexDir, lockwait.Forever, warn)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	var m meta
	if err := readJSON(filepath.Join(indexDir, metaFile), &m); err != nil {
		return nil, fmt.Errorf("indexer: render INDEX.md: %w; run `ctx index`", err)
	}
	if cat, err = readCatalog(indexDir); err != nil {
		return nil, fmt.Errorf("indexer: render INDEX.md: %w; run `ctx index`", err)
	}
	if why := rebuildReason(false, m, cat, indexDir); why != "" {
		return nil, fmt.Errorf("indexer: cannot render INDEX.md: %s; run `ctx index`", why)
	}
	st, err := publishIndexMD(ctx, d, indexDir, target, &cat, budget, cat.IndexMD)
	if err != nil {
		return nil, err
	}
	if st != cat.IndexMD {
		cat.IndexMD = st
		if err := writeJSONAtomic(d, filepath.Join(indexDir, catalogFile), cat); err != nil {
			return nil, fmt.Errorf("indexer: write catalogue: %w", err)
		}
	}
	return &SyncReport{IndexTokens: st.Tokens, Degraded: st.Degraded}, nil
}

// indexMDCurrent reports whether INDEX.md at target exists and was rendered
// from what cat holds now with budget, from the catalogue's top alone.
func indexMDCurrent(cat *catalog, budget int, target string) bool {
	last := cat.IndexMD
	if last.InDegrees == "" || linkGraphInput(cat.Packages, cat.Parts) != last.Graph ||
		indexInputHash(cat.Packages, cat.Parts, budget, last.InDegrees, recentHash(readRecent(filepath.Join(filepath.Dir(target), project.IndexDir)))) != last.Input {
		return false
	}
	_, err := os.Stat(target)
	return err == nil
}

// sortedPackages returns a copy of pkgs sorted by alias, or an error when an
// alias is not one (naming.ValidAlias) or is given twice.
func sortedPackages(pkgs []Package) ([]Package, error) {
	pkgs = slices.Clone(pkgs)
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].Alias < pkgs[j].Alias })
	for i, p := range pkgs {
		if !naming.ValidAlias(p.Alias) {
			return nil, fmt.Errorf("indexer: invalid package alias %q: an alias is %s", p.Alias, naming.AliasRule)
		}
		if i > 0 && pkgs[i-1].Alias == p.Alias {
			return nil, fmt.Errorf("indexer: package alias %q given twice", p.Alias)
		}
	}
	return pkgs, nil
}

// withDirs fills in the Dir of packages that name none: a locked package's
// folder, <contextDir>/packages/<alias>. It returns a copy.
func withDirs(contextDir string, pkgs []Package) []Package {
	pkgs = slices.Clone(pkgs)
	for i := range pkgs {
		if pkgs[i].Dir == "" {
			pkgs[i].Dir = filepath.Join(contextDir, project.PackagesDir, pkgs[i].Alias)
		}
	}
	return pkgs
}

// lockIndex creates indexDir and takes the one writer's flock on its
// .write.lock. While another process holds it, lockIndex waits up to wait
// (lockwait's bounds: lockwait.Forever waits until ctx ends), with a note
// through warn; with wait <= 0 it does not wait, and a lock still held is
// ErrIndexBusy. The caller unlocks it. The note ends in ASCII "..." (as
// workspace's own waiting line): it reaches a person's terminal, or an MCP
// server's log, in a locale the indexer does not know (LANG=C too).
func lockIndex(ctx context.Context, d confine.Dir, indexDir string, wait time.Duration, warn func(string)) (*flock.Flock, error) {
	if err := d.MkdirAll(indexDir, 0o755); err != nil {
		return nil, fmt.Errorf("indexer: create index directory: %w", err)
	}
	if err := d.Check(filepath.Join(indexDir, lockFile)); err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	lock := lockwait.File(filepath.Join(indexDir, lockFile)) // never through a link, never waiting on a fifo (red22)
	ok, err := lockwait.Exclusive(ctx, lock, 0)
	if err != nil {
		return nil, fmt.Errorf("indexer: lock %s: %w", indexDir, err)
	}
	if !ok && wait > 0 {
		warn("waiting for another ctx process that is updating " + indexDir + " ...")
		if ok, err = lockwait.Exclusive(ctx, lock, wait); err != nil {
			return nil, fmt.Errorf("indexer: wait for another ctx updating %s: %w", indexDir, err)
		}
	}
	if !ok {
		return nil, fmt.Errorf("indexer: %s: %w", indexDir, ErrIndexBusy)
	}
	return lock, nil
}

// syncPlan is what one Sync is to do, decided from meta.json, the catalogue
// and stat data alone, before any document is read.
type syncPlan struct {
	indexDir string
	pkgs     []Package // to index, sorted by alias
	m        meta      // meta.json as found (zero when missing, unreadable or naming a directory ctx does not make)
	cat      catalog   // the catalogue as found (parts read as needed); empty parts when rebuilding

	rebuild bool   // build a new bleve generation from scratch
	why     string // why rebuild ("" when not)

	// jobs are the files to read: added ones (old == nil) and ones whose
	// stat data changed (old != nil; parsing tells updated from unchanged).
	jobs []job
	// unchanged holds, per alias, the records of files whose stat data is
	// what the catalogue says: they are not read.
	unchanged map[string][]fileRecord
	// keep holds the parts of packages none of whose files changed (their
	// partStamp is the part's): they are not read.
	keep    map[string]catalogPart
	deletes []string // bleve ids of the chunks of removed files and packages
	removed int      // documents removed

	// carried are walks not taken: a Stream's packages that landed
	// through LandedFiles, their documents' stat data the catalogue's
	// plus the touched files' (Stream.carriedWalk).
	carried map[string]walkedPackage
}

// job is one file to read, hash and (when its content changed) parse.
type job struct {
	alias string
	label string // the package's files in notes (label)
	f     fileStat
	old   *fileRecord // its catalogue record; nil when the file is new
}

// planSync reads meta.json and the catalogue (an unreadable one is noted
// and rebuilt), decides whether the index must be rebuilt, and walks every
// package to sort its files into unchanged, to read, and removed. A package
// whose folder is missing is noted and planned as empty.
func planSync(contextDir, indexDir string, pkgs []Package, rebuild bool, warn func(string)) (*syncPlan, error) {
	p := readPlanState(indexDir, rebuild, warn)
	return p, p.planPackages(contextDir, pkgs, warn)
}

// readPlanState reads meta.json and the catalogue and decides whether the
// index must be rebuilt: the start of a plan, before any package is walked.
func readPlanState(indexDir string, rebuild bool, warn func(string)) *syncPlan {
	p := &syncPlan{indexDir: indexDir, unchanged: map[string][]fileRecord{}, keep: map[string]catalogPart{}}
	if err := readJSON(filepath.Join(indexDir, metaFile), &p.m); err != nil && !errors.Is(err, fs.ErrNotExist) {
		warn(rebuildNote(err))
		p.m = meta{}
	}
	// A catalogue that cannot be read under a dirty meta.json is what an
	// interrupted update may leave (written with no fsync each until its
	// publish: durable), rebuilt as that update's: nothing to warn of.
	var err error
	if p.cat, err = readCatalog(indexDir); err != nil && !errors.Is(err, fs.ErrNotExist) && !p.m.Dirty {
		warn(rebuildNote(err))
	}
	p.cat.keepRaw = true // the parts it reads are written again (encodePart)
	if p.m.Bleve != "" && !bleveDirRE().MatchString(p.m.Bleve) {
		warn(fmt.Sprintf("%s names %q as the search index, not one ctx makes; rebuilding the index", filepath.Join(indexDir, metaFile), p.m.Bleve))
		p.m = meta{}
		p.why = "meta.json names a directory ctx does not make"
	} else {
		p.why = rebuildReason(rebuild, p.m, p.cat, indexDir)
	}
	p.rebuild = p.why != ""
	if p.rebuild {
		// InLinks too: a rebuild writes inlinks.json again (red23: a
		// damaged one outlived `ctx index --rebuild`, which its error
		// names as the cure).
		p.cat.Files, p.cat.Parts, p.cat.InLinks = nil, nil, ""
	}
	return p
}

// planPackages walks every package of pkgs to sort its files into
// unchanged, to read, and removed (against p.cat), and plans the removal
// of catalogued packages not in pkgs.
//
// A part of the catalogue that cannot be read makes it a rebuild (noted
// through warn), planned again from the start.
func (p *syncPlan) planPackages(contextDir string, pkgs []Package, warn func(string)) error {
	p.pkgs = withDirs(contextDir, pkgs)
	walks := walkPackages(p.pkgs, p.carried)
	var notes []string
	err := p.planAll(walks, func(s string) { notes = append(notes, s) })
	var pe *partError
	if !errors.As(err, &pe) || p.rebuild {
		for _, n := range notes {
			warn(n)
		}
		return err
	}
	warn(rebuildNote(pe.err))
	p.rebuild, p.why = true, "a part of the catalogue cannot be read"
	p.cat.Files, p.cat.Parts = nil, nil
	p.jobs, p.unchanged, p.keep, p.deletes, p.removed = nil, map[string][]fileRecord{}, map[string]catalogPart{}, nil, 0
	if p.carried != nil {
		p.carried = nil // a rebuild walks every package
		walks = walkPackages(p.pkgs, nil)
	}
	return p.planAll(walks, warn)
}

// planAll plans every package of p.pkgs from its walk (walks, in the same
// order), and the removal of the ones no longer there.
func (p *syncPlan) planAll(walks []walkedPackage, warn func(string)) error {
	for i, pkg := range p.pkgs {
		if err := p.planPackage(pkg, walks[i], warn); err != nil {
			return err
		}
	}
	return p.planDroppedPackages()
}

// partError is a part of the catalogue that cannot be read.
type partError struct{ err error }

func (e *partError) Error() string { return e.err.Error() }

// rebuildReason says why the index must be built from scratch, or "" when
// an incremental update will do.
func rebuildReason(asked bool, m meta, cat catalog, indexDir string) string {
	switch {
	case asked:
		return "asked"
	case m.Bleve == "":
		return "no search index yet"
	case m.Schema != schemaVersion:
		return "the index is from another version of ctx"
	case cat.Schema != schemaVersion:
		return "the catalogue is missing or from another version of ctx"
	case m.Dirty:
		return "an earlier update of the index was interrupted"
	case cat.Bleve != m.Bleve:
		return "the catalogue does not describe the search index"
	}
	if _, err := os.Stat(filepath.Join(indexDir, m.Bleve, "index_meta.json")); err != nil {
		return "the search index directory is missing"
	}
	return ""
}

// planPackage plans one package's files from its walk (w: its folder,
// pkg.Dir, or its one file pkg.Only; stat only): files whose size, mtime,
// ctime and inode match the catalogue are not read. When none changed (the
// package's partStamp is its part's), its part is kept unread.
func (p *syncPlan) planPackage(pkg Package, w walkedPackage, warn func(string)) error {
	alias := pkg.Alias
	for _, n := range w.notes {
		warn(n)
	}
	if w.held > 0 {
		warn(heldBack(pkg, w.held))
	}
	found, err := w.found, w.err
	switch {
	case isNotExist(err) && pkg.Kind == project.KindDir:
		warn(fmt.Sprintf("%s: not found (restore it, or `ctx remove %s`); indexed as empty", label(pkg), alias))
	case isNotExist(err):
		warn(fmt.Sprintf("%s: not installed (run `ctx install`); indexed as empty", label(pkg)))
	case err != nil:
		return fmt.Errorf("indexer: scan %s: %w", label(pkg), err)
	}
	if part, ok := p.cat.Parts[alias]; ok && part.Stamp == partStamp(found) {
		p.keep[alias] = part
		return nil
	}
	recs, err := p.cat.records(p.indexDir, alias)
	if err != nil {
		return &partError{err}
	}
	old := make(map[string]*fileRecord, len(recs))
	for i := range recs {
		old[recs[i].Path] = &recs[i]
	}
	seen := map[string]bool{}
	for _, f := range found {
		seen[f.rel] = true
		r := old[f.rel]
		if r != nil && f.unchanged(r) {
			p.unchanged[alias] = append(p.unchanged[alias], *r)
			continue
		}
		p.jobs = append(p.jobs, job{alias: alias, label: label(pkg), f: f, old: r})
	}
	for path, r := range old {
		if !seen[path] {
			p.remove(alias, *r)
		}
	}
	return nil
}

// planDroppedPackages plans the removal of catalogued packages that are no
// longer in p.pkgs.
func (p *syncPlan) planDroppedPackages() error {
	in := map[string]bool{}
	for _, pkg := range p.pkgs {
		in[pkg.Alias] = true
	}
	var gone []string
	for alias := range p.cat.Parts {
		if !in[alias] {
			gone = append(gone, alias)
		}
	}
	for alias := range p.cat.Files {
		if _, ok := p.cat.Parts[alias]; !ok && !in[alias] {
			gone = append(gone, alias)
		}
	}
	for _, alias := range gone {
		recs, err := p.cat.records(p.indexDir, alias)
		if err != nil {
			return &partError{err}
		}
		for _, r := range recs {
			p.remove(alias, r)
		}
	}
	return nil
}

// remove plans the removal of one catalogued document and its chunks.
func (p *syncPlan) remove(alias string, r fileRecord) {
	p.removed++
	for i := 0; i < r.Chunks; i++ {
		p.deletes = append(p.deletes, chunkID(alias, r.Path, i))
	}
}

// parseResult is one job, read and parsed.
type parseResult struct {
	j       job
	rec     fileRecord
	docs    []chunkDoc
	same    bool // content hash unchanged
	warning []string
	err     error
}

// parsing is the parse step under way: its results arrive on results, in
// any order, until all jobs are done or stop is called.
type parsing struct {
	results <-chan parseResult
	cancel  context.CancelFunc
}

// stop cancels the jobs not yet started and waits for the running ones.
// It may be called more than once.
func (ps *parsing) stop() {
	ps.cancel()
	for range ps.results {
	}
}

// parseFiles reads, hashes and parses jobs on GOMAXPROCS goroutines
// (processFile), so that the apply step can index results as they come. A
// job whose file pre holds a result for (parsed early by a Stream; keyed by
// preKey) with the same stat data is not read again: that result is used.
func parseFiles(ctx context.Context, jobs []job, pre map[string]parseResult) *parsing {
	jobCh := make(chan job)
	resCh := make(chan parseResult, 64)
	wctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobCh {
				r := parseResult{j: j}
				r.rec, r.docs, r.same, r.warning, r.err = processFile(j.alias, j.label, j.f.rel, j.f.abs, j.f.size, j.f.modNS, j.f.kep, j.f.bundle, j.f.bundlePage, j.old)
				r.rec.CNS, r.rec.Ino = j.f.cns, j.f.ino
				select {
				case resCh <- r:
				case <-wctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobCh)
		for _, j := range jobs {
			if r, ok := pre[preKey(j.alias, j.f.rel)]; ok && j.f.unchanged(&r.rec) && sameOld(r.j.old, j.old) {
				r.j = j
				select {
				case resCh <- r:
				case <-wctx.Done():
					return
				}
				continue
			}
			select {
			case jobCh <- j:
			case <-wctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(resCh) }()
	return &parsing{results: resCh, cancel: cancel}
}

// preKey keys a file's early parse result.
func preKey(alias, rel string) string { return alias + "\x00" + rel }

// sameOld reports whether two jobs compare a file with the same catalogue
// record (an early result's same/updated verdict depends on it).
func sameOld(a, b *fileRecord) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Hash == b.Hash && a.Chunks == b.Chunks && a.Skipped == b.Skipped
}

// applied is what the apply step leaves for publish.
type applied struct {
	files       map[string][]fileRecord // alias → the records of every indexed file (not sorted) of the packages read
	keep        map[string]catalogPart  // alias → the part of a package not read (syncPlan.keep)
	dir         string                  // the bleve directory to make live
	changed     bool                    // the search index changed
	markedDirty bool                    // meta.json was marked dirty for an incremental update
}

// applyPlan writes the plan's deletions and the parsed files into the
// search index: into a new bleve generation when rebuilding, else into the
// live directory, with readers asked to step aside (the .writing marker)
// and meta.json marked dirty until publish. It opens nothing when nothing
// changed. On error, a half-built new generation is deleted.
func applyPlan(ctx context.Context, w *indexWriter, p *syncPlan, parsed *parsing, rep *SyncReport, warn func(string)) (*applied, error) {
	defer w.removeMarker()
	out := &applied{files: maps.Clone(p.unchanged), keep: p.keep, changed: len(p.deletes) > 0}
	fail := func(err error) (*applied, error) {
		parsed.stop()
		w.abort()
		return nil, err
	}
	if p.rebuild || len(p.deletes) > 0 || len(p.jobs) > 0 {
		open := w.open
		if w.idx != nil { // opened early (Stream.openEarly), not marked yet
			open = w.markDirty
		}
		if err := open(); err != nil {
			return fail(err)
		}
	}
	for _, id := range p.deletes {
		w.batch.Delete(id)
	}
	for r := range parsed.results {
		if err := w.add(r, out, rep, warn); err != nil {
			return fail(err)
		}
	}
	if err := ctx.Err(); err != nil {
		return fail(fmt.Errorf("indexer: %w", err))
	}
	if err := w.compact(ctx); err != nil {
		return fail(err)
	}
	rep.merged, rep.foldedSegs, rep.batches = w.merged, w.foldedSegs, w.batches
	if err := w.close(); err != nil {
		return fail(err)
	}
	out.dir, out.markedDirty = w.dir, w.markedDirty
	rep.Unchanged = countRecords(out.files) - rep.Added - rep.Updated
	for _, part := range out.keep {
		rep.Unchanged += part.Records
	}
	return out, nil
}

// newWriter is the writer of p: the live directory, or a new generation
// when p rebuilds. Nothing is opened until open.
func newWriter(d confine.Dir, indexDir string, p *syncPlan, opts Options) *indexWriter {
	w := &indexWriter{d: d, indexDir: indexDir, m: p.m, rebuild: p.rebuild, dir: p.m.Bleve, maxDocs: opts.batchDocs, compactMax: opts.compactMax, boltWait: cmp.Or(opts.writerBolt, writerBoltTimeout)}
	if w.maxDocs <= 0 {
		w.maxDocs = batchDocs
	}
	if w.compactMax <= 0 {
		w.compactMax = compactMaxChunks
	}
	w.hold = p.rebuild && jobBytes(p.jobs) <= heldMaxBytes
	return w
}

// heldMaxBytes bounds the files of a rebuild whose merges are held until
// compact (heldMergePlan): the shared corpus (27 MB, 21,632 chunks) is
// under it. A bigger build keeps scorch's merges as it goes: at 10× (220
// MB), holding them until compactMaxChunks and then letting scorch's
// merger fold the fifty segments held raised the build's peak RSS from
// 342 to 466 MB in one loaded run (bench/README.md, "The full build's CPU,
// round 9"). A rebuild whose files are not all planned when its writer
// opens (a Stream's) is held, and let go at compactMaxChunks
// (releaseMerges).
const heldMaxBytes = 32 << 20

// jobBytes is the size of the files jobs read.
func jobBytes(jobs []job) int64 {
	var n int64
	for _, j := range jobs {
		n += j.f.size
	}
	return n
}

// indexWriter is the bleve index the apply step writes, and its batch.
type indexWriter struct {
	d           confine.Dir
	indexDir    string
	m           meta // meta.json as planned
	rebuild     bool
	dir         string // the directory written: m.Bleve, or the new generation's
	idx         bleve.Index
	batch       *bleve.Batch
	pending     int  // bytes of text in batch
	maxDocs     int  // chunks a batch holds at most (batchDocs)
	batches     int  // batches written: scorch makes a segment of each
	chunks      int  // chunks added
	compactMax  int  // chunks a full build merged into one segment holds at most (compactMaxChunks)
	merged      bool // compact merged the new generation into one segment
	hold        bool // hold scorch's merges (heldMergePlan) when the index opens: a small rebuild (heldMaxBytes)
	held        bool // scorch's merges are held (heldMergePlan): a rebuild compact is to merge
	foldedSegs  int  // segments scorch's merges of a rebuild took in, compact's included (tests)
	markedDirty bool
	boltWait    time.Duration // how long the open waits for readers' bolt locks (writerBoltTimeout; Options.writerBolt, openEarly)
}

// open creates the new generation's directory (rebuild) or opens the live
// one for writing: it raises the .writing marker that tells readers to let
// go of it (see Reader.waitForWriter), waits for their bolt locks, and marks
// meta.json dirty, since until publish the live directory may hold changes
// the catalogue does not describe.
func (w *indexWriter) open() error {
	if err := w.openUnmarked(); err != nil {
		return err
	}
	return w.markDirty()
}

// openUnmarked opens the index for writing (the .writing marker, bleve's
// open) without marking meta.json dirty: Stream.openEarly's, which writes
// nothing until Finish, so that a process killed before then leaves an
// index the next Sync updates, not one it rebuilds.
func (w *indexWriter) openUnmarked() error {
	if err := w.openIndex(); err != nil {
		return fmt.Errorf("indexer: %w (run `ctx index --rebuild` if it persists)", err)
	}
	w.batch = w.idx.NewBatch()
	return nil
}

// markDirty marks meta.json dirty before the first write into the live
// directory (a new generation is not read by anyone: nothing to mark).
func (w *indexWriter) markDirty() error {
	if w.rebuild || w.markedDirty {
		return nil
	}
	w.markedDirty = true
	dm := w.m
	dm.Dirty = true
	if err := writeJSONAtomic(w.d, filepath.Join(w.indexDir, metaFile), dm); err != nil {
		return fmt.Errorf("indexer: write %s: %w", metaFile, err)
	}
	return nil
}

func (w *indexWriter) openIndex() error {
	if w.rebuild {
		w.dir = fmt.Sprintf("bleve-%d", w.m.Generation+1)
		p := filepath.Join(w.indexDir, w.dir)
		if err := w.d.RemoveAll(p); err != nil {
			return err
		}
		i, err := bleve.NewUsing(p, newMapping(), scorch.Name, scorch.Name, map[string]any{})
		if err != nil {
			return err
		}
		w.idx = i
		if w.hold {
			// Held by a runtime setting: bleve stores NewUsing's config in
			// the index (index_meta.json), and every update after the build
			// would open it with merges held.
			if err := w.reopen(heldMergePlan()); err != nil {
				return err
			}
			w.held = true
		}
		return nil
	}
	if err := w.d.Check(filepath.Join(w.indexDir, w.dir)); err != nil {
		return err
	}
	if err := w.d.WriteFile(w.markerPath(), nil, 0o644); err != nil {
		return err
	}
	i, err := bleve.OpenUsing(filepath.Join(w.indexDir, w.dir), map[string]any{
		"bolt_timeout":           w.boltWait.String(),
		"scorchMergePlanOptions": incrementalMergePlan(w.m.Chunks),
	})
	if err != nil {
		w.removeMarker()
		return fmt.Errorf("open %s for writing (a reader kept it open for %v): %w", w.dir, w.boltWait, err)
	}
	w.idx = i
	return nil
}

// incrementalMergePlan is the merge policy of an incremental Sync's
// writer over an index of chunks chunks: scorch's default with its floor
// (the size below which every segment counts as one of the smallest tier)
// at most a tenth of the index. With the default floor of 2,000 chunks, an
// index under 2,000 chunks may hold one segment only, so scorch's merger
// rewrote the whole index into a new segment after nearly every one-file
// update (500 chunks: a 170 KB segment merged and fsynced, about a tenth
// of the update's CPU); with the floor at a tenth, a small update's
// segment waits in the smallest tier and is merged with its like, and an
// index of 20,000 chunks or more plans as before. Only the floor changes:
// the other options, and the full build's merge (compact), are scorch's.
func incrementalMergePlan(chunks int) map[string]any {
	def := mergeplan.DefaultMergePlanOptions
	floor := min(def.FloorSegmentSize, max(int64(chunks)/int64(def.MaxSegmentsPerTier), 1))
	return map[string]any{"FloorSegmentSize": floor}
}

func (w *indexWriter) markerPath() string { return filepath.Join(w.indexDir, writingMarker) }

func (w *indexWriter) removeMarker() { w.d.Remove(w.markerPath()) }

// add indexes one parse result: its chunks replace the file's old ones, its
// record goes into out.files, and the batch is flushed when it is full. A
// file that could not be read is noted through warn, and its old chunks
// (if any) are deleted.
func (w *indexWriter) add(r parseResult, out *applied, rep *SyncReport, warn func(string)) error {
	alias, rel := r.j.alias, r.j.f.rel
	if r.err != nil {
		warn(fmt.Sprintf("%s/%s: %v; skipped", r.j.label, rel, r.err))
		if r.j.old != nil {
			w.deleteChunks(alias, rel, 0, r.j.old.Chunks)
			out.changed = true
		}
		return nil
	}
	for _, msg := range r.warning {
		warn(msg)
	}
	out.files[alias] = append(out.files[alias], r.rec)
	if r.same {
		return nil
	}
	out.changed = true
	if r.j.old == nil {
		rep.Added++
	} else {
		rep.Updated++
		w.deleteChunks(alias, rel, len(r.docs), r.j.old.Chunks)
	}
	var title *sharedTitle // the file's title, analysed once for all its chunks (fields.go)
	for i := range r.docs {
		if i == 0 || r.docs[i].Title != r.docs[i-1].Title {
			title = &sharedTitle{}
		}
		doc, err := mapChunk(w.idx.Mapping(), chunkID(alias, rel, i), &r.docs[i], title)
		if err == nil {
			err = w.batch.IndexAdvanced(doc)
		}
		if err != nil {
			return fmt.Errorf("indexer: index %s/%s: %w", r.j.label, rel, err)
		}
		w.pending += len(r.docs[i].Text)
	}
	w.chunks += len(r.docs)
	if w.held && w.chunks > w.compactMax {
		return w.releaseMerges()
	}
	if w.batchFull() {
		return w.flush()
	}
	return nil
}

// heldMergePlan is scorch's merge plan while a rebuild is to be merged
// into one segment by compact: no tier is ever full, so scorch's merger
// plans nothing and each chunk is merged once, by compact. Under scorch's
// own plan its merger folded the first ten segments of the shared corpus'
// build into one, then the next ten, and compact merged those again with
// the rest: the merges, a tenth of the build's CPU, took in twice the
// chunks (bench/README.md, "The full build's CPU, round 9").
func heldMergePlan() map[string]any {
	return map[string]any{"MaxSegmentsPerTier": 1 << 20, "SegmentsPerMergeTask": 1 << 20, "FloorSegmentSize": 1}
}

// compactMergePlan is compact's plan: every segment in one merge task.
// scorch's SingleSegmentMergePlanOptions merges ten segments a task, and
// merges the merged segments again until one is left.
func compactMergePlan() *mergeplan.MergePlanOptions {
	o := mergeplan.SingleSegmentMergePlanOptions
	o.SegmentsPerMergeTask = 1 << 20
	return &o
}

// releaseMerges opens a rebuild that outgrew compactMax again under
// scorch's own merge plan: compact will not merge it, so its segments are
// merged as they come, as in any index.
func (w *indexWriter) releaseMerges() error {
	if err := w.flush(); err != nil {
		return err
	}
	w.held = false
	if err := w.reopen(nil); err != nil {
		return fmt.Errorf("indexer: open the new search index again: %w", err)
	}
	return nil
}

// reopen closes the index and opens it again with the given scorch merge
// plan (nil: scorch's own), adding the segments its merges took in to
// foldedSegs. A closed index holds persisted segments only.
func (w *indexWriter) reopen(plan map[string]any) error {
	w.foldedSegs += mergedSegments(w.idx)
	err := w.idx.Close()
	w.idx = nil
	if err != nil {
		return err
	}
	cfg := map[string]any{"bolt_timeout": w.boltWait.String()}
	if plan != nil {
		cfg["scorchMergePlanOptions"] = plan
	}
	if w.idx, err = bleve.OpenUsing(filepath.Join(w.indexDir, w.dir), cfg); err != nil {
		return err
	}
	w.batch = w.idx.NewBatch()
	return nil
}

// mergedSegments is the number of segments scorch's file merges took in
// since idx was opened (0 when idx is not scorch's).
func mergedSegments(idx bleve.Index) int {
	adv, err := idx.Advanced()
	if err != nil {
		return 0
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return 0
	}
	n, _ := s.StatsMap()["TotFileMergeSegments"].(uint64)
	return int(n)
}

// batchFull reports whether the batch in hand is to be written: at
// batchBytes of text or maxDocs chunks, or at half of each while a rebuild
// is small enough for compact to merge it (its segments' count then costs
// nothing after the build, and half a batch is half the analysis held).
func (w *indexWriter) batchFull() bool {
	bytes, docs := batchBytes, w.maxDocs
	if w.rebuild && w.chunks <= w.compactMax {
		bytes, docs = bytes/2, max(docs/2, 1)
	}
	return w.pending >= bytes || w.batch.Size() >= docs
}

// deleteChunks deletes chunks from to to-1 of one file.
func (w *indexWriter) deleteChunks(alias, rel string, from, to int) {
	for i := from; i < to; i++ {
		w.batch.Delete(chunkID(alias, rel, i))
	}
}

// flush writes the batch into the index.
func (w *indexWriter) flush() error {
	if w.batch == nil || w.batch.Size() == 0 {
		return nil
	}
	if err := w.idx.Batch(w.batch); err != nil {
		return fmt.Errorf("indexer: write search index: %w", err)
	}
	// A new batch, not Reset: scorch's Batch returns while a goroutine of
	// its own may still range over the batch's operations (the deletes
	// after the last update), and Reset would write them under it (a data
	// race -race reported in cmd/ctx's in-process runs).
	w.batch = w.idx.NewBatch()
	w.pending = 0
	w.batches++
	return nil
}

// compact merges a new generation into one segment before it goes live.
// A full build writes a segment per batch (batchDocs), and every process
// that opens the index pays for each: the open reads each one's footer,
// fields and doc-value readers, and a search looks each word up in each
// one's dictionary. On the shared corpus (21,632 chunks, 11 segments) one
// segment made a search on a newly opened index about a quarter to a third
// cheaper in CPU and halved its page faults, for a merge of about a tenth
// of the build's CPU (bench/README.md, issue 31). An incremental Sync adds
// a small segment, which scorch's own merger folds in as it goes.
func (w *indexWriter) compact(ctx context.Context) error {
	if !w.rebuild || w.idx == nil {
		return nil
	}
	if err := w.flush(); err != nil {
		return err
	}
	if w.batches <= 1 {
		return nil // one segment already: most projects, and every small one
	}
	if w.chunks > w.compactMax {
		return nil // the merge would hold more than the build itself does
	}
	// Closed and opened again, the index holds persisted segments alone,
	// which are all a merge takes: a segment whose batch has just been
	// written may still be in memory in the open one. Its merges are held
	// still: the merger plans compactMergePlan alone.
	if err := w.reopen(heldMergePlan()); err != nil {
		return fmt.Errorf("indexer: open the new search index to merge it: %w", err)
	}
	adv, err := w.idx.Advanced()
	if err != nil {
		return fmt.Errorf("indexer: merge the new search index: %w", err)
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil
	}
	if err := s.ForceMerge(ctx, compactMergePlan()); err != nil {
		return fmt.Errorf("indexer: merge the new search index: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("indexer: %w", err)
	}
	// The merge is in the index's root; an empty batch returns once a root
	// after it is on disk (scorch waits for each batch to be persisted), so
	// Close cannot leave root.bolt naming the segments before the merge.
	if err := w.idx.Batch(w.idx.NewBatch()); err != nil {
		return fmt.Errorf("indexer: merge the new search index: %w", err)
	}
	w.merged = true
	w.foldedSegs += mergedSegments(w.idx)
	return nil
}

// close flushes the batch, closes the index (when it was opened) and drops
// the .writing marker.
func (w *indexWriter) close() error {
	if w.idx == nil {
		return nil
	}
	if err := w.flush(); err != nil {
		return err
	}
	err := w.idx.Close()
	w.idx = nil
	w.removeMarker()
	if err != nil {
		return fmt.Errorf("indexer: close search index: %w", err)
	}
	return nil
}

// abort closes an index still open and deletes a new generation's
// directory: readers never knew it.
func (w *indexWriter) abort() {
	if w.idx == nil {
		return
	}
	w.idx.Close()
	w.idx = nil
	if w.rebuild {
		w.d.RemoveAll(filepath.Join(w.indexDir, w.dir))
	}
}

// publish writes what readers see, in this order: INDEX.md (when what it is
// made of changed, or it is missing; not when deferMD: RenderIndexMD does
// it after) and, at the same time, the catalogue's new parts (named by
// content: no one reads them before the top names them), then the
// catalogue's top, then meta.json, whose atomic rename switches readers to
// the new data; then it deletes bleve directories and part files that are
// no longer live.
//
// While meta.json is marked dirty (out.markedDirty: an incremental update
// wrote into the live directory), the catalogue's parts and top are
// written with no fsync each, and made durable in one pass with the
// recent record (o.dur) just before meta.json: a crash before then
// leaves meta.json dirty, and the index is rebuilt, never served.
// Otherwise (a rebuild's new generation, an update that changed no
// document) meta.json still names what readers read and each file is
// synced before its rename, as before. INDEX.md, the user's file, always
// is.
func publish(d confine.Dir, contextDir, indexDir string, p *syncPlan, out *applied, o pubOpts, rep *SyncReport) error {
	budget, deferMD, later := o.budget, o.deferMD, out.markedDirty && o.dur != nil
	parts := make(map[string]catalogPart, len(out.keep)+len(out.files))
	data := make(map[string][]byte, len(out.files))
	maps.Copy(parts, out.keep)
	for alias, recs := range out.files {
		sort.Slice(recs, func(i, j int) bool { return recs[i].Path < recs[j].Path })
		part, b, err := makePart(alias, recs)
		if err != nil {
			return fmt.Errorf("indexer: encode catalogue: %w", err)
		}
		parts[alias], data[alias] = part, b
	}
	if err := markEdited(contextDir, indexDir, p, out, parts); err != nil {
		return err
	}
	var tokens, headTokens, titleTokens int64
	for _, part := range parts {
		rep.Chunks += part.Chunks
		tokens += part.Tokens
		headTokens += part.HeadTokens
		titleTokens += part.TitleTokens
	}
	newCat := catalog{Schema: schemaVersion, Packages: p.pkgs, Parts: parts, Bleve: out.dir, Files: map[string][]fileRecord{}}
	maps.Copy(newCat.Files, out.files)
	for alias := range out.keep {
		if recs, ok := p.cat.Files[alias]; ok {
			newCat.Files[alias] = recs
		}
	}
	// The new parts are written while INDEX.md is rendered and written:
	// named by their content, they are read by no one until catalog.json
	// names them, and one a crash leaves unnamed is deleted by the next
	// publish (removeStaleParts). Each is waited for before anything
	// returns.
	partsDone := make(chan error, 1)
	go func() { partsDone <- writeParts(d, indexDir, parts, data, p.cat.Parts, o.dur, later) }()
	partsErr := func() error {
		if partsDone == nil {
			return nil
		}
		err := <-partsDone
		partsDone = nil
		return err
	}
	defer partsErr()
	if deferMD {
		// What INDEX.md was last rendered from: the render after sees it
		// is behind.
		newCat.IndexMD = p.cat.IndexMD
	} else {
		var err error
		newCat.IndexMD, err = publishIndexMD(context.Background(), d, indexDir, filepath.Join(contextDir, project.IndexName), &newCat, budget, p.cat.IndexMD)
		if err != nil {
			return err
		}
	}
	rep.IndexTokens, rep.Degraded = newCat.IndexMD.Tokens, newCat.IndexMD.Degraded
	var err error
	if newCat.InLinks, err = publishInLinks(d, indexDir, &newCat, p.cat.InLinks); err != nil {
		return err
	}
	if err := partsErr(); err != nil {
		return fmt.Errorf("indexer: write catalogue: %w", err)
	}
	versions, err := publishVersions(d, indexDir, &newCat, out.files, p.m.Versions, o.dur, later)
	if err != nil {
		return err
	}

	// A package's Dir moves with the project: a new one is recorded but
	// changes nothing a reader sees.
	pkgsChanged := !slices.EqualFunc(p.cat.Packages, p.pkgs, sameIdentity)
	if p.rebuild || out.changed || pkgsChanged || !slices.Equal(p.cat.Packages, p.pkgs) || !maps.Equal(parts, p.cat.Parts) ||
		newCat.IndexMD != p.cat.IndexMD || newCat.Bleve != p.cat.Bleve || newCat.InLinks != p.cat.InLinks {
		if err := o.dur.writeJSON(d, filepath.Join(indexDir, catalogFile), newCat, later); err != nil {
			return fmt.Errorf("indexer: write catalogue: %w", err)
		}
	}
	if o.beforeMeta != nil {
		if err := o.beforeMeta(); err != nil {
			return err
		}
	}
	if err := o.dur.sync(); err != nil {
		return fmt.Errorf("indexer: sync the catalogue: %w", err)
	}
	live := p.m.Bleve
	if out.changed || p.rebuild || pkgsChanged || out.markedDirty || versions != p.m.Versions {
		m := meta{Schema: schemaVersion, Generation: p.m.Generation + 1, Bleve: out.dir, BuiltAt: time.Now().UTC(), Chunks: rep.Chunks, Tokens: tokens, HeadTokens: headTokens, TitleTokens: titleTokens, Versions: versions}
		if err := writeJSONAtomic(d, filepath.Join(indexDir, metaFile), m); err != nil {
			return fmt.Errorf("indexer: write %s: %w", metaFile, err)
		}
		if p.rebuild && p.m.Bleve != "" && p.m.Bleve != out.dir {
			removeBleveDir(d, indexDir, p.m.Bleve)
		}
		live = m.Bleve
	}
	removeStaleDirs(d, indexDir, live)
	removeStaleParts(d, indexDir, parts)
	return nil
}

// pubOpts is what publish takes besides the plan and its result.
type pubOpts struct {
	budget  int  // INDEX.md's, in tokens
	deferMD bool // INDEX.md is RenderIndexMD's, after
	// dur is the durability pass of the derived files written with no
	// fsync of their own (recent.json; the catalogue's, while meta.json
	// is dirty), synced before meta.json.
	dur *durable
	// beforeMeta is Options.beforeMeta (tests).
	beforeMeta func() error
}

// publishIndexMD renders INDEX.md at target from cat when what it is made
// of (or the budget) changed since last, as last says, or it is missing,
// and writes it when its content differs. It returns what the catalogue
// should record. It reads the parts of cat only when the link graph
// changed (for the in-degrees) or INDEX.md is rendered. ctx stops it
// before each part read, before the render and before the write.
func publishIndexMD(ctx context.Context, d confine.Dir, indexDir, target string, cat *catalog, budget int, last indexMDState) (indexMDState, error) {
	st := indexMDState{Graph: linkGraphInput(cat.Packages, cat.Parts)}
	if st.Graph == last.Graph && last.InDegrees != "" {
		st.InDegrees = last.InDegrees
	} else {
		if err := cat.loadAllCtx(ctx, indexDir); err != nil {
			return st, fmt.Errorf("indexer: %w", err)
		}
		st.InDegrees = inDegreesHash(inDegreesOf(cat.Packages, cat.Files, cat.linkGraph))
	}
	recent := readRecent(indexDir)
	st.Input = indexInputHash(cat.Packages, cat.Parts, budget, st.InDegrees, recentHash(recent))
	if _, err := os.Stat(target); err == nil && last.Input == st.Input {
		st.Tokens, st.Degraded = last.Tokens, last.Degraded
		return st, nil
	}
	if err := cat.loadAllCtx(ctx, indexDir); err != nil {
		return st, fmt.Errorf("indexer: %w", err)
	}
	memo := readCostMemo(indexDir)
	md, info := renderIndexMemo(cat.Packages, cat.Files, budget, filepath.Dir(target), memo, recent, installedBehind(filepath.Dir(target), cat.Packages), editedSets(cat.Parts))
	if err := ctx.Err(); err != nil {
		return st, fmt.Errorf("indexer: render INDEX.md: %w", err)
	}
	memo.write(d, indexDir)
	st.Tokens, st.Degraded = info.Tokens, info.Degraded
	if cur, err := boundedfile.ReadFile(target, int64(len(md))); err != nil || string(cur) != md {
		if err := writeFileAtomic(d, target, []byte(md)); err != nil {
			return st, fmt.Errorf("indexer: write INDEX.md: %w", err)
		}
	}
	return st, nil
}

// markEdited sets, in parts, each locked package's Edited (editedOf):
// for a part made now, from its records, and for one kept whose
// package's state or locked commit changed (an install that moved the
// files' baseline, a lock that came after its files), from its records
// read again; a part kept of a package whose state and lock did not
// change keeps what it had (trust23). A live dir source has nothing
// installed to differ from.
func markEdited(contextDir, indexDir string, p *syncPlan, out *applied, parts map[string]catalogPart) error {
	proj, err := project.At(filepath.Dir(contextDir))
	if err != nil {
		return nil
	}
	old := make(map[string]Package, len(p.cat.Packages))
	for _, q := range p.cat.Packages {
		old[q.Alias] = q
	}
	var lock *lockfile.Lock
	for _, pkg := range p.pkgs {
		part, ok := parts[pkg.Alias]
		if !ok {
			continue
		}
		if pkg.Rev == "" || pkg.Kind == project.KindDir {
			part.Edited = ""
			parts[pkg.Alias] = part
			continue
		}
		recs, made := out.files[pkg.Alias]
		if !made {
			// The lock's commit too: files that came before their lock
			// (two commits pulled one at a time) are its text once it
			// comes, and no edits (filesFollowLock; rv-trust23).
			if q, had := old[pkg.Alias]; had && q.State == pkg.State && q.Rev == pkg.Rev {
				continue
			}
			if recs, err = p.cat.records(indexDir, pkg.Alias); err != nil {
				return fmt.Errorf("indexer: %w", err)
			}
		}
		part.Edited = nulNames(editedOf(proj.StatePath(pkg.Alias), recs))
		if part.Edited != "" {
			// Files a pull brought with their lock are its text, not
			// edits of the commit installed (filesFollowLock).
			if h, err := project.ReadStateHead(proj.StatePath(pkg.Alias)); err == nil && project.BehindRev(h.Commit, pkg.Rev) != "" {
				if lock == nil {
					lock, _ = proj.ReadLock()
				}
				if filesFollowLock(proj, lock, pkg.Alias) {
					part.Edited = ""
				}
			}
		}
		parts[pkg.Alias] = part
	}
	return nil
}

// editedSets is each part's Edited as a set, by alias.
func editedSets(parts map[string]catalogPart) map[string]map[string]bool {
	var out map[string]map[string]bool
	for alias, part := range parts {
		if e := editedSet(string(part.Edited)); e != nil {
			if out == nil {
				out = map[string]map[string]bool{}
			}
			out[alias] = e
		}
	}
	return out
}

// indexInputHash identifies everything INDEX.md is rendered from: the
// packages (with their states' stamps, for installedBehind), what it shows of each one's documents (catalogPart.Listing),
// the budget and the documents' in-degrees (inDegreesHash), which choose
// the sample titles of a shortened INDEX.md, and the record of recent
// changes (recentHash).
func indexInputHash(pkgs []Package, parts map[string]catalogPart, budget int, inDeg, recent string) string {
	h := sha256.New()
	fmt.Fprintf(h, "schema %d budget %d in %s\n", schemaVersion, budget, inDeg)
	if recent != "" {
		fmt.Fprintf(h, "recent %s\n", recent)
	}
	for _, p := range pkgs {
		// p.State: an install that rewrote the state may have moved the
		// package off "behind the lock" with its files unchanged
		// (installedBehind).
		fmt.Fprintf(h, "pkg %q %q %q %q %q %q %q %q %q %q\n", p.Alias, p.Kind, p.Source, p.Path, p.Ref, p.Rev, p.Fetched.UTC().Format("2006-01-02"), p.Only, parts[p.Alias].Listing, p.State)
		// The documents that differ from what ctx installed (trust23):
		// none adds nothing, so an index with no edit keeps its input.
		if e := parts[p.Alias].Edited; e != "" {
			fmt.Fprintf(h, "edited %q\n", e)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// inDegreesHash identifies a catalogue's in-degrees (inDegrees).
func inDegreesHash(indeg map[docKey]int) string {
	keys := make([]docKey, 0, len(indeg))
	for k := range indeg {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].alias != keys[j].alias {
			return keys[i].alias < keys[j].alias
		}
		return keys[i].path < keys[j].path
	})
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "in %q %q %d\n", k.alias, k.path, indeg[k])
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func countRecords(m map[string][]fileRecord) int {
	n := 0
	for _, r := range m {
		n += len(r)
	}
	return n
}

// removeStaleDirs deletes bleve directories left by interrupted builds or
// kept because a Reader was opening them, and their lock files; and, from
// the same read of the folder, the temps of atomic writes a killed process
// left there (atomicfile.Stale: by their age, since a reader writes its
// caches here without the writer's lock; review22-upd22 F2).
func removeStaleDirs(d confine.Dir, indexDir, live string) {
	ents, err := os.ReadDir(indexDir)
	if err != nil {
		return
	}
	for _, name := range atomicfile.Stale(ents, time.Now()) {
		_ = d.Remove(filepath.Join(indexDir, name))
	}
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() && strings.HasPrefix(name, ".bleve-") && strings.HasSuffix(name, ".lock") {
			name = strings.TrimSuffix(strings.TrimPrefix(name, "."), ".lock")
		} else if !e.IsDir() || !strings.HasPrefix(name, "bleve-") {
			continue
		}
		if name != live {
			removeBleveDir(d, indexDir, name)
		}
	}
}

// readDocument reads the document at abs, which the walk found a regular
// file of at most maxFileSize bytes: at most that many bytes of a regular
// file (boundedfile, never following a link nor waiting on a fifo), since
// it may have grown or been replaced since (red21 F5: a sparse file of
// gigabytes was read whole, a fifo blocked the index for ever). The error
// names no path: its caller's warning names the document.
func readDocument(abs string) ([]byte, error) {
	data, _, err := boundedfile.Read(abs, maxFileSize, boundedfile.Options{NoFollow: true})
	var be *boundedfile.Error
	switch {
	case !errors.As(err, &be):
		return data, err
	case be.Kind == boundedfile.ErrNotRegular:
		return nil, fmt.Errorf("not a regular file (%s) since the folder was read", boundedfile.Describe(be.Mode))
	}
	return nil, fmt.Errorf("larger than %d MB since the folder was read", maxFileSize>>20)
}

// processFile reads, hashes and (when its content changed) parses one file.
func processFile(alias, label, rel, abs string, size, modNS int64, kep, bundle *sideStamp, bundlePage string, old *fileRecord) (rec fileRecord, docs []chunkDoc, same bool, warnings []string, err error) {
	rec = fileRecord{Path: rel, Size: size, ModNS: modNS, KEP: kep, Bundle: bundle, kinds: true}
	if !utf8.ValidString(rel) {
		rec.PathBytes = []byte(rel) // JSON cannot hold it (fileRecord.PathBytes)
	}
	name := label + "/" + rel
	if size > maxFileSize {
		rec.Skipped = skipReason(size, nil)
		rec.Hash = fmt.Sprintf("size:%d", size)
		if old != nil && old.Skipped == rec.Skipped {
			return rec, nil, true, nil, nil
		}
		return rec, nil, false, []string{fmt.Sprintf("%s: %s; not indexed", name, rec.Skipped)}, nil
	}
	content, err := readDocument(abs)
	if err != nil {
		return rec, nil, false, nil, err
	}
	var kepContent []byte
	if kep != nil {
		kepContent, err = readSide(filepath.Join(filepath.Dir(abs), KEPMetaFile), maxKEPMetaSize)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s/%s: %v; not read", label, path.Join(path.Dir(rel), KEPMetaFile), err))
			rec.KEP, kepContent = nil, nil
		}
	}
	titled := ""
	if bundle != nil {
		titled = readBundleTitle(rel, bundlePage, filepath.Join(filepath.Dir(abs), path.Base(bundlePage)))
	}
	h := sha256.New()
	h.Write(content)
	if kepContent != nil {
		h.Write([]byte("\x00" + KEPMetaFile + "\x00"))
		h.Write(kepContent)
	}
	if titled != "" {
		h.Write([]byte("\x00bundle title\x00" + titled))
	}
	rec.Hash = hex.EncodeToString(h.Sum(nil)[:16])
	if old != nil && old.Hash == rec.Hash {
		r := *old
		r.Size, r.ModNS, r.KEP, r.Bundle, r.raw = size, modNS, rec.KEP, rec.Bundle, nil
		return r, nil, true, warnings, nil
	}
	if why := skipReason(int64(len(content)), content); why != "" {
		rec.Skipped = why
		return rec, nil, false, []string{fmt.Sprintf("%s: %s; not indexed", name, why)}, nil
	}
	p := parseDocument(name, content, func(s string) { warnings = append(warnings, s) })
	if kepContent != nil {
		p.mergeKEP(kepContent, func(s string) {
			warnings = append(warnings, label+"/"+path.Join(path.Dir(rel), KEPMetaFile)+": "+s+"; ignored")
		})
	}
	if titled != "" && p.titleFallback {
		p.Title = titled
	}
	rec.Title, rec.Summary, rec.Tags, rec.Type, rec.Lines = p.Title, p.Summary, p.Tags, p.Type, p.Lines
	rec.Links = p.Links
	rec.Labels = p.Labels
	if p.Meta != nil {
		rec.Meta = encodeMeta(p.Meta).(map[string]any)
	}
	rec.detach()
	rec.Chunks = len(p.Chunks)
	docs = make([]chunkDoc, len(p.Chunks))
	kind := docKind(rel, p.Title, p.Heads)
	rec.Kind = kind
	docTitle, titleLen := "", 0
	heads := map[string]int{} // headCount's, for this document
	if !p.keyTitle {
		docTitle, titleLen = p.Title, headCount(p.Title, heads)
	}
	for i, c := range p.Chunks {
		extra := ""
		if i == 0 && p.summaryFromFM {
			extra = p.Summary
		}
		title := p.Title
		if p.keyTitle {
			title = ""
		}
		text, head, prefix := searchText(title, c, extra)
		headLen := headCount(head, heads)
		rec.Tokens += fieldLength(text)
		rec.HeadTokens += int64(headLen)
		rec.TitleTokens += int64(titleLen)
		nav := ""
		if c.nav {
			nav = navTerm
		}
		docs[i] = chunkDoc{
			Text:    text,
			Head:    head,
			HeadLen: strconv.Itoa(headLen),
			Pkg:     alias,
			Path:    rel,
			Tags:    p.Tags,
			Heading: strings.Join(c.Trail, " > "),
			Lines:   formatLines(c.Start, c.End, prefix),
			DocKind: kind,
			Title:   docTitle,
			Nav:     nav,
		}
	}
	return rec, docs, false, warnings, nil
}
