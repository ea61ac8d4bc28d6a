package netrate

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"
)

// fakeClock drives a Meter's clock by hand; its Window is long enough
// (an hour) that the real timer never fires during a test.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func fakeMeter(t *testing.T, f Floor) (*Meter, *fakeClock, *[]*SlowError) {
	t.Helper()
	var trips []*SlowError
	m := Start(f, func(e *SlowError) { trips = append(trips, e) })
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	m.now = clk.now
	t.Cleanup(m.Stop)
	return m, clk, &trips
}

// wait is one wait on the server of d that brings n bytes.
func wait(m *Meter, clk *fakeClock, d time.Duration, n int) {
	m.Arm()
	clk.add(d)
	m.Add(n)
	m.Disarm()
}

func TestNoFloor(t *testing.T) {
	for _, f := range []Floor{{}, {Bytes: -1, Window: time.Second}, {Window: -time.Second}} {
		if m := Start(f, func(*SlowError) { t.Error("tripped") }); m != nil {
			t.Errorf("%+v: a Meter, want none", f)
		}
	}
	var m *Meter // a nil Meter does nothing
	m.Arm()
	m.Add(5)
	m.Disarm()
	m.Stop()
}

// A drip (a byte a minute against 1,000 bytes an hour) trips once a whole
// window of waiting has passed, and not before.
func TestDripTrips(t *testing.T) {
	m, clk, trips := fakeMeter(t, Floor{Window: time.Hour})
	for i := 0; i < 60; i++ { // the first minute is before the first byte: not counted
		wait(m, clk, time.Minute, 1)
	}
	if len(*trips) != 0 {
		t.Fatalf("tripped after 59 minutes of a one-hour window: %v", (*trips)[0])
	}
	for i := 0; i < 6 && len(*trips) == 0; i++ {
		wait(m, clk, time.Minute, 1)
	}
	if len(*trips) != 1 {
		t.Fatalf("%d trips after a window of drip, want 1", len(*trips))
	}
	e := (*trips)[0]
	if e.Got != 61 || !strings.Contains(e.Error(), "61 bytes in the last 1h0m0s, under the floor of 1000 bytes per 1h0m0s") {
		t.Errorf("error %q (got %d)", e, e.Got)
	}
	wait(m, clk, time.Hour, 1) // tripped once only
	if len(*trips) != 1 {
		t.Errorf("%d trips, want 1", len(*trips))
	}
}

// The window slides: a fast start does not cover a slow rest for longer
// than a window.
func TestWindowSlides(t *testing.T) {
	m, clk, trips := fakeMeter(t, Floor{Bytes: 100, Window: 10 * time.Minute})
	wait(m, clk, time.Minute, 1<<20)
	for i := 0; i < 12 && len(*trips) == 0; i++ {
		wait(m, clk, time.Minute, 1)
	}
	if len(*trips) != 1 || (*trips)[0].Got >= 100 {
		t.Fatalf("trips %v after a fast minute and ten slow ones, want one", *trips)
	}
}

// Time while disarmed (the caller working on what arrived) never counts;
// a stall (nothing in the window's last tenth) is the idle timeout's, not
// the floor's; a transfer at the floor passes.
func TestWhatCounts(t *testing.T) {
	m, clk, trips := fakeMeter(t, Floor{Bytes: 100, Window: 10 * time.Minute})
	for i := 0; i < 30; i++ {
		wait(m, clk, time.Minute, 10) // 100 bytes in every 10 minutes: at the floor
		clk.add(time.Hour)            // disarmed
	}
	wait(m, clk, 30*time.Minute, 0) // nothing at all
	if len(*trips) != 0 {
		t.Fatalf("tripped: %v", (*trips)[0])
	}
	// The clock starts with the first byte: a slow first answer is the
	// idle timeout's, and a small one is not a slow transfer.
	m, clk, trips = fakeMeter(t, Floor{Bytes: 100, Window: 10 * time.Minute})
	wait(m, clk, 11*time.Minute, 0)
	wait(m, clk, 0, 10)
	wait(m, clk, 9*time.Minute, 0)
	if len(*trips) != 0 {
		t.Fatalf("tripped: %v", (*trips)[0])
	}
	wait(m, clk, 2*time.Minute, 1)
	if len(*trips) != 1 || (*trips)[0].Got != 11 {
		t.Fatalf("trips %v, want one of 11 bytes", *trips)
	}
}

