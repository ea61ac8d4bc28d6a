package gitengine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/internal/netrate"
)

// TestBadServerMidPack: a server that stalls, is killed, or closes the
// connection part way through a pack fails the fetch with a clear error in
// bounded time, leaves nothing at dest, and does not poison the cache: the
// next fetch from the healthy server succeeds with the right files.
func TestBadServerMidPack(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Replay, primed by a healthy fetch of the same files: every request
	// below is then answered from memory up to its fault, so git
	// http-backend slowed by the machine's load (over 1s to answer at load
	// 20) is never taken for the stall (the fault was not reached: "asked
	// 0 times") nor for the drip.
	s := f.serve(gittest.ServeOptions{Replay: true})
	url := s.URL + "/repo.git"
	if _, err := New(Options{CacheDir: t.TempDir()}).Materialize(context.Background(), FetchRequest{URL: url, Commit: f.c2, Path: "docs/guides"}, filepath.Join(t.TempDir(), "pkg")); err != nil {
		t.Fatalf("priming fetch: %v", err)
	}
	for _, tc := range []struct {
		name string
		mode gittest.FaultMode
		want string
	}{
		{"stall", gittest.FaultStall, "server stopped responding (no data for 100ms)"},
		{"kill", gittest.FaultKill, "connection"},
		{"close", gittest.FaultClose, "connection"},
		// A byte every 20ms never trips the idle timeout; the rate floor
		// (1,000 bytes a window of 200ms here) gives up on it (issue 25
		// finding 4).
		{"drip", gittest.FaultDrip, "the server is too slow: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The engine's clock stands still until the server reaches the
			// fault (gateClock): no wait before it counts, so a test
			// process starved by the machine's load (seen: over 1s at load
			// 20, under -race) is never taken for the stall (the fault not
			// reached: "asked 0 times") nor for the drip, and the timeouts
			// can be short. After the fault, nothing but the fault comes:
			// any wait there is the server's.
			clock := newGateClock()
			cache := t.TempDir()
			o := Options{CacheDir: cache, IdleTimeout: 100 * time.Millisecond, clock: clock}
			if tc.mode == gittest.FaultKill || tc.mode == gittest.FaultClose {
				// A killed or closed connection fails at once: a long idle
				// timeout, so that a client starved right after the fault
				// is not taken for a stall.
				o.IdleTimeout = 20 * time.Second
			}
			if tc.mode == gittest.FaultDrip {
				// The idle timeout long, so that only the floor can trip
				// (a byte every 20ms of a starved server goroutine is not
				// taken for a stall); the floor's window short: 1,000 bytes
				// in 200ms of waiting, which 10 dripped bytes (plus the at
				// most 600 sent before the fault) never reach. The window
				// defaults to the idle timeout (TestFloorWindowIsIdleTimeout).
				o.IdleTimeout = 20 * time.Second
				o.RateFloor.Window = 200 * time.Millisecond
			}
			if tc.mode != gittest.FaultDrip {
				// The floor could trip first on bytes that came late before
				// the fault; these cases are about the idle timeout.
				o.RateFloor.Bytes = -1
			}
			e := New(o)
			// Bound the test, not the code: a hang fails it instead of the run.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for _, after := range []int64{40, 600} { // in the trees' pack, then in the blobs'
				clock.shut()
				s.SetFault(gittest.Fault{Mode: tc.mode, After: after, Every: 20 * time.Millisecond, Reached: clock.open})
				s.ResetCounters()
				dest := filepath.Join(t.TempDir(), "pkg")
				start := time.Now()
				_, err := e.Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: "docs/guides"}, dest)
				took := time.Since(start)
				if err == nil {
					t.Fatalf("after %d bytes: Materialize succeeded against a failing server", after)
				}
				if ctx.Err() != nil {
					t.Fatalf("after %d bytes: still waiting after %v", after, took)
				}
				// A stall costs one idle timeout, not one per attempt: the
				// stalled server is not asked again (issue 25: 60 s, not 30).
				if n := s.Faulted(); (tc.mode == gittest.FaultStall || tc.mode == gittest.FaultDrip) && n != 1 {
					t.Errorf("after %d bytes: the failing server was asked %d times, want once (each costs an idle timeout; took %v)", after, n, took)
				}
				msg := err.Error()
				if tc.mode == gittest.FaultDrip && (!strings.Contains(msg, url) || !strings.Contains(msg, "raise CTX_NET_TIMEOUT")) {
					t.Errorf("after %d bytes: error %q does not name the source and CTX_NET_TIMEOUT", after, msg)
				}
				if KindOf(err) != KindNetwork || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
					t.Errorf("after %d bytes: error %q (kind %v), want a network error saying %q", after, msg, KindOf(err), tc.want)
				}
				if _, err := os.Lstat(dest); err == nil {
					t.Errorf("after %d bytes: dest exists after a failed fetch", after)
				}
			}
			s.SetFault(gittest.Fault{})
			dest := filepath.Join(t.TempDir(), "pkg")
			res, err := New(Options{CacheDir: cache}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: "docs/guides"}, dest)
			if err != nil {
				t.Fatalf("healthy server after the failures: %v", err)
			}
			for _, file := range res.Files {
				if file.Mode&os.ModeSymlink != 0 {
					continue
				}
				got, err := os.ReadFile(filepath.Join(dest, file.Path))
				want, werr := os.ReadFile(filepath.Join(f.src, "docs/guides", file.Path))
				if err != nil || werr != nil || string(got) != string(want) {
					t.Errorf("%s: %q (%v), want %q (%v)", file.Path, got, err, want, werr)
				}
			}
			if len(res.Files) != 6 {
				t.Errorf("got %d files, want 6", len(res.Files))
			}
		})
	}
}

