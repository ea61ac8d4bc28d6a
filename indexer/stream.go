package indexer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/project"
	"github.com/gofrs/flock"
)

// ErrIndexBusy is returned (wrapped) by StartSync when another process is
// writing the index: the caller runs Sync at the end instead, which waits.
var ErrIndexBusy = errors.New("another ctx process is updating the index")

// Stream is a Sync that starts before the packages have all landed, so that
// a command that fetches packages (install, update, add) parses and indexes
// each one while the others are still on the network. StartSync takes the
// index's write lock; Landed hands it a package whose files are in place;
// Finish does what Sync does for the final list of packages, reusing the
// work already done; Abort drops it. Exactly one of Finish and Abort must
// be called.
//
// What a reader sees changes only in Finish, in publish, as with Sync:
//
//   - When the index is to be built from scratch (no index yet, a schema
//     change, an interrupted update), a landed package's documents go into
//     the new bleve generation at once: no reader knows that directory until
//     publish switches meta.json to it. Finish plans the final packages
//     against what was streamed as if it were the catalogue: files changed
//     since are read again, and the documents of a package that landed but
//     is not in the final list (its install was undone) are deleted before
//     publish. Abort, or a crash, leaves a directory no one reads, deleted
//     by the next Sync.
//   - Otherwise (an incremental update of the live directory, which readers
//     read), a landed package is only read and parsed; once every package
//     has landed (AllLanded) and one changed, the live directory is opened
//     for writing (openEarly: the .writing marker), with nothing written
//     into it and meta.json not yet marked dirty; Finish runs Sync's steps
//     with that writer, and a file whose stat data is still what was
//     parsed is not read again. Abort closes the writer.
//
// Landed may be called from several goroutines; a single goroutine does the
// work, in the order packages land, so bleve keeps one writer.
type Stream struct {
	ctx        context.Context
	cancel     context.CancelFunc
	contextDir string
	d          confine.Dir
	indexDir   string
	opts       Options
	warn       func(string)
	lock       *flock.Flock
	p          *syncPlan    // meta.json, the catalogue and the rebuild decision, read at the start
	w          *indexWriter // the new generation (rebuild), or the live directory opened early (incremental: openEarly)

	mu     sync.Mutex
	queue  []Package
	expect []string // aliases whose catalogue parts the worker reads before they land (Expect)
	seen   map[string]bool
	closed bool
	// allLanded: no more packages will land (AllLanded); changed: a
	// landed package has files to read; earlyTried: openEarly ran, and a
	// failed early open is Finish's to repeat (the worker's only)
	allLanded, changed, earlyTried bool
	wake                           chan struct{}
	done                           chan struct{}
	err                            error                  // the first error of the work
	out                            *applied               // rebuild: what was indexed into w
	rep                            SyncReport             // rebuild: counts of what was indexed
	pre                            map[string]parseResult // incremental: the files parsed early (preKey)
	touched                        map[string][]string    // LandedFiles: the files each package's landing touched
	gitIndex                       fileid.Stamp           // git's index before StartSync's notCommitted read it (noteOwn)
	gitOK                          bool
}

