package mcpserver

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/project"
	"github.com/fsnotify/fsnotify"
)

const (
	// maxWatchDirs bounds the folders watched for the whole project (each
	// is an inotify watch, a limited resource). Past it the watch is
	// degraded and the server falls back to the stat comparison at
	// request time.
	maxWatchDirs = 4096
	// watchSettle is how long a burst of changes must be quiet before a
	// re-index starts (a save writes, renames and chmods; a checkout
	// touches many files).
	watchSettle = 50 * time.Millisecond
	// watchMaxDelay bounds how long a stream of changes that never pauses
	// for watchSettle can put the re-index off.
	watchMaxDelay = 2 * time.Second
)

// projectWatch watches, with one fsnotify watcher, everything the answers
// depend on: .context/ itself (the manifest, the lock, packages/ appearing),
// packages/ and every folder under it, each dir source's folders, and for
// a dir source that does not exist yet its nearest existing parent folder.
// Each change bumps the server's change count (gen) and, once a burst has
// settled, re-indexes in the background, so that no call has to poll.
//
// Where it cannot watch (no inotify, the watch limit hit, more than
// maxWatchDirs folders) it is degraded, or absent: freshen then falls back
// to the stat comparison at request time (a full check in the background at
// most every recheckAfter).
type projectWatch struct {
	key      string // what it was made for (watchKey), to tell when that changes
	w        *fsnotify.Watcher
	ctxDir   string
	pkgsDir  string
	trees    []string          // roots watched with their sub-folders: packages/, folder dir sources
	only     map[string]string // folder → the one file watched in it (single-file sources)
	missing  []string          // dir sources that do not exist yet (their paths)
	dirs     map[string]bool   // folders watched; only the watch loop changes it after start
	maxDirs  int               // at most this many folders
	degraded atomic.Bool       // some folder could not be watched

	// The watcher's events and errors as pump read them, for the loop
	// (guarded by qmu); wake is signalled when some are added, ended
	// once the watcher's channels are closed.
	qmu    sync.Mutex
	queue  []watchItem
	ended  bool
	wake   chan struct{} // capacity 1
	pumped chan struct{} // closed when pump returns
}

// watchItem is one event or error of the watcher.
type watchItem struct {
	ev  fsnotify.Event
	err error
}

// maxQueue bounds the events pump holds for a busy loop; past it they are
// dropped for one overflow error, as the kernel's own queue does (the loop
// then re-checks everything).
const maxQueue = 1 << 16

// pump reads the watcher's channels at once, whatever the loop is doing,
// into pw.queue. fsnotify (v1.9.0 and v1.10.1 alike) sends an error
// (IN_MOVE_SELF of a folder already gone: "invalid argument") while it
// holds the mutex that its Close and Add take: a watcher whose channels
// nobody reads then never closes. The loop cannot be that reader: it takes
// Server.mu, which snapshot holds while rewatchLocked closes the old
// watcher, and it calls Add itself (follow). A server then hung at its
// end (flake19: "ctx mcp did not end within 1m of its stdin's end").
func (pw *projectWatch) pump() {
	defer close(pw.pumped)
	evs, errs := pw.w.Events, pw.w.Errors
	for evs != nil || errs != nil {
		var it watchItem
		select {
		case ev, ok := <-evs:
			if !ok {
				evs = nil
				continue
			}
			it.ev = ev
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			it.err = err
		}
		pw.qmu.Lock()
		switch {
		case len(pw.queue) < maxQueue:
			pw.queue = append(pw.queue, it)
		case len(pw.queue) == maxQueue:
			pw.queue = append(pw.queue, watchItem{err: fsnotify.ErrEventOverflow})
		}
		pw.qmu.Unlock()
		pw.signal()
	}
	pw.qmu.Lock()
	pw.ended = true
	pw.qmu.Unlock()
	pw.signal()
}

func (pw *projectWatch) signal() {
	select {
	case pw.wake <- struct{}{}:
	default:
	}
}

// take returns the items pump has read since the last take, and whether
// the watcher's channels have ended.
func (pw *projectWatch) take() ([]watchItem, bool) {
	pw.qmu.Lock()
	defer pw.qmu.Unlock()
	q := pw.queue
	pw.queue = nil
	return q, pw.ended
}

