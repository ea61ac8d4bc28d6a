package main

import (
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestDeferFirstGC: deferFirstGC turns the collector off under a memory
// limit of startHeap, and the first collection puts Go's defaults back
// (GOGC 100, no limit), so a big command collects as it did. It changes
// the whole process's collector, so it runs in a child process of its own
// (this test binary again), where no other test allocates meanwhile.
func TestDeferFirstGC(t *testing.T) {
	if !inOwnProcess(t, "CTX_TEST_DEFER_GC") {
		return
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

// withoutGCEnv is env without GOGC and GOMEMLIMIT, which deferFirstGC
// leaves alone.
// inOwnProcess runs t again in a child process of this test binary, with
// env set to 1 and neither GOGC nor GOMEMLIMIT (a test of the process's
// collector: no other test allocates there), and reports whether this is
// that child, where t does its work; the parent reports the child's
// failure.
func inOwnProcess(t *testing.T, env string) bool {
	t.Helper()
	if os.Getenv(env) == "1" {
		return true
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
	cmd.Env = append(withoutGCEnv(os.Environ()), env+"=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	return false
}

func withoutGCEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if len(kv) >= 5 && kv[:5] == "GOGC=" || len(kv) >= 11 && kv[:11] == "GOMEMLIMIT=" {
			continue
		}
		out = append(out, kv)
	}
	return out
}