// StartSync takes the index's write lock (without waiting: ErrIndexBusy
// when another process holds it), reads meta.json and the catalogue, and
// starts the goroutine that indexes landed packages. opts are Sync's.
func StartSync(ctx context.Context, contextDir string, opts Options) (*Stream, error) {
	warn := opts.warnFunc()
	d := confine.New(contextDir)
	indexDir := filepath.Join(contextDir, project.IndexDir)
	lock, err := lockIndex(ctx, d, indexDir, 0, warn)
	if err != nil {
		return nil, err
	}
	// As Sync: a committed index is refused before anything is written,
	// and what git's index was then goes into the proof Finish leaves.
	gitIndex, gitOK, err := notCommitted(contextDir)
	if err != nil {
		lock.Unlock()
		return nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	s := &Stream{
		ctx: sctx, cancel: cancel, contextDir: contextDir, d: d, indexDir: indexDir, opts: opts, warn: warn, lock: lock,
		gitIndex: gitIndex, gitOK: gitOK,
		p:    readPlanState(indexDir, opts.Rebuild, warn),
		seen: map[string]bool{}, wake: make(chan struct{}, 1), done: make(chan struct{}),
		pre: map[string]parseResult{},
	}
	if s.p.rebuild {
		s.w = newWriter(d, indexDir, s.p, opts)
		if err := s.w.open(); err != nil {
			cancel()
			lock.Unlock()
			return nil, err
		}
		s.out = &applied{files: map[string][]fileRecord{}}
	}
	go s.run()
	return s, nil
}

// Landed says that pkg's files are in place (pkg.Dir, or
// <contextDir>/packages/<alias> when empty): the Stream reads them soon.
// A package that lands twice is read once; Finish notices later changes.
func (s *Stream) Landed(pkg Package) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.seen[pkg.Alias] || !validAlias(pkg.Alias) {
		return
	}
	s.seen[pkg.Alias] = true
	s.queue = append(s.queue, pkg)
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// LandedFiles is Landed for a package whose landing touched the files
// touched alone (slash-separated, under the package folder: a patch's
// files put, deleted or whose mode changed). When the index is updated in
// place, the worker reads those of them that are documents and does not
// walk the package, nor does Finish (carriedWalk): the touched documents
// are stat'ed again there, each early result checked against its own
// stamp, and the others keep the stat data the catalogue recorded, so a
// file changed otherwise (not touched) is not read by this update but
// caught by the next freshness check (a one-file update of a 500-file
// package stats its one file, not 500: issue 31). A landing that touched
// no document leaves the index as it is. When rebuilding, and for a dir
// source or a one-file package, it is Landed.
func (s *Stream) LandedFiles(pkg Package, touched []string) {
	s.mu.Lock()
	if !s.closed && !s.seen[pkg.Alias] {
		if s.touched == nil {
			s.touched = map[string][]string{}
		}
		s.touched[pkg.Alias] = append([]string{}, touched...)
	}
	s.mu.Unlock()
	s.Landed(pkg)
}

// touchedDocs is what index reads of a package that landed through
// LandedFiles (ok): the documents touched that are still regular files,
// stat'ed, sorted; doc says one of the touched files is a document.
func (s *Stream) touchedDocs(pkg Package) (found []fileStat, doc, ok bool) {
	s.mu.Lock()
	touched, ok := s.touched[pkg.Alias]
	s.mu.Unlock()
	if !ok || s.p.rebuild || pkg.Kind == project.KindDir || pkg.Only != "" {
		return nil, false, false
	}
	files := make([]fileStat, 0, len(touched))
	set := make(map[string]bool, len(touched))
	for _, rel := range touched {
		set[rel] = true
	}
	for _, rel := range touched {
		if !markdown.IsDocument(rel) {
			continue
		}
		doc = true
		if fs.ValidPath(rel) && !underTouched(rel, set) {
			files = append(files, fileStat{rel: rel, abs: filepath.Join(pkg.Dir, filepath.FromSlash(rel))})
		}
	}
	slices.SortFunc(files, func(a, b fileStat) int { return strings.Compare(a.rel, b.rel) })
	files = slices.CompactFunc(files, func(a, b fileStat) bool { return a.rel == b.rel })
	return statFiles(pkg.Dir, files, nil), doc, true
}

// carriedWalks is carriedWalk of each package of pkgs that has one.
func (s *Stream) carriedWalks(pkgs []Package) map[string]walkedPackage {
	if s.p.rebuild {
		return nil
	}
	var out map[string]walkedPackage
	for _, pkg := range withDirs(s.contextDir, pkgs) {
		if w, ok := s.carriedWalk(pkg); ok {
			if out == nil {
				out = map[string]walkedPackage{}
			}
			out[pkg.Alias] = w
		}
	}
	return out
}

// carriedWalk is Finish's walk of a package that landed through
// LandedFiles, not taken (issue 31: the third stat pass of a one-file
// update over its 500 files): the documents the catalogue holds with the
// stat data it recorded, but those the landing touched, which are
// stat'ed now. The stat data recorded of a document are never newer than
// what the index read of it (they are what it recorded when it read it),
// so a document changed otherwise (an edit made since the index last read
// it: the landing's guard proved the package's files as installed) is
// caught by the next freshness check, whose walk's stamp then differs
// from the part's, and read by the next Sync. ok is false, and Finish
// walks the folder, when the package is not such a landing, the
// catalogue's part cannot be read, the catalogue recorded the package in
// another folder or of another kind, or the landing touched a kep.yaml
// (a README's side file), made a folder of a document something else, or
// touched two paths that are one file on macOS and Windows, or one that
// is a catalogued document's there (naming.FileKey: a rename in case,
// where a stat of the old name finds the new file).
func (s *Stream) carriedWalk(pkg Package) (walkedPackage, bool) {
	s.mu.Lock()
	touched, ok := s.touched[pkg.Alias]
	s.mu.Unlock()
	if !ok || pkg.Kind == project.KindDir || pkg.Only != "" {
		return walkedPackage{}, false
	}
	i := slices.IndexFunc(s.p.cat.Packages, func(c Package) bool { return c.Alias == pkg.Alias })
	if i < 0 || s.p.cat.Packages[i].Dir != pkg.Dir || s.p.cat.Packages[i].Kind != pkg.Kind || s.p.cat.Packages[i].Only != "" {
		return walkedPackage{}, false
	}
	if _, ok := s.p.cat.Parts[pkg.Alias]; !ok {
		return walkedPackage{}, false
	}
	recs, err := s.p.cat.records(s.indexDir, pkg.Alias)
	if err != nil {
		return walkedPackage{}, false
	}
	set := make(map[string]bool, len(touched))
	keys := make(map[string]string, len(touched)) // naming.FileKey → the touched path
	for _, rel := range touched {
		if !fs.ValidPath(rel) || strings.EqualFold(path.Base(rel), KEPMetaFile) {
			return walkedPackage{}, false
		}
		if k := naming.FileKey(rel); keys[k] != "" && keys[k] != rel {
			return walkedPackage{}, false // one file on macOS and Windows, two names here
		}
		set[rel], keys[naming.FileKey(rel)] = true, rel
	}
	var fresh []fileStat
	for _, rel := range touched {
		if underTouched(rel, set) {
			return walkedPackage{}, false
		}
		if markdown.IsDocument(rel) { // none in a hidden folder, as the walk lists none
			fresh = append(fresh, fileStat{rel: rel, abs: filepath.Join(pkg.Dir, filepath.FromSlash(rel))})
		}
	}
	found := make([]fileStat, 0, len(recs)+len(fresh))
	for _, r := range recs {
		if set[r.Path] {
			continue
		}
		if keys[naming.FileKey(r.Path)] != "" || underTouched(r.Path, set) {
			return walkedPackage{}, false
		}
		found = append(found, fileStat{rel: r.Path, abs: filepath.Join(pkg.Dir, filepath.FromSlash(r.Path)),
			size: r.Size, modNS: r.ModNS, cns: r.CNS, ino: r.Ino, kep: r.KEP, bundle: r.Bundle})
	}
	slices.SortFunc(fresh, func(a, b fileStat) int { return strings.Compare(a.rel, b.rel) })
	fresh = slices.CompactFunc(fresh, func(a, b fileStat) bool { return a.rel == b.rel })
	found = append(found, statFiles(pkg.Dir, fresh, nil)...)
	slices.SortFunc(found, func(a, b fileStat) int { return strings.Compare(a.rel, b.rel) })
	bundleStamps(found) // a touched document's bundle page is among the carried ones
	return walkedPackage{found: found}, true
}

// underTouched reports whether a folder above rel is itself among the
// touched paths: the landing made it something else (a symbolic link, a
// file), and a stat of rel through it could reach outside the package.
// Finish's walk, which follows no links, reads what is there instead.
func underTouched(rel string, touched map[string]bool) bool {
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		if touched[d] {
			return true
		}
	}
	return false
}

