package mcpserver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// snapshot is the lock and the manifest as last read: every package the
// lock pins and every dir source of the manifest (aliases), and the
// installed ones the index holds (pkgs, by project.Installed).
type snapshot struct {
	lock    *lockfile.Lock // nil when there is none
	lockErr error          // why lock is nil (missing, or broken)
	pkgs    []indexer.Package
	aliases []string
	// live holds the manifest's dir sources that the lock does not pin,
	// present or not (project.Project.Live): served in place.
	live map[string]indexer.Package
	// unproven holds, for each locked package (not live) whose files
	// nothing proves ctx's, why its documents are not served: no state
	// file (project.InstalledHere) or a state git tracks
	// (project.CheckRecordsUntracked). servable answers from it.
	unproven map[string]error
	// stamps are the project files' stamps taken before this view was read
	// (the lock, packages/, the manifest, context.local.json, the git
	// index): the start of its sentinel, so that a change after the read
	// (a `git add` between a call's snapshot and its freshness check) is
	// a change the next call sees.
	stamps stamps
	// held answers, per package, which files hold what ctx installed
	// (heldFiles, the server's: a state is read again when it changes).
	held *heldFiles
}

// InstalledFunc reads what ctx installed of a locked package
// (Options.Installed), locked its lock entry: when ctx installed another
// commit and the files followed the lock (a `git pull` brought both, no
// install here since: workspace's InstalledFiles.FollowedLock, trust23),
// the Holder is of the lock's commit.
type InstalledFunc func(alias string, locked lockfile.Entry) (Holder, error)

// Holder tells whether a file of a package (its path in the package)
// holds the text ctx installed, and the commit that text is from
// (workspace.InstalledFiles).
type Holder interface {
	// Holds: text, when not nil, is the file's text as served, hashed
	// rather than the file read again.
	Holds(path string, text []byte) bool
	Commit() string
}

// heldFiles is the Holder of each package, read on first use and again
// when its state file's stamp or its lock entry's commit or hash changes
// (an install, an update, a pull that brings a new lock): not when only
// git's index changed, which renews a snapshot (a 20,000-file state is
// 4.3 MB to decode). A Holder of a package behind its lock whose files
// were not, as a whole, the lock's text (FollowedLock said no) is read
// again after a re-index too (reindexed): the files changed, and may be
// the lock's text now (an edit undone, or a look taken during the pull,
// which writes the lock before the package's files: rv-trust23).
type heldFiles struct {
	read  InstalledFunc
	state func(alias string) string // the state file's path
	mu    sync.Mutex
	m     map[string]heldState
	gen   uint64 // re-indexes done (reindexed)
}

// reindexed counts a re-index of the files: a package's "not the lock's
// text" verdict is looked at again.
func (h *heldFiles) reindexed() {
	h.mu.Lock()
	h.gen++
	h.mu.Unlock()
}

// heldState is one package's Holder (nil: the state could not be read),
// its state file's stamp when read and the lock entry it was read for.
type heldState struct {
	st        stamp
	rev, hash string
	h         Holder
	gen       uint64 // heldFiles.gen when read
}

// current reports whether c, read for the lock entry e, still answers
// with the state file's stamp st and gen re-indexes done: a Holder of
// another commit than e's (the files not the lock's text) holds until a
// re-index only.
func (c heldState) current(st stamp, e lockfile.Entry, gen uint64) bool {
	if !c.st.same(st) || c.rev != e.Rev || c.hash != e.Hash {
		return false
	}
	return c.h == nil || c.h.Commit() == e.Rev || c.gen == gen
}

