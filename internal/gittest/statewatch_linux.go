//go:build linux

package gittest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
)

// stateWatches keeps, for the process, each served repository's last
// digest (repoState) and an inotify watch on each of its folders, so that
// a request to a repository nothing has touched since costs no walk.
//
// Why it is sound: the kernel queues an inotify event in the system call
// that changes a file (write, truncate, chmod, a new name or one removed)
// or a folder's entries (create, delete, rename), on the watches of the
// file or folder itself and of the folder it was reached through, before
// that call returns. Every entry's watch is in place before anything of
// it is read: a folder's (its entries), and a file's own (a write through
// another name of it, a hard link such as a local clone makes of a
// repository's objects, is on that inode's watch). An event that arrives
// during the walk leaves the digest unused (the next request walks
// again), as does a lost event (the queue's overflow), a watch the system
// refused (its limit), and a repository folder that is not the one walked
// any more (its device and inode, looked at on each request: a folder
// above it renamed). Only those events are asked for: the ones sent when
// a file's last reference goes (a write's close, IN_CLOSE_WRITE; a
// removed file's inode freed, IN_DELETE_SELF and IN_IGNORED) come late
// when another reference outlived the change (a child process forked
// meanwhile holds every open file until its exec closes them, and the
// tests start processes all the time), and would make a walk for nothing
// (TestRepoStateLateEventIsNoChange). The change they follow has its own
// event, made in the system call: IN_MODIFY, IN_ATTRIB (a link count).
// What it does not see: a write through a shared memory mapping (no
// IN_MODIFY; only the close's IN_CLOSE_WRITE, not asked for, if any) or
// by io_submit (no IN_MODIFY), neither of which git or the tests use for
// a repository file; or a write by another machine on a network file
// system (the tests' repositories are in their temporary folders).
// A removed subfolder's own events (IN_DELETE_SELF, IN_IGNORED) come late
// too, like a file's, and are not heeded: its parent's IN_DELETE is made
// at the removal. The repository folder's own are (no other watch sees
// its removal; its identity, looked at on each request, does too).
var stateWatches watchSet

// folderMask is every event that changes what a folder's walk would
// find (IN_DELETE_SELF: the repository's own folder removed, which no
// other watch sees; it may come late, a walk for nothing; a subfolder's
// is not heeded, drain); fileMask, a
// file's mode or content (IN_ATTRIB: also a name made or removed, here
// or elsewhere).
const (
	folderMask = syscall.IN_MODIFY | syscall.IN_ATTRIB |
		syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_DELETE_SELF |
		syscall.IN_MOVE_SELF | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO |
		syscall.IN_ONLYDIR | syscall.IN_DONT_FOLLOW
	fileMask = syscall.IN_MODIFY | syscall.IN_ATTRIB | syscall.IN_MOVE_SELF |
		syscall.IN_DONT_FOLLOW
)

type watchSet struct {
	once sync.Once
	fd   int // the inotify instance; -1 where there is none

	mu    sync.Mutex
	repos map[string]*watchedRepo
	byWd  map[int32]*watchOn // what each watch is on
	buf   []byte
}

// watchedRepo is one repository folder's digest and what keeps it true.
type watchedRepo struct {
	dir  string     // the repository's folder, as served
	walk sync.Mutex // one walk of the folder at a time

	// Under watchSet.mu:
	sum   [32]byte     // the folder's digest when why is unset
	id    folderID     // the folder walked
	why   walkReason   // what made sum unusable since the last walk began (unset while nothing did)
	walks []walkReason // each walk of this folder's reason (a test's count, not the process's)
}

type folderID struct{ dev, ino uint64 }

// watchOn is one watch: the path it was put on (the last, for a second
// name) and the repositories it serves.
type watchOn struct {
	path  string
	file  bool // a file's watch, not a folder's
	repos map[*watchedRepo]bool
}

// walkReason says why a digest was made by a walk: the first thing since
// the walk before it that made the kept digest unusable. Kept for this
// package's tests, so that an unexpected walk explains itself.
type walkReason struct {
	what string // one of the reason constants; "" unset
	path string // the event's watch and name, the refused path
	mask uint32 // the event's
	err  error  // the refused watch's, the failed read's
}

// A walk's reasons (walkReason.what).
const (
	reasonFirst          = "first"
	reasonEvent          = "event"
	reasonLostEvents     = "lost events"
	reasonWatchRefused   = "watch refused"
	reasonWalkFailed     = "walk failed"
	reasonFolderReplaced = "folder replaced"
)

func (r walkReason) String() string {
	s := r.what
	if r.path != "" {
		s += " " + r.path
	}
	if r.mask != 0 {
		s += fmt.Sprintf(" (mask %#x)", r.mask)
	}
	if r.err != nil {
		s += ": " + r.err.Error()
	}
	return s
}

func (w *watchSet) init() {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		fd = -1
	}
	w.fd = fd
	w.repos = map[string]*watchedRepo{}
	w.byWd = map[int32]*watchOn{}
	w.buf = make([]byte, 64<<10)
}