func validAlias(alias string) bool {
	_, err := sortedPackages([]Package{{Alias: alias}})
	return err == nil
}

// run is the Stream's one worker: it takes landed packages in order until
// the queue is closed and empty, or an error stops it.
func (s *Stream) run() {
	defer close(s.done)
	defer func() {
		// Sync's caller recovers from an indexer crash; here it would end
		// the process: it becomes Finish's error instead.
		if p := recover(); p != nil {
			s.err = fmt.Errorf("indexer: crashed while indexing a landed package: %v", p)
		}
	}()
	for {
		s.mu.Lock()
		if len(s.queue) == 0 && len(s.expect) > 0 && !s.closed {
			alias := s.expect[0]
			s.expect = s.expect[1:]
			s.mu.Unlock()
			if !s.p.rebuild {
				s.p.cat.records(s.indexDir, alias) // an error is index's and Finish's to meet
			}
			continue
		}
		if len(s.queue) == 0 {
			closed, all := s.closed, s.allLanded
			s.mu.Unlock()
			if closed {
				return
			}
			if all && s.changed && !s.p.rebuild && !s.earlyTried {
				s.openEarly()
				if s.opts.afterOpen != nil {
					s.opts.afterOpen()
				}
			}
			select {
			case <-s.wake:
			case <-s.ctx.Done():
				return
			}
			continue
		}
		pkg := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		if err := s.index(pkg); err != nil {
			s.err = err
			return
		}
		if s.opts.afterRead != nil {
			s.opts.afterRead(pkg.Alias)
		}
	}
}

