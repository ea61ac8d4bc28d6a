//go:build linux

package gittest

import (
	"errors"
	"io/fs"
	"os"
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
// above it renamed). What it does not see: a write through a shared memory
// mapping (git writes no repository file so), or by another machine on a
// network file system (the tests' repositories are in their temporary
// folders).
var stateWatches watchSet

// folderMask is every event that changes what a folder's walk would
// find; fileMask, a file's mode or content (IN_ATTRIB: also a name made
// or removed elsewhere).
const (
	folderMask = syscall.IN_MODIFY | syscall.IN_ATTRIB | syscall.IN_CLOSE_WRITE |
		syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_DELETE_SELF |
		syscall.IN_MOVE_SELF | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO |
		syscall.IN_ONLYDIR | syscall.IN_DONT_FOLLOW
	fileMask = syscall.IN_MODIFY | syscall.IN_ATTRIB | syscall.IN_CLOSE_WRITE |
		syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF | syscall.IN_DONT_FOLLOW
)

type watchSet struct {
	once sync.Once
	fd   int // the inotify instance; -1 where there is none

	mu    sync.Mutex
	repos map[string]*watchedRepo
	byWd  map[int32]map[*watchedRepo]bool // the repositories a watch is on
	buf   []byte
	// forgets counts forgetAll's calls (a lost event: every repository
	// walks again), for this package's tests.
	forgets int
}

// watchedRepo is one repository folder's digest and what keeps it true.
type watchedRepo struct {
	walk sync.Mutex // one walk of the folder at a time

	// Under watchSet.mu:
	valid   bool     // sum is the folder's digest now, as far as the events say
	changed bool     // an event since the last walk began
	sum     [32]byte //
	id      folderID // the folder walked
	walks   int      // walks of this folder (a test's count, not the process's)
}

type folderID struct{ dev, ino uint64 }

func (w *watchSet) init() {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		fd = -1
	}
	w.fd = fd
	w.repos = map[string]*watchedRepo{}
	w.byWd = map[int32]map[*watchedRepo]bool{}
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
		r = &watchedRepo{}
		w.repos[dir] = r
	}
	w.mu.Unlock()

	r.walk.Lock()
	defer r.walk.Unlock()
	// The folder's watch before its identity and anything of it is read.
	watched := w.watch(dir, folderMask, r)
	id, idOK := folderIdentity(dir)
	w.mu.Lock()
	w.drain()
	if r.valid && idOK && id == r.id {
		sum := r.sum
		w.mu.Unlock()
		return sum, true
	}
	r.valid, r.changed = false, false
	r.walks++
	w.mu.Unlock()

	sum, ok := walkState(dir, func(p string, d fs.DirEntry) error {
		if hook := stateWalkHook.Load(); hook != nil {
			(*hook)(p)
		}
		mask := uint32(fileMask)
		if d.IsDir() {
			mask = folderMask
		}
		if !w.watch(p, mask, r) {
			watched = false
		}
		return nil
	})
	after, afterOK := folderIdentity(dir)

	w.mu.Lock()
	defer w.mu.Unlock()
	w.drain()
	r.valid = ok && watched && !r.changed && idOK && afterOK && id == after
	r.sum, r.id = sum, id
	return sum, ok
}

// forgetsNow returns how many times every repository was forgotten.
func (w *watchSet) forgetsNow() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.forgets
}

// stateWalkHook, when set, is called with each entry a digest's walk
// enters, before its watch: this package's tests change the repository
// in the middle of a walk with it.
var stateWalkHook atomic.Pointer[func(p string)]

// walksOf returns how many times dir's digest has been made by a walk.
func (w *watchSet) walksOf(dir string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if r := w.repos[dir]; r != nil {
		return r.walks
	}
	return 0
}

// watch puts a watch for mask's events on p for r; false when the system
// refuses (a watch limit reached, the entry gone).
func (w *watchSet) watch(p string, mask uint32, r *watchedRepo) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	wd, err := syscall.InotifyAddWatch(w.fd, p, mask)
	if err != nil {
		return false
	}
	on := w.byWd[int32(wd)]
	if on == nil {
		on = map[*watchedRepo]bool{}
		w.byWd[int32(wd)] = on
	}
	on[r] = true
	return true
}

// drain reads the events queued so far: each marks the repositories its
// watch is on changed; a lost event, every repository. Under w.mu.
func (w *watchSet) drain() {
	for {
		n, err := syscall.Read(w.fd, w.buf)
		if err != nil || n <= 0 {
			if err != nil && !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, syscall.EINTR) {
				w.forgetAll() // cannot tell what changed
			}
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			return
		}
		eachInotifyEvent(w.buf[:n], func(wd int32, mask uint32, _ string) {
			if mask&syscall.IN_Q_OVERFLOW != 0 {
				w.forgetAll()
				return
			}
			for r := range w.byWd[wd] {
				r.valid, r.changed = false, true
			}
			if mask&syscall.IN_IGNORED != 0 {
				delete(w.byWd, wd) // the folder is gone: its watch with it
			}
		})
	}
}

func (w *watchSet) forgetAll() {
	w.forgets++
	for _, r := range w.repos {
		r.valid, r.changed = false, true
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