// Stop ends the measure: nothing trips after it.
func TestStop(t *testing.T) {
	m, clk, trips := fakeMeter(t, Floor{Bytes: 100, Window: 10 * time.Minute})
	wait(m, clk, time.Minute, 1)
	m.Stop()
	wait(m, clk, time.Hour, 1)
	if len(*trips) != 0 {
		t.Fatalf("tripped after Stop: %v", (*trips)[0])
	}
}

// On the real clock: a drip trips by the Meter's own timer while the
// caller is still waiting (armed); a fast transfer never does.
func TestRealClock(t *testing.T) {
	t.Parallel()
	tripped := make(chan *SlowError, 1)
	m := Start(Floor{Bytes: 100, Window: 200 * time.Millisecond}, func(e *SlowError) { tripped <- e })
	defer m.Stop()
	m.Arm() // and never disarmed: only the timer can trip it
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	bound := time.After(20 * time.Second)
	for done := false; !done; {
		select {
		case <-tick.C:
			m.Add(1)
		case e := <-tripped:
			if e.Got <= 0 || e.Got >= 100 {
				t.Errorf("got %d, want 1 to 99", e.Got)
			}
			done = true
		case <-bound:
			t.Fatal("a drip never tripped the floor")
		}
	}

	fast := Start(Floor{Bytes: 100, Window: 50 * time.Millisecond}, func(e *SlowError) { t.Errorf("a fast transfer tripped: %v", e) })
	defer fast.Stop()
	for i := 0; i < 100; i++ {
		fast.Arm()
		time.Sleep(time.Millisecond)
		fast.Add(100) // each read alone meets the floor of any window it is in
		fast.Disarm()
	}
}

// resets is a Timer that records its resets.
type resets []time.Duration

func (r *resets) Reset(d time.Duration) bool { *r = append(*r, d); return true }
func (r *resets) Stop() bool                 { return true }

// errAfter reads its text, then fails with err instead of io.EOF.
type errAfter struct {
	r   io.Reader
	err error
}

func (e errAfter) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		err = e.err
	}
	return n, err
}

// Reader, a body read under a Watch: a read that brings
// bytes restarts the idle timer and is told to OnRead; the bytes count
// towards the floor; an error that is not io.EOF is kept in Err.
func TestReader(t *testing.T) {
	t.Parallel()
	var idle resets
	var told []int
	var slow *SlowError
	m := Start(Floor{Bytes: 1 << 20, Window: time.Hour}, func(se *SlowError) { slow = se })
	defer m.Stop()
	// The meter is disarmed when the caller is told: the time it spends on
	// what arrived is not waiting.
	armed := 0
	r := &Reader{r: iotest.OneByteReader(strings.NewReader("abc")), meter: m, idle: &idle, after: time.Minute, onRead: func(n int) {
		told = append(told, n)
		m.mu.Lock()
		if !m.armedAt.IsZero() {
			armed++
		}
		m.mu.Unlock()
	}}
	data, err := io.ReadAll(r)
	if err != nil || string(data) != "abc" || r.Err != nil {
		t.Fatalf("ReadAll = %q, %v; Err %v", data, err, r.Err)
	}
	if !slices.Equal(idle, []time.Duration{time.Minute, time.Minute, time.Minute}) || !slices.Equal(told, []int{1, 1, 1}) {
		t.Errorf("idle resets %v, told %v; want one each for each of the 3 bytes", idle, told)
	}
	m.mu.Lock()
	got := m.counts[m.cur]
	m.mu.Unlock()
	if got != 3 || slow != nil || armed != 0 {
		t.Errorf("meter counted %d bytes (want 3), tripped %v, armed while the caller was told %d times (want 0)", got, slow, armed)
	}
	cut := errors.New("connection reset")
	idle = nil
	r = &Reader{r: errAfter{strings.NewReader("xy"), cut}, idle: &idle, after: time.Second}
	if _, err := io.ReadAll(r); !errors.Is(err, cut) || !errors.Is(r.Err, cut) {
		t.Errorf("a failing body: %v, Err %v; want both %v", err, r.Err, cut)
	}
	if len(idle) != 1 {
		t.Errorf("idle resets %v, want one (a read of 2 bytes)", idle)
	}
}