// digest returns dir's digest: the last one made when no event on dir's
// folders has come since, else walkState's, with a watch on each folder.
func (w *watchSet) digest(dir string) ([32]byte, bool) {
	w.once.Do(w.init)
	if w.fd < 0 {
		return walkState(dir, nil)
	}
	w.mu.Lock()
	r := w.repos[dir]
	if r == nil {
		r = &watchedRepo{dir: dir, why: walkReason{what: reasonFirst}}
		w.repos[dir] = r
	}
	w.mu.Unlock()

	r.walk.Lock()
	defer r.walk.Unlock()
	// The folder's watch before its identity and anything of it is read.
	refused := w.watch(dir, folderMask, r)
	id, idOK := folderIdentity(dir)
	w.mu.Lock()
	w.drain()
	if r.why.what == "" && idOK && id == r.id {
		sum := r.sum
		w.mu.Unlock()
		return sum, true
	}
	if r.why.what == "" {
		r.why = walkReason{what: reasonFolderReplaced, path: dir}
	}
	r.walks = append(r.walks, r.why)
	r.why = walkReason{} // set again by an event during the walk
	w.mu.Unlock()

	sum, ok := walkState(dir, func(p string, d fs.DirEntry) error {
		if hook := stateWalkHook.Load(); hook != nil {
			(*hook)(p)
		}
		mask := uint32(fileMask)
		if d.IsDir() {
			mask = folderMask
		}
		if why := w.watch(p, mask, r); why != nil && refused == nil {
			refused = why
		}
		return nil
	})
	after, afterOK := folderIdentity(dir)

	w.mu.Lock()
	defer w.mu.Unlock()
	w.drain()
	switch {
	case r.why.what != "": // an event during the walk
	case !ok:
		r.why = walkReason{what: reasonWalkFailed, path: dir}
	case refused != nil:
		r.why = *refused
	case !idOK || !afterOK || id != after:
		r.why = walkReason{what: reasonFolderReplaced, path: dir}
	}
	r.sum, r.id = sum, id
	return sum, ok
}

// stateWalkHook, when set, is called with each entry a digest's walk
// enters, before its watch: this package's tests change the repository
// in the middle of a walk with it.
var stateWalkHook atomic.Pointer[func(p string)]

// walksOf returns the reason of each walk that made dir's digest, in order.
func (w *watchSet) walksOf(dir string) []walkReason {
	w.mu.Lock()
	defer w.mu.Unlock()
	if r := w.repos[dir]; r != nil {
		return slices.Clone(r.walks)
	}
	return nil
}

// watch puts a watch for mask's events on p for r; the reason to walk
// again when the system refuses (a watch limit reached, the entry gone).
func (w *watchSet) watch(p string, mask uint32, r *watchedRepo) *walkReason {
	w.mu.Lock()
	defer w.mu.Unlock()
	wd, err := syscall.InotifyAddWatch(w.fd, p, mask)
	if err != nil {
		return &walkReason{what: reasonWatchRefused, path: p, err: err}
	}
	on := w.byWd[int32(wd)]
	if on == nil {
		on = &watchOn{repos: map[*watchedRepo]bool{}}
		w.byWd[int32(wd)] = on
	}
	on.path, on.file = p, mask&syscall.IN_ONLYDIR == 0
	on.repos[r] = true
	return nil
}

// drain reads the events queued so far: each gives the repositories its
// watch is on a reason to walk (when none has one yet); a lost event,
// every repository. Under w.mu.
func (w *watchSet) drain() {
	for {
		n, err := syscall.Read(w.fd, w.buf)
		if err != nil || n <= 0 {
			if err != nil && !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, syscall.EINTR) {
				w.forgetAll(walkReason{what: reasonLostEvents, err: err}) // cannot tell what changed
			}
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			return
		}
		eachInotifyEvent(w.buf[:n], func(wd int32, mask uint32, name string) {
			if mask&syscall.IN_Q_OVERFLOW != 0 {
				w.forgetAll(walkReason{what: reasonLostEvents, mask: mask})
				return
			}
			on := w.byWd[wd]
			if on == nil {
				return
			}
			gone := mask&(syscall.IN_DELETE_SELF|syscall.IN_IGNORED) != 0
			if mask&syscall.IN_IGNORED != 0 {
				delete(w.byWd, wd) // the entry is gone: its watch with it
				if on.file {
					return // a removed file's inode freed, maybe late: its IN_ATTRIB came at the removal
				}
			}
			for r := range on.repos {
				if gone && on.path != r.dir {
					// A removed subfolder's inode freed, maybe late: its
					// parent's IN_DELETE came at the removal.
					continue
				}
				if r.why.what == "" { // the first reason since the last walk began is kept
					r.why = walkReason{what: reasonEvent, path: filepath.Join(on.path, name), mask: mask}
				}
			}
		})
	}
}

func (w *watchSet) forgetAll(why walkReason) {
	for _, r := range w.repos {
		if r.why.what == "" {
			r.why = why
		}
	}
}

// folderIdentity is the device and inode of the folder at p.
func folderIdentity(p string) (folderID, bool) {
	fi, err := os.Lstat(p)
	if err != nil || !fi.IsDir() {
		return folderID{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return folderID{}, false
	}
	return folderID{dev: uint64(st.Dev), ino: st.Ino}, true
}