// liveState is the server's side of the watch (guarded by Server.mu).
type liveState struct {
	watch *projectWatch // the project being watched, or nil
	// failed is the watchKey for which no watch could be made, when
	// didFail (so that each call does not try again).
	failed  string
	didFail bool
	// gen counts the changes the watch has seen; freshState.gen is the
	// count when the index last matched the disk.
	gen uint64
	// settle is how long a burst of changes must be quiet before the watch
	// re-indexes; 0 means watchSettle. maxDirs bounds the folders watched;
	// 0 means maxWatchDirs. (Fields so that tests can change them.)
	settle  time.Duration
	maxDirs int
	// loops counts the watch loops and the re-checks they start (apart
	// from Server.bg, which tests wait on while a watch runs); Close
	// waits for it before bg.
	loops sync.WaitGroup
}

// watchKey identifies what the watch is made for: the dir sources and
// whether each exists.
func watchKey(live map[string]indexer.Package) string {
	var parts []string
	for _, p := range live {
		parts = append(parts, p.Dir+"\x00"+p.Only+"\x00"+map[bool]string{true: "1"}[p.Present()])
	}
	slices.Sort(parts)
	return strings.Join(parts, "\x01")
}

// watching reports whether changes on disk reach the server by the watch,
// so that no call needs to look for them. The caller holds s.mu.
func (s *Server) watchingLocked() bool {
	return s.live.watch != nil && !s.live.watch.degraded.Load()
}

// rewatchLocked makes the watch match snap's dir sources: it starts one on
// first use, and replaces it when the dir sources (or which of them exist)
// changed. The caller holds s.mu.
func (s *Server) rewatchLocked(snap snapshot) {
	key := watchKey(snap.live)
	if s.live.watch != nil && s.live.watch.key == key {
		return
	}
	if s.live.watch != nil {
		s.live.watch.w.Close() // pump drains it; its loop ends when pump does
		s.live.watch = nil
		s.live.gen++ // what changed while no watch ran is looked for
	}
	if s.life.Err() != nil || (s.live.didFail && s.live.failed == key) {
		return
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		s.live.failed, s.live.didFail = key, true
		s.log.Warn("cannot watch the project for changes; they are found by comparing files at request time", "error", err)
		return
	}
	pw := &projectWatch{key: key, w: w, ctxDir: s.ctxDir, pkgsDir: s.pkgsDir, only: map[string]string{}, dirs: map[string]bool{},
		maxDirs: cmp.Or(s.live.maxDirs, maxWatchDirs), wake: make(chan struct{}, 1), pumped: make(chan struct{})}
	s.live.loops.Add(1)
	go func() {
		defer s.live.loops.Done()
		pw.pump() // before any Add: fsnotify's reader may send from the first one
	}()
	if err := pw.add(s.ctxDir); err != nil {
		s.live.failed, s.live.didFail = key, true
		s.log.Warn("cannot watch "+s.ctxDir+"; changes are found by comparing files at request time", "error", err)
		w.Close() // pump drains it, then ends
		return
	}
	pw.trees = append(pw.trees, s.pkgsDir)
	if err := pw.addTree(s.pkgsDir); err != nil && !os.IsNotExist(err) {
		pw.fail(s, s.pkgsDir, err)
	}
	for _, p := range snap.live {
		switch {
		case !p.Present():
			pw.missing = append(pw.missing, filepath.Join(p.Dir, p.Only))
			if err := pw.addNearest(filepath.Join(p.Dir, p.Only)); err != nil {
				pw.fail(s, p.Source, err)
			}
		case p.Only != "":
			pw.only[p.Dir] = p.Only
			if err := pw.add(p.Dir); err != nil {
				pw.fail(s, p.Source, err)
			}
		default:
			pw.trees = append(pw.trees, p.Dir)
			if err := pw.addTree(p.Dir); err != nil {
				pw.fail(s, p.Source, err)
			}
		}
	}
	s.live.watch = pw
	s.live.loops.Add(1)
	go s.watchLoop(pw)
}

// fail marks the watch degraded because what could not be watched.
func (pw *projectWatch) fail(s *Server, what string, err error) {
	if !pw.degraded.Swap(true) {
		s.log.Warn("cannot watch "+what+" for changes; they are found by comparing files at request time", "error", err)
	}
}

// add watches one folder, within maxWatchDirs.
func (pw *projectWatch) add(dir string) error {
	if pw.dirs[dir] {
		return pw.w.Add(dir) // the same path may be another folder now (renamed into place)
	}
	if len(pw.dirs) >= pw.maxDirs {
		return fmt.Errorf("more than %d folders to watch (each is an inotify watch)", pw.maxDirs)
	}
	if err := pw.w.Add(dir); err != nil {
		return err
	}
	pw.dirs[dir] = true
	return nil
}

