// Package gcstart holds a ctx process's collector off until its first
// garbage collection (Defer): cmd/ctx's main sets it first thing, and the
// early walk of a search (indexer/prewalk), which allocates while the
// packages are still being initialised, sets it before that. It imports
// the runtime's packages only, so it is initialised before anything that
// would need it.
package gcstart

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// StartHeap is the memory limit a process of ctx runs under until its
// first garbage collection (issue 31): Go's first comes at a 4 MB heap,
// which the packages' initialisation alone nearly fills, so a search
// collects once for little (8% of its CPU; and, with the early walk's
// allocations during the inits, once in the middle of them: round 23).
// The limit counts all the runtime's memory, not the heap alone, so the
// first collection comes at a heap of about 7 MB: a search still has none,
// and the peak RSS of an update or a rebuild is as it was. 64 MB spared
// an update its collections but raised its peak by 10 MB and a rebuild's
// by 30, and a limit that let the heap reach 12 MB cost an update more
// CPU, not less (bench/README.md, rounds 10 and 11).
const StartHeap = 16 << 20

var (
	once     sync.Once
	deferred atomic.Bool
	// firstGC is closed once the collector is back to Go's defaults.
	firstGC = make(chan struct{})
)

// Defer turns the collector off until the runtime's memory reaches
// StartHeap (a memory limit does that), and back to Go's defaults after
// that first collection: a command that stays under it never collects, a
// big one collects as before from there on, so its peak is the same. It
// does nothing when the user set GOGC or GOMEMLIMIT (UserSet), and only
// once a process.
func Defer() {
	if UserSet() {
		return
	}
	once.Do(func() {
		deferred.Store(true)
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(StartHeap)
		// The sentinel is unreachable from here on: its cleanup runs after
		// the first collection, whatever started it.
		runtime.AddCleanup(&sentinel{}, func(int) {
			debug.SetMemoryLimit(math.MaxInt64)
			debug.SetGCPercent(100)
			close(firstGC)
		}, 0)
	})
}

// Deferred reports whether Defer turned the collector off in this process
// (it may be back to the defaults since: FirstGC).
func Deferred() bool { return deferred.Load() }

// FirstGC is closed once the first collection after Defer has put Go's
// defaults back.
func FirstGC() <-chan struct{} { return firstGC }

// UserSet reports whether the user set the process's collector (GOGC or
// GOMEMLIMIT), which ctx then leaves alone.
func UserSet() bool {
	return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != ""
}

// sentinel holds a pointer so that it is not a tiny allocation (which
// may share its block with live data and never be cleaned up).
type sentinel struct{ _ *int }