// TestFloorWindowIsIdleTimeout: the rate floor's window is the idle timeout
// unless set (its own when set), and there is no floor without an idle
// timeout (Options.RateFloor).
func TestFloorWindowIsIdleTimeout(t *testing.T) {
	for _, tc := range []struct {
		floor netrate.Floor
		idle  time.Duration
		want  netrate.Floor
	}{
		{netrate.Floor{}, 3 * time.Second, netrate.Floor{Window: 3 * time.Second}},
		{netrate.Floor{Bytes: 10}, DefaultIdleTimeout, netrate.Floor{Bytes: 10, Window: DefaultIdleTimeout}},
		{netrate.Floor{Window: time.Second}, time.Minute, netrate.Floor{Window: time.Second}},
		{netrate.Floor{}, -1, netrate.Floor{}},
		{netrate.Floor{Window: time.Second}, -1, netrate.Floor{}},
	} {
		e := New(Options{RateFloor: tc.floor})
		if got := e.floor(tc.idle); got != tc.want {
			t.Errorf("floor %+v, idle %v: got %+v, want %+v", tc.floor, tc.idle, got, tc.want)
		}
	}
}

// gateClock is a netrate.Clock that stands still while shut and runs with
// the real clock once open: a timer set while shut starts its whole
// duration when the clock opens. TestBadServerMidPack opens it when its
// server reaches the fault (gittest.Fault.Reached).
type gateClock struct {
	mu      sync.Mutex
	t0      time.Time    // the time it shows while shut
	openAt  time.Time    // zero while shut
	pending []*gateTimer // timers set while shut
}

func newGateClock() *gateClock { return &gateClock{t0: time.Now()} }

func (c *gateClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nowLocked()
}

func (c *gateClock) nowLocked() time.Time {
	if c.openAt.IsZero() {
		return c.t0
	}
	return c.t0.Add(time.Since(c.openAt))
}

// open starts the clock, and the timers set while it stood still.
func (c *gateClock) open() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.openAt.IsZero() {
		return
	}
	c.openAt = time.Now()
	for _, t := range c.pending {
		t.queued = false
		if t.active {
			t.real = time.AfterFunc(t.d, t.f)
		}
	}
	c.pending = nil
}

// shut stops the clock again (between two fetches; their timers are
// stopped by then).
func (c *gateClock) shut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t0 = c.nowLocked()
	c.openAt = time.Time{}
}

func (c *gateClock) AfterFunc(d time.Duration, f func()) netrate.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &gateTimer{c: c, d: d, f: f, active: true}
	if c.openAt.IsZero() {
		c.pending, t.queued = append(c.pending, t), true
	} else {
		t.real = time.AfterFunc(d, f)
	}
	return t
}

// gateTimer is a gateClock's timer: a real one once the clock is open.
type gateTimer struct {
	c      *gateClock
	d      time.Duration
	f      func()
	active bool        // set while shut, not stopped
	queued bool        // in c.pending
	real   *time.Timer // once started on the real clock
}

func (t *gateTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if t.real != nil {
		return t.real.Reset(d)
	}
	was := t.active
	t.d, t.active = d, true
	if !t.c.openAt.IsZero() {
		t.real = time.AfterFunc(d, t.f)
	} else if !t.queued {
		t.c.pending, t.queued = append(t.c.pending, t), true
	}
	return was
}

func (t *gateTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if t.real != nil {
		return t.real.Stop()
	}
	was := t.active
	t.active = false
	return was
}