// holder is alias's Holder, read on first use; ok is false when there
// is nothing to ask (a live dir source, a package the lock does not name,
// no Options.Installed). A nil Holder with ok: the state is unreadable.
func (s snapshot) holder(alias string) (held Holder, ok bool) {
	if _, live := s.live[alias]; live || s.held == nil || s.held.read == nil {
		return nil, false
	}
	e, locked := s.entry(alias)
	if !locked {
		return nil, false
	}
	h := s.held
	st := statStamp(h.state(alias))
	h.mu.Lock()
	defer h.mu.Unlock()
	if c, ok := h.m[alias]; ok && c.current(st, e, h.gen) {
		return c.h, true
	}
	held, err := h.read(alias, e)
	if err != nil {
		held = nil
	}
	h.m[alias] = heldState{st: st, rev: e.Rev, hash: e.Hash, h: held, gen: h.gen}
	return held, true
}

// edited reports whether alias's file at path is served as a local edit:
// a locked package's file that does not hold what ctx installed (edited
// here, or rewritten by a `git pull` in a team that commits packages/),
// whose text is not the installed revision's (red22). A dir source, live,
// has no revision to differ from.
//
// text, when not nil, is the file's text as the tool read it to serve it.
func (s snapshot) edited(alias, path string, text []byte) bool {
	held, ok := s.holder(alias)
	return ok && (held == nil || !held.Holds(path, text))
}

// installedRev is the revision ctx installed alias's files at, as its
// state records it ("" when not known): after a `git pull` that brought a
// new lock and no `ctx install` since, the files are still that commit's
// text, not the lock's (red22).
func (s snapshot) installedRev(alias string) string {
	if held, ok := s.holder(alias); ok && held != nil {
		return held.Commit()
	}
	return ""
}

func (s snapshot) has(alias string) bool {
	_, ok := s.entry(alias)
	_, live := s.live[alias]
	return ok || live
}

// unusable reports whether there is nothing to serve: no lock (lockErr says
// why) and no dir source.
func (s snapshot) unusable() bool { return s.lock == nil && len(s.live) == 0 }

// files is where alias's files are: a dir source's folder (and its one
// file), else packages/<alias>.
func (s *Server) files(snap snapshot, alias string) pkgFiles {
	if p, ok := snap.live[alias]; ok {
		return pkgFiles{dir: p.Dir, only: p.Only, live: true, walk: indexer.WalkOptions(p), alias: alias}
	}
	return pkgFiles{dir: filepath.Join(s.pkgsDir, alias), packagesDir: s.pkgsDir, alias: alias}
}

// kindOf is alias's source kind (git when the lock names none).
func (s snapshot) kindOf(alias string) string {
	if p, ok := s.live[alias]; ok {
		return p.Kind
	}
	if e, ok := s.entry(alias); ok && e.Kind != "" {
		return e.Kind
	}
	return project.KindGit
}

// fetchedAt is when an https package's content was last fetched (its
// lock entry's Fetched), the time its documents' modified is; zero for
// other kinds, whose documents' file mtimes are.
func (s snapshot) fetchedAt(alias string) time.Time {
	if s.kindOf(alias) != project.KindHTTPS {
		return time.Time{}
	}
	e, _ := s.entry(alias)
	return e.Fetched.UTC().Truncate(time.Second)
}

// stamp identifies a version of a file or folder cheaply: its identity
// (a file replaced by rename is another file, whatever its mtime), size and
// mtime. The zero stamp is a missing file.
type stamp struct{ fi os.FileInfo }

func statStamp(p string) stamp {
	fi, err := os.Stat(p)
	if err != nil {
		return stamp{}
	}
	return stamp{fi}
}

func (a stamp) same(b stamp) bool {
	if a.fi == nil || b.fi == nil {
		return a.fi == nil && b.fi == nil
	}
	return os.SameFile(a.fi, b.fi) && a.fi.Size() == b.fi.Size() && a.fi.ModTime().Equal(b.fi.ModTime())
}

// stamps is a list of stamps, compared pairwise.
type stamps []stamp

func (a stamps) same(b stamps) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].same(b[i]) {
			return false
		}
	}
	return true
}

