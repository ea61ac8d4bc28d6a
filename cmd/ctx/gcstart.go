package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// startHeap is the memory limit a process of ctx runs under until its
// first garbage collection (issue 31): Go's first comes at a 4 MB heap,
// which the packages' initialisation alone nearly fills, so a search
// collects once for little (8% of its CPU). The limit counts all the
// runtime's memory, not the heap alone, so the first collection comes at
// a heap of about 7 MB: a search still has none, and the peak RSS of an
// update or a rebuild is as it was. 64 MB spared an update its
// collections but raised its peak by 10 MB and a rebuild's by 30, and a
// limit that let the heap reach 12 MB cost an update more CPU, not less
// (bench/README.md, rounds 10 and 11).
const startHeap = 16 << 20

var (
	deferOnce sync.Once
	// firstGC is closed once the collector is back to Go's defaults.
	firstGC = make(chan struct{})
)

// deferFirstGC turns the collector off until the runtime's memory reaches
// startHeap (a memory limit does that), and back to Go's defaults after that first
// collection: a command that stays under it never collects, a big
// one collects as before from there on, so its peak is the same. It does
// nothing when the user set GOGC or GOMEMLIMIT, and only once a process.
func deferFirstGC() {
	if userSetGC() {
		return
	}
	deferOnce.Do(deferGC)
}

// userSetGC reports whether the user set the process's collector (GOGC
// or GOMEMLIMIT), which ctx then leaves alone (deferFirstGC, withBuildGC).
func userSetGC() bool {
	return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != ""
}

func deferGC() {
	gcDeferred.Store(true)
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(startHeap)
	// The sentinel is unreachable from here on: its cleanup runs after the
	// first collection, whatever started it.
	runtime.AddCleanup(&sentinel{}, func(int) {
		debug.SetMemoryLimit(math.MaxInt64)
		debug.SetGCPercent(100)
		close(firstGC)
	}, 0)
}

// sentinel holds a pointer so that it is not a tiny allocation (which
// may share its block with live data and never be cleaned up).
type sentinel struct{ _ *int }
