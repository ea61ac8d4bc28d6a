package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/ctx-dev/ctx/internal/gcstart"
)

// buildHeap is the heap a full build of the search index grows to before
// the collector runs (withBuildGC). Go's default collects when the heap
// is twice what the last collection left live: a build's live heap is
// small (the batch in analysis, 30 to 50 MB on the shared corpus) and its
// garbage large (1.5 GB), so it collected about 80 times, the collector a
// tenth of the build's CPU. Collecting at buildHeap instead keeps the peak
// RSS of the shared corpus' build under issue 31's 180 MB (bench/README.md,
// "The full build's CPU, round 8").
const buildHeap = 100 << 20

// buildGCPercent is the collector's percentage while buildHeap bounds the
// heap: high, so that the bound decides while the live heap is small.
const buildGCPercent = 400

// withBuildGC runs build with the collector set for a full build: the
// heap grows to buildHeap between collections, or to twice the highest
// live heap a collection left (about Go's default) once that is more than
// half of buildHeap (a bigger corpus); the settings are put back when
// build returns. The settings are the process's, so only a process whose
// main set its collector (deferFirstGC) has them: a build run in another
// program's process (the tests' in-process ctx, bench harnesses), or
// with GOGC or GOMEMLIMIT set by the user, keeps the collector as it is.
// The command sets them around the build, no library package does.
func withBuildGC(build func() error) error {
	if userSetGC() || !gcstart.Deferred() {
		return build()
	}
	// deferFirstGC's first collection sets Go's defaults: let it come
	// first, or it would undo the build's settings.
	select {
	case <-firstGC:
	default:
		runtime.GC()
		<-firstGC
	}
	g := startBuildGC(buildHeap)
	defer g.restore()
	g.watch()
	return build()
}

// buildGC is the collector's settings during a build, and those it
// found, put back by restore.
type buildGC struct {
	heap  int64 // the memory limit set, raised by afterGC
	pct   int   // the settings found
	limit int64
	mu    sync.Mutex
	done  bool // the settings found are back
}

func startBuildGC(heap int64) *buildGC {
	g := &buildGC{heap: heap}
	g.pct = debug.SetGCPercent(buildGCPercent)
	g.limit = debug.SetMemoryLimit(heap)
	return g
}

// restore puts the settings found back, once.
func (g *buildGC) restore() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.done {
		g.done = true
		debug.SetGCPercent(g.pct)
		debug.SetMemoryLimit(g.limit)
	}
}

// afterGC raises the limit to twice the live heap when that is more than
// the limit (a bigger corpus: the heap may then grow as Go's default lets
// it), and reports whether the build's settings still hold. The limit is
// never lowered: a live heap that shrinks for a while (a batch flushed)
// and grows again would otherwise meet a limit under what Go's default
// gives, and collect more often than the default.
func (g *buildGC) afterGC(live uint64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done {
		return false
	}
	g.heap = max(g.heap, int64(min(live, math.MaxInt64/2))*2)
	debug.SetMemoryLimit(g.heap)
	return true
}

// watch calls afterGC after each collection until the settings found are
// back: a sentinel unreachable at once has its cleanup run after the next
// collection, which arms the one after.
func (g *buildGC) watch() {
	runtime.AddCleanup(&sentinel{}, func(int) {
		if g.afterGC(liveHeap()) {
			g.watch()
		}
	}, 0)
}

// liveHeap is the heap the last collection left live, in bytes.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