// snapshot returns the packages of the lock and the manifest's dir sources,
// re-reading them only when the lock, the manifest or packages/ changed
// (an install or `ctx add` in another terminal, a package folder deleted by
// hand). A manifest that cannot be read gives no dir sources (ctx index and
// ctx install report why).
func (s *Server) snapshot() snapshot {
	st := stamps{statStamp(s.proj.Path(project.LockName)), statStamp(s.pkgsDir), statStamp(s.proj.Path(project.ManifestName)), statStamp(s.proj.Path(project.LocalName)), s.gitIndexStamp(), statStamp(s.proj.Path(project.StateDir))}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snapValid && st.same(s.snapStamp) {
		return s.snap
	}
	snap := snapshot{held: s.held}
	m, err := s.proj.ReadManifest()
	// A local source project.CheckSource refuses (a committed one outside
	// the project) is not served: Live leaves a dir source out, and
	// install never fetches a git one; a manifest that cannot be read (a
	// context.local.json git tracks) serves no dir source. Said once on
	// stderr, again when it changes.
	var msgs []string
	if err != nil && !errors.Is(err, project.ErrNoProject) {
		msgs = append(msgs, "no dir source served: "+err.Error())
	}
	if m != nil {
		msgs = append(msgs, m.Warnings...)
		for _, err := range s.proj.Refused(m) {
			msgs = append(msgs, "source not served: "+err.Error())
		}
	}
	if said := strings.Join(msgs, "\n"); said != s.refusedSaid {
		for _, msg := range msgs {
			s.log.Warn(msg)
		}
		s.refusedSaid = said
	}
	l, err := s.proj.ReadLock()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		snap.lockErr = fmt.Errorf("this project has no %s yet: add packages with `ctx add` or `ctx setup`", project.LockName)
	case err != nil:
		snap.lockErr = fmt.Errorf("cannot read %s: %w; fix it or run `ctx install`", project.LockName, err)
	default:
		snap.lock = l
		for alias := range l.Packages {
			snap.aliases = append(snap.aliases, alias)
		}
	}
	lock := snap.lock
	if lock == nil && m != nil && errors.Is(err, fs.ErrNotExist) {
		lock = &lockfile.Lock{} // dir sources alone: served without a lock
	}
	if lock != nil {
		snap.pkgs = s.proj.Installed(m, lock)
	}
	if m != nil && lock != nil {
		for _, p := range s.proj.Live(m) {
			if _, locked := lock.Packages[p.Alias]; !locked {
				if snap.live == nil {
					snap.live = map[string]indexer.Package{}
				}
				snap.live[p.Alias] = p
				snap.aliases = append(snap.aliases, p.Alias)
			}
		}
	}
	snap.unproven = s.unproven(snap)
	sort.Strings(snap.aliases)
	s.rewatchLocked(snap)
	snap.stamps = st
	s.snap, s.snapStamp, s.snapValid = snap, st, true
	return snap
}

// unproven is snapshot's unproven: for each package of snap's lock that
// is not a live dir source, why its files are not served as the lock's,
// when they are not. The state folder's check reads git's index, once a
// snapshot (it is re-read when git's index or .state changes).
func (s *Server) unproven(snap snapshot) map[string]error {
	if snap.lock == nil {
		return nil
	}
	out := map[string]error{}
	tracked := s.proj.CheckRecordsUntracked(project.StateDir)
	for alias, e := range snap.lock.Packages {
		if _, live := snap.live[alias]; live {
			continue
		}
		switch {
		case tracked != nil:
			out[alias] = fmt.Errorf("package %q is not served: %w", alias, tracked)
		case !s.proj.InstalledHere(alias):
			out[alias] = fmt.Errorf("package %q is not installed by ctx on this machine (%s %s), so its files under %s are not served as commit %s: run `ctx install` (it names the files that differ from the lock)",
				alias, project.Rel(project.StateDir+"/"+alias+".json"), cmp.Or(s.proj.NotInstalledWhy(alias), "is missing"), project.Rel(project.PackagesDir+"/"+alias), naming.ShortRev(e.Rev, 12))
		}
	}
	return out
}