// A Watch's context ends with the caller's error when nothing arrives for
// its idle timeout, and with context.Canceled once stopped; its body reads
// what it wraps.
func TestWatch(t *testing.T) {
	t.Parallel()
	stalled := errors.New("stalled")
	ctx, w := StartWatch(context.Background(), time.Millisecond, stalled)
	<-ctx.Done()
	if got := context.Cause(ctx); got != stalled {
		t.Errorf("idle: cause %v, want %v", got, stalled)
	}
	w.Stop()

	ctx, w = StartWatch(context.Background(), time.Hour, stalled)
	n := 0
	data, err := io.ReadAll(w.Body(strings.NewReader("abc"), func(k int) { n += k }))
	if err != nil || string(data) != "abc" || n != 3 {
		t.Errorf("Body: %q %v, told %d", data, err, n)
	}
	if ctx.Err() != nil {
		t.Fatalf("ended before Stop: %v", context.Cause(ctx))
	}
	w.Stop()
	if !errors.Is(context.Cause(ctx), context.Canceled) {
		t.Errorf("after Stop: cause %v, want context.Canceled", context.Cause(ctx))
	}
	// Stop stopped the idle timer and the floor's meter.
	w.meter.mu.Lock()
	meterDone := w.meter.done
	w.meter.mu.Unlock()
	if w.idle.Stop() || !meterDone {
		t.Errorf("after Stop: idle timer still running or meter not done (%v)", meterDone)
	}
}

// WithTotal's bound: d, DefaultTotal for 0, none for a negative d; the
// context ends with a *TotalError that Total finds.
func TestWithTotal(t *testing.T) {
	t.Parallel()
	ctx, cancel := WithTotal(context.Background(), 0)
	dl, ok := ctx.Deadline()
	cancel()
	if !ok || time.Until(dl) < DefaultTotal-time.Minute || time.Until(dl) > DefaultTotal {
		t.Fatalf("WithTotal(0): deadline %v, %v; want DefaultTotal from now", dl, ok)
	}
	ctx, cancel = WithTotal(context.Background(), -1)
	if _, ok := ctx.Deadline(); ok {
		t.Fatal("WithTotal(-1) has a deadline")
	}
	cancel()
	if Total(ctx) != nil {
		t.Fatal("a context cancelled by its caller reports a TotalError")
	}
	ctx, cancel = WithTotal(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	if te := Total(ctx); te == nil || te.Bound != time.Nanosecond || !strings.Contains(te.Error(), "longer than 1ns") {
		t.Fatalf("Total = %v; want the bound of 1ns", te)
	}
}

// own20: a command's budget (WithBudget) bounds all its operations
// together: two operations one after the other share the bound, two at
// once count their common time once, and an operation begun when the
// budget is spent ends at once, with a *TotalError naming the command.
func TestBudgetSharedByOperations(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	clock := time.Now()
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	ctx := WithBudget(context.Background(), time.Hour)
	ctx.Value(budgetKey{}).(*budget).now = now // before any operation: no race

	// 40 minutes, then two at once for 15: 55 spent, 5 left.
	_, end := WithTotal(ctx, time.Minute) // d is not used under a budget
	advance(40 * time.Minute)
	end()
	end() // twice is once
	c1, end1 := WithTotal(ctx, 0)
	c2, end2 := WithTotal(c1, 0) // nested: the workspace's step around the engine's operation
	advance(15 * time.Minute)
	if c1.Err() != nil || c2.Err() != nil {
		t.Fatalf("ended within the budget: %v, %v", context.Cause(c1), context.Cause(c2))
	}
	end2()
	end1()
	advance(time.Hour) // time with no operation running is not network time
	c3, end3 := WithTotal(ctx, 0)
	dl, ok := c3.Deadline()
	if left := time.Until(dl); !ok || left > 5*time.Minute || left < 4*time.Minute {
		t.Fatalf("the third operation's deadline is %v away (%v); want the 5 minutes left", left, ok)
	}
	advance(5 * time.Minute)
	end3()
	c4, end4 := WithTotal(ctx, 0)
	defer end4()
	<-c4.Done() // spent: at once
	te := Total(c4)
	if te == nil || !te.Command || te.Bound != time.Hour || !strings.Contains(te.Error(), "the command's fetches went on for longer than 1h0m0s together") {
		t.Fatalf("Total = %v; want the command's bound of 1h", te)
	}
	// Without a budget, each operation has its own bound; a negative
	// budget is none.
	if got := WithBudget(context.Background(), -1); got.Value(budgetKey{}) != nil {
		t.Error("WithBudget(-1) set a budget")
	}
	c5, end5 := WithTotal(context.Background(), time.Hour)
	defer end5()
	if dl, _ := c5.Deadline(); time.Until(dl) < 59*time.Minute {
		t.Errorf("without a budget, the operation's own bound: %v away", time.Until(dl))
	}
}
