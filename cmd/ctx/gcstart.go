package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// startHeap is the heap a process of ctx grows to before its first
// garbage collection (issue 31): Go's first comes at 4 MB, which the
// packages' initialisation alone nearly fills, so a search collects once
// for little (8% of its CPU). 16 MB leaves a search no collection and
// the peak RSS of an update or a rebuild as it was; 64 MB spared an
// update its six but raised its peak by 10 MB and a rebuild's by 30
// (bench/README.md).
const startHeap = 16 << 20

var (
	deferOnce sync.Once
	// firstGC is closed once the collector is back to Go's defaults.
	firstGC = make(chan struct{})
)

// deferFirstGC turns the collector off until the heap reaches startHeap
// (a memory limit does that), and back to Go's defaults after that first
// collection: a command that stays under startHeap never collects, a big
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