// servable refuses alias's documents when nothing proves its files are
// what ctx installed (snapshot's unproven).
func (s snapshot) servable(alias string) error { return s.unproven[alias] }

// gitIndexStamp is the stamp of the project's git index (the zero stamp
// outside git): a `git add` changes which files a committed dir source
// serves (project.Tracked), so it is a change of the snapshot and of the
// sentinel, as an edit of the manifest is. The index's path is kept once
// found, and looked for again while there is none (project.GitIndexWatch):
// a `git init` while the server runs is seen (trust23).
func (s *Server) gitIndexStamp() stamp {
	f := s.gitIndex.File()
	if f == "" {
		return stamp{}
	}
	return statStamp(f)
}

// reader returns the index reader, opening it on first use.
func (s *Server) reader() (*indexer.Reader, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rd != nil {
		return s.rd, nil
	}
	r, err := indexer.OpenReader(s.ctxDir)
	if err != nil {
		return nil, fmt.Errorf("cannot open the search index: %w; run `ctx index`", err)
	}
	s.rd = r
	return r, nil
}

// recheckAfter is how old the last full freshness check may be before a
// call starts another one in the background. Only without a working watch
// (see projectWatch): with one, changes are noticed as they happen and no
// call polls.
const recheckAfter = time.Second

// freshState remembers the last full freshness check.
type freshState struct {
	sentinel  stamps    // sentinel() when it ran
	gen       uint64    // the watch's change count (liveState.gen) when it began
	checkedAt time.Time // when it ended
	fresh     bool      // the index matched the packages then
	checking  bool      // a background check is running
}

// sentinel is a cheap fingerprint of what an install changes: the lock and
// the package folders (a package is replaced by renaming a new folder into
// place). A handful of stats, against Freshness's walk of every file. Its
// project files' stamps are snap's own (taken before snap was read), not
// new ones: a check of snap recorded against newer stamps would hide the
// change between them (dir_tracked's poll under load, issue 30).
func (s *Server) sentinel(snap snapshot) stamps {
	st := slices.Clone(snap.stamps)
	for _, a := range snap.aliases {
		if _, live := snap.live[a]; !live {
			st = append(st, statStamp(filepath.Join(s.pkgsDir, a)))
		}
	}
	return st
}

// freshen makes the index match the packages on disk before a call is
// answered, re-indexing changed packages incrementally. It returns a warning
// or note for the answer when the index is (or may be) stale, and "" when
// it is fresh. Every session of the process shares it (the Server's state).
//
// The full check (indexer's Freshness, a stat of every file) runs before the
// call whenever the lock or a package folder changed since the last one (an
// install or update in another terminal), the watch saw a change since (the
// call does not wait for the burst to settle), or the last one found the
// index stale. Otherwise the call is answered at once. Without a working
// watch, a call also starts a full check in the background when the last
// one is older than recheckAfter, so that a file edited in place is picked
// up by the next call.
//
// A re-index runs detached from the call (see reindexJob), and there is
// at most one: a call that starts one, or finds one running (started by
// the watch or another call, of any session), waits for it, sending
// progress if req asked for it, unless the call is cancelled; the re-index
// goes on either way.
//
// A re-index found running may have walked before a change made before
// the call came (a `git pull` removes a file, then writes it: under load
// the watch's re-index can walk in between, and the watch may not have
// seen the write yet; flake22). So a call that waited for a re-index it
// did not start checks once more, as a call arriving after it would: the
// package folders' stamps, the watch's count, a walk only when they moved.
func (s *Server) freshen(ctx context.Context, req mcp.Request, snap snapshot) string {
	note, joined := s.freshenOnce(ctx, req, snap)
	if joined && note == "" && ctx.Err() == nil {
		note, _ = s.freshenOnce(ctx, req, s.snapshot())
	}
	return note
}