// index reads one landed package: into the new generation when
// rebuilding, else into s.pre.
func (s *Stream) index(pkg Package) error {
	pkg = withDirs(s.contextDir, []Package{pkg})[0]
	found, anyDoc, touched := s.touchedDocs(pkg)
	if touched && !anyDoc {
		return nil // no document changed
	}
	if !touched {
		var err error
		found, _, err = walkPackage(context.Background(), pkg, func(string) {}, nil) // Finish's walk gives the notes
		if err != nil {
			return nil // Finish plans it as Sync does
		}
	}
	var old map[string]*fileRecord
	if !s.p.rebuild {
		if part, ok := s.p.cat.Parts[pkg.Alias]; ok && !touched && part.Stamp == partStamp(found) {
			return nil // nothing changed
		}
		recs, err := s.p.cat.records(s.indexDir, pkg.Alias)
		if err != nil {
			return nil // Finish plans it as Sync does
		}
		old = make(map[string]*fileRecord, len(recs))
		for i := range recs {
			old[recs[i].Path] = &recs[i]
		}
	}
	jobs := make([]job, 0, len(found))
	for _, f := range found {
		r := old[f.rel]
		if r != nil && f.unchanged(r) {
			continue
		}
		jobs = append(jobs, job{alias: pkg.Alias, label: label(pkg), f: f, old: r})
	}
	parsed := parseFiles(s.ctx, jobs, nil)
	defer parsed.stop()
	for r := range parsed.results {
		if !s.p.rebuild {
			if r.err == nil {
				s.pre[preKey(r.j.alias, r.j.f.rel)] = r
			}
			continue
		}
		if err := s.w.add(r, s.out, &s.rep, s.warn); err != nil {
			return err
		}
	}
	s.changed = true
	return s.ctx.Err()
}

