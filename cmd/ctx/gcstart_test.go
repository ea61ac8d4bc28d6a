package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestDeferFirstGC: deferFirstGC turns the collector off under a memory
// limit of startHeap, and the first collection puts Go's defaults back
// (GOGC 100, no limit), so a big command collects as it did.
func TestDeferFirstGC(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: deferFirstGC leaves the collector alone")
	}
	select {
	case <-firstGC:
		t.Skip("deferFirstGC ran in this process already (-count)")
	default:
	}
	deferFirstGC()
	if got := debug.SetMemoryLimit(-1); got != startHeap {
		t.Fatalf("memory limit %d before the first collection, want %d", got, startHeap)
	}
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Fatalf("GOGC %d before the first collection, want off", got)
	}
	runtime.GC()
	select {
	case <-firstGC:
	case <-time.After(time.Minute): // a bound on a failure, not a wait for success
		t.Fatal("the first collection did not put the defaults back")
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d after the first collection, want 100", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit %d after the first collection, want none", got)
	}
}