// freshenOnce is freshen's one check; joined is true when the call waited
// for a re-index it found running.
func (s *Server) freshenOnce(ctx context.Context, req mcp.Request, snap snapshot) (note string, joined bool) {
	if snap.unusable() {
		return "", false
	}
	r, err := s.reader()
	if err != nil {
		return "warning: " + err.Error(), false
	}
	sent := s.sentinel(snap)
	s.mu.Lock()
	if job := s.job; job != nil {
		s.mu.Unlock()
		return s.await(ctx, req, job), true
	}
	fs, watched := s.fresh, s.watchingLocked()
	if fs.fresh && fs.sentinel.same(sent) && (!watched || fs.gen == s.live.gen) {
		if !watched && time.Since(fs.checkedAt) > recheckAfter && !fs.checking {
			s.fresh.checking = true
			s.bg.Add(1)
			go s.backgroundCheck(r, snap, sent)
		}
		s.mu.Unlock()
		return "", false
	}
	s.mu.Unlock()

	// One check-and-start at a time; a call that waited re-checks first.
	if !s.lockSync(ctx) {
		return "", false
	}
	s.mu.Lock()
	job, gen := s.job, s.live.gen
	if job == nil && s.fresh.fresh && s.fresh.sentinel.same(sent) && s.fresh.gen == gen {
		s.mu.Unlock() // the call this one waited for found it fresh
		s.unlockSync()
		return "", false
	}
	// Only the watch saw changes since the index last matched the disk:
	// re-index at once. Freshness would walk every file of every package
	// to learn what Sync's own walk learns again (issue 26: two walks of
	// the whole project for one edited file).
	onlyWatched := s.fresh.fresh && s.fresh.sentinel.same(sent) && s.watchingLocked()
	s.mu.Unlock()
	if job != nil {
		s.unlockSync()
		return s.await(ctx, req, job), true
	}
	if onlyWatched {
		job = s.startReindex(snap, sent, gen, nil)
		s.unlockSync()
		return s.await(ctx, req, job), false
	}
	// The walk runs detached, as a re-index does: a call whose bound ends
	// first answers then, and the walk's finding (fresh, or the re-index
	// it starts) serves the next call.
	started := make(chan *reindexJob, 1)
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		f, err := s.freshness(r, snap.pkgs)
		var job *reindexJob
		switch {
		case s.life.Err() != nil:
			// The server is closing: the walk was stopped, nothing to start.
		case err == nil && f.Fresh:
			s.sayHeld(f.Held)
			s.setFresh(sent, gen, true)
		default:
			job = s.startReindex(snap, sent, gen, f.Stale)
		}
		s.unlockSync()
		started <- job
	}()
	select {
	case job := <-started:
		if job == nil {
			return "", false
		}
		return s.await(ctx, req, job), false
	case <-ctx.Done():
		spentOnIndex(ctx)
		return "", false
	}
}

// lockSync takes syncMu, or gives up when ctx ends first (false).
func (s *Server) lockSync(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	select {
	case s.syncMu <- struct{}{}:
		return true
	case <-ctx.Done():
		spentOnIndex(ctx)
		return false
	}
}

// unlockSync releases syncMu.
func (s *Server) unlockSync() { <-s.syncMu }

// indexWaitKey is the context key of a call's indexWait (addTool).
type indexWaitKey struct{}

// spentOnIndex records that ctx, a tool call's, ended while the call waited
// on the index (a freshness walk, another call's check, a re-index,
// INDEX.md's render), so that its answer says to call again, not to
// narrow the query.
func spentOnIndex(ctx context.Context) {
	if w, ok := ctx.Value(indexWaitKey{}).(*atomic.Bool); ok && ctx.Err() != nil {
		w.Store(true)
	}
}