// Expect says that the packages aliases are about to land: while they
// are fetched, the worker reads their parts of the catalogue, which it
// reads when they land (on a one-file update of a 500-file package, 280
// KB decoded off the time between the swap and Finish: issue 31).
func (s *Stream) Expect(aliases ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expect = append(s.expect, aliases...)
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// AllLanded says that no more packages will land before Finish (the
// command is about to commit its lock): once the landed ones are read,
// the worker opens the live directory for writing if one of them changed
// (openEarly). Not before: while other packages are still on the
// network, readers must not be kept waiting for a writer (the .writing
// marker).
func (s *Stream) AllLanded() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.allLanded = true
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// openEarly opens the live directory for writing (indexWriter.openUnmarked:
// the .writing marker, bleve's open) once every package has landed
// (AllLanded) and one of them changed, while the command that streams
// commits its lock: Finish then finds it open (bleve's open off a
// one-file update's critical path: issue 31). meta.json is marked dirty
// only in Finish, before the first write (applyPlan), so a process killed
// before then leaves an index the next Sync updates, not one it rebuilds;
// what readers see changes in Finish only, as before. Abort closes it
// (closeEarly). A failure to open is left to Finish, which opens it as
// Sync does and reports the error. It waits for readers' bolt locks for
// earlyBoltTimeout only, not the writer's writerBoltTimeout: a reader that
// holds bolt longer costs Finish's one wait, not two.
func (s *Stream) openEarly() {
	if s.w != nil || s.earlyTried {
		return
	}
	s.earlyTried = true
	w := newWriter(s.d, s.indexDir, s.p, s.opts)
	w.boltWait = min(w.boltWait, earlyBoltTimeout)
	if err := w.openUnmarked(); err != nil {
		w.abort()
		w.removeMarker()
		return
	}
	s.w = w
}

// closeEarly closes the live directory openEarly opened and that nothing
// was written into (meta.json was not marked dirty: applyPlan marks it
// before its first write, and a writer that wrote is aborted, not closed
// early), and drops its marker.
func (s *Stream) closeEarly() {
	w := s.w
	s.w = nil
	if w == nil || w.rebuild {
		return
	}
	w.idx.Close() // nothing was written into it: an error loses nothing
	w.idx = nil
	w.removeMarker()
}

// drain closes the queue and waits for the worker to finish what landed.
// first is false when the Stream was drained already (Finish or Abort).
func (s *Stream) drain() (first bool, err error) {
	s.mu.Lock()
	first = !s.closed
	s.closed = true
	s.mu.Unlock()
	if !first {
		return false, nil
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
	<-s.done
	return true, s.err
}

// Finish brings the index in line with pkgs (the final list: what Sync
// would be given) and publishes it, then releases the lock.
func (s *Stream) Finish(ctx context.Context, pkgs []Package) (*SyncReport, error) {
	first, err := s.drain()
	if !first {
		return nil, errors.New("indexer: Stream finished twice")
	}
	defer s.cancel()
	defer s.lock.Unlock()
	if err == nil {
		pkgs, err = sortedPackages(pkgs)
	}
	if err != nil {
		s.dropWriter()
		return nil, err
	}
	budget := s.opts.budget()
	p := s.p
	streamed := p.rebuild
	last := p.cat
	if streamed {
		// What was streamed is the catalogue of the new generation.
		p.cat = catalog{Schema: schemaVersion, Files: s.out.files}
	}
	if !streamed {
		p.carried = s.carriedWalks(pkgs)
	}
	err = p.planPackages(s.contextDir, pkgs, s.warn)
	var w *indexWriter
	switch {
	case streamed:
		w = s.w
	case s.w != nil && !p.rebuild:
		w = s.w // opened early (openEarly)
	default:
		s.dropWriter()                            // opened early, but a part of the catalogue could not be read: a rebuild after all
		w = newWriter(s.d, s.indexDir, p, s.opts) // p.rebuild when a part of the catalogue could not be read
	}
	if err != nil {
		if w == s.w {
			s.dropWriter()
		} else {
			w.abort()
		}
		return nil, err
	}
	if streamed {
		p.removed = 0 // streamed documents no reader ever saw
	}
	rep := &SyncReport{Rebuilt: p.rebuild, Removed: p.removed}
	dur := &durable{synced: s.opts.durableSynced}
	defer dur.sync() // what publish did not sync (it failed): recent.json
	noted := startNoteRecent(s.d, s.indexDir, s.opts, dur)
	parsed := parseFiles(ctx, p.jobs, s.pre)
	defer parsed.stop()
	out, err := applyPlan(ctx, w, p, parsed, rep, s.warn)
	noted(s.warn)
	if err != nil {
		return nil, err
	}
	if streamed {
		out.changed = true
		rep.Added, rep.Updated, rep.Unchanged = countRecords(out.files), 0, 0
		p.cat = last // what publish compares INDEX.md with
	}
	if err := publish(s.d, s.contextDir, s.indexDir, p, out, pubOpts{budget: budget, dur: dur, beforeMeta: s.opts.beforeMeta}, rep); err != nil {
		return nil, err
	}
	noteOwn(s.d, s.indexDir, s.gitIndex, s.gitOK)
	return rep, nil
}

// Abort stops the Stream without publishing anything: a new generation
// begun is deleted, the live index is as it was. It releases the lock.
func (s *Stream) Abort() {
	s.cancel()
	if first, _ := s.drain(); !first {
		return
	}
	s.dropWriter()
	s.lock.Unlock()
}

// dropWriter drops the Stream's writer, if any, publishing nothing: a new
// generation is deleted (indexWriter.abort), the live directory opened
// early is closed as it was (closeEarly).
func (s *Stream) dropWriter() {
	switch {
	case s.w == nil:
	case s.w.rebuild:
		s.w.abort()
	default:
		s.closeEarly()
	}
}
