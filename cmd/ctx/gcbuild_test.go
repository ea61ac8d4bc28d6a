package main

import (
	"errors"
	"math"
	"runtime/debug"
	"testing"

	"github.com/ctx-dev/ctx/internal/gcstart"
)

// TestWithBuildGC: withBuildGC sets buildGCPercent and buildHeap for the
// build, after deferFirstGC's first collection (which would undo them),
// and puts the settings it found back when the build returns, error or
// not; afterGC raises the limit to twice a live heap past half of it, and
// never lowers it, and sets nothing once the settings are back. It
// changes the whole process's collector,
// so it runs in a child process of its own (this test binary again).
func TestWithBuildGC(t *testing.T) {
	if !inOwnProcess(t, "CTX_TEST_BUILD_GC") {
		return
	}
	deferFirstGC()
	boom := errors.New("boom")
	err := withBuildGC(func() error {
		if got := debug.SetGCPercent(buildGCPercent); got != buildGCPercent {
			t.Errorf("GOGC %d during the build, want %d", got, buildGCPercent)
		}
		if got := debug.SetMemoryLimit(-1); got != buildHeap {
			t.Errorf("memory limit %d during the build, want %d", got, buildHeap)
		}
		return boom
	})
	if err != boom {
		t.Fatalf("withBuildGC returned %v, want the build's error", err)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d after the build, want 100", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit %d after the build, want none", got)
	}

	g := startBuildGC(64 << 20)
	if !g.afterGC(32<<20) || debug.SetMemoryLimit(-1) != 64<<20 {
		t.Fatal("a live heap of half the limit moved the limit")
	}
	if !g.afterGC(40<<20) || debug.SetMemoryLimit(-1) != 80<<20 {
		t.Fatal("a live heap of 40 MB under a limit of 64: the limit is not 80 MB")
	}
	if !g.afterGC(10<<20) || debug.SetMemoryLimit(-1) != 80<<20 {
		t.Fatal("a live heap back to 10 MB lowered the limit: a heap that grows again would collect more often than Go's default")
	}
	if !g.afterGC(50<<20) || debug.SetMemoryLimit(-1) != 100<<20 {
		t.Fatal("a live heap of 50 MB under a limit of 80: the limit is not 100 MB")
	}
	g.restore()
	if g.afterGC(40 << 20) {
		t.Fatal("afterGC after restore kept watching")
	}
	if got, lim := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); got != 100 || lim != math.MaxInt64 {
		t.Errorf("after restore: GOGC %d, limit %d; want 100 and none", got, lim)
	}
	g.restore() // once only: the settings found stay
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d after a second restore, want 100", got)
	}
}

// TestWithBuildGCLeavesOtherProcesses: a build run in a process whose
// main did not set up ctx's collector (this test binary, whose scripts run
// ctx in process, maybe two builds at once) leaves the collector as it
// found it, during the build and after.
func TestWithBuildGCLeavesOtherProcesses(t *testing.T) {
	if gcstart.Deferred() {
		t.Skip("this process set up ctx's collector")
	}
	pct := debug.SetGCPercent(-1)
	debug.SetGCPercent(pct)
	limit := debug.SetMemoryLimit(-1)
	check := func(when string) {
		t.Helper()
		if got := debug.SetGCPercent(pct); got != pct {
			t.Errorf("GOGC %d %s, want %d", got, when, pct)
		}
		if got := debug.SetMemoryLimit(limit); got != limit {
			t.Errorf("memory limit %d %s, want %d", got, when, limit)
		}
	}
	if err := withBuildGC(func() error { check("during the build"); return nil }); err != nil {
		t.Fatal(err)
	}
	check("after the build")
}