// sayHeld logs the warnings of a fresh check's held-back documents
// (indexer.Freshness.Held: a committed dir source's documents git does not
// track) on stderr, once, and again when they change, as snapshot does a
// refused source; a re-index's Sync says them itself. They are not in the
// tools' warning: that one says the index may be stale, and it is not.
func (s *Server) sayHeld(held []string) {
	said := strings.Join(held, "\n")
	s.mu.Lock()
	defer s.mu.Unlock()
	if said == s.heldSaid {
		return
	}
	s.heldSaid = said
	for _, h := range held {
		s.log.Warn(h)
	}
}

func (s *Server) setFresh(sent stamps, gen uint64, fresh bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fresh = freshState{sentinel: sent, gen: gen, checkedAt: time.Now(), fresh: fresh}
}

// backgroundCheck runs a full freshness check; when it finds the index
// stale, the next call re-indexes before answering.
func (s *Server) backgroundCheck(r *indexer.Reader, snap snapshot, sent stamps) {
	defer s.bg.Done()
	f, err := s.freshness(r, snap.pkgs)
	if err == nil && f.Fresh {
		s.sayHeld(f.Held)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.fresh.sentinel.same(sent) {
		return // a foreground check has run since
	}
	s.fresh.checking = false
	if err == nil && f.Fresh {
		s.fresh.checkedAt = time.Now()
	} else {
		s.fresh.fresh = false
	}
}

// budget is INDEX.md's token budget from context.config.json (0 = default,
// also when the manifest cannot be read: ctx index reports that).
func (s *Server) budget() int {
	m, err := s.proj.ReadManifest()
	if err != nil {
		return 0
	}
	return m.Index.BudgetTokens
}

// indexFor is the preamble of every tool that reads the index: the
// project's state (an unusable lock is the error), each alias given
// checked (checkPackage; optional makes an optional one), a document path p checked (as
// served: checkRelPathOnce; "" is none), the index brought up to date
// (freshen: its warning) and a reader of it. The tool's own logic
// follows.
func (s *Server) indexFor(ctx context.Context, req mcp.Request, p string, aliases ...string) (snapshot, *indexer.Reader, string, error) {
	snap := s.snapshot()
	if snap.unusable() {
		return snap, nil, "", snap.lockErr
	}
	for _, a := range aliases {
		if err := s.checkPackage(snap, a); err != nil {
			return snap, nil, "", err
		}
	}
	if p != "" {
		if err := checkRelPathOnce(p); err != nil {
			return snap, nil, "", err
		}
	}
	warn := s.freshen(ctx, req, snap)
	if err := ctx.Err(); err != nil {
		return snap, nil, warn, err // the call's bound, or its client's cancel: the tool stops here
	}
	r, err := s.reader()
	return snap, r, warn, err
}

// optional is the aliases of an optional package argument for indexFor:
// none when it is "".
func optional(alias string) []string {
	if alias == "" {
		return nil
	}
	return []string{alias}
}

// checkPackage returns an error with a hint when alias is not installed.
func (s *Server) checkPackage(snap snapshot, alias string) error {
	if err := checkAlias(alias); err != nil {
		return err
	}
	if snap.unusable() {
		return snap.lockErr
	}
	if !snap.has(alias) {
		msg := fmt.Sprintf("unknown package %q: %s.", alias, listAdvice)
		if dym := didYouMean(nearest(alias, snap.aliases, 3)); dym != "" {
			msg += dym
		} else {
			msg += " Installed packages: " + strings.Join(snap.aliases, ", ") + "."
		}
		return notFound(msg)
	}
	return nil
}

// entry returns alias's lock entry.
func (s snapshot) entry(alias string) (lockfile.Entry, bool) {
	if s.lock == nil {
		return lockfile.Entry{}, false
	}
	e, ok := s.lock.Packages[alias]
	return e, ok
}