// addTree watches root and its folders, as markdown.Walk walks them: hidden
// folders (.git, .context) are not entered and symbolic links not followed.
func (pw *projectWatch) addTree(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable folder: the indexer notes it
		}
		if !d.IsDir() {
			return nil
		}
		if p != root && markdown.Hidden(d.Name()) {
			return filepath.SkipDir
		}
		return pw.add(p)
	})
}

// addNearest watches the nearest existing folder above the missing path p,
// so that p's appearance (or that of a folder on the way) is seen.
func (pw *projectWatch) addNearest(p string) error {
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return pw.add(d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// inTree reports whether p is inside a folder watched with its sub-folders
// (packages/ or a folder source).
func (pw *projectWatch) inTree(p string) bool {
	return slices.ContainsFunc(pw.trees, func(root string) bool { return naming.Within(root, p) })
}

// relevant reports whether ev may change an answer: the manifest or the
// lock, packages/ appearing, a file or folder in a package or a dir source
// (not a hidden one; in a single-file source's folder only that file), or
// a folder on the way to a dir source that does not exist yet. The index,
// INDEX.md and ctx's own files in .context/ are not.
func (pw *projectWatch) relevant(ev fsnotify.Event) bool {
	dir, name := filepath.Dir(ev.Name), filepath.Base(ev.Name)
	if slices.ContainsFunc(pw.missing, func(m string) bool { return naming.Within(ev.Name, m) }) {
		return true
	}
	if dir == pw.ctxDir {
		return name == project.ManifestName || name == project.LockName || ev.Name == pw.pkgsDir
	}
	if markdown.Hidden(name) {
		return false
	}
	if only, ok := pw.only[dir]; ok && name == only {
		return true
	}
	return pw.inTree(ev.Name)
}

// follow adds watches for what ev created: a folder inside packages/ or a
// folder source, packages/ itself, or a folder on the way to a missing dir
// source.
func (pw *projectWatch) follow(s *Server, ev fsnotify.Event) {
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		delete(pw.dirs, ev.Name) // fsnotify drops a removed folder's watch
	}
	if !ev.Has(fsnotify.Create) {
		return
	}
	fi, err := os.Lstat(ev.Name)
	if err != nil || !fi.IsDir() {
		return
	}
	if pw.inTree(ev.Name) {
		if err := pw.addTree(ev.Name); err != nil {
			pw.fail(s, ev.Name, err)
		}
		return
	}
	for _, m := range pw.missing {
		if naming.Within(ev.Name, m) && m != ev.Name {
			if err := pw.addNearest(m); err != nil {
				pw.fail(s, ev.Name, err)
			}
		}
	}
}

// watchLoop waits for changes. Each relevant one bumps gen (so the next
// call re-checks before answering) and drops the snapshot (a dir source
// may have appeared); when a burst of them has settled (or has gone on for
// watchMaxDelay) it re-indexes in the background, so the index catches up
// without a call. It ends when the server closes or the watch is replaced.
// Idle, it only waits: no timer runs.
func (s *Server) watchLoop(pw *projectWatch) {
	defer s.live.loops.Done()
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	var burst time.Time // when the pending burst began; zero when none
	changed := func() {
		s.mu.Lock()
		s.live.gen++
		s.snapValid = false
		s.mu.Unlock()
		now := time.Now()
		if burst.IsZero() {
			burst = now
		}
		settle.Reset(min(cmp.Or(s.live.settle, watchSettle), max(0, burst.Add(watchMaxDelay).Sub(now))))
	}
	for {
		select {
		case <-s.life.Done():
			pw.w.Close() // pump drains it meanwhile
			<-pw.pumped
			return
		case <-pw.wake:
			items, ended := pw.take()
			for _, it := range items {
				if it.err != nil {
					// An overflow drops events: re-check everything.
					s.log.Warn("watching the project", "error", it.err)
					changed()
					continue
				}
				if !pw.relevant(it.ev) {
					continue
				}
				pw.follow(s, it.ev)
				changed()
			}
			if ended {
				return
			}
		case <-settle.C:
			burst = time.Time{}
			s.live.loops.Add(1) // the loop's own count is held: Close has not passed Wait
			go func() {
				defer s.live.loops.Done()
				s.changedOnDisk()
			}()
		}
	}
}

// changedOnDisk brings the index up to date in the background (freshen,
// as a call would), after the re-index that may be running: that one may
// have walked the files before the change.
func (s *Server) changedOnDisk() {
	s.mu.Lock()
	job := s.job
	s.mu.Unlock()
	if job != nil {
		select {
		case <-job.done:
		case <-s.life.Done():
			return
		}
	}
	s.freshen(s.life, nil, s.snapshot())
}
