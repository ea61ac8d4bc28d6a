// Package netrate owns the rate floor of a network transfer, the rule both
// the git engine and the https fetcher apply: a transfer that moves fewer
// than Floor.Bytes over a Floor.Window of the time it spends waiting on the
// server is given up with a *SlowError, as curl's --speed-limit and
// --speed-time do. The idle timeout (nothing at all for a while) is the
// caller's, in its words (a Watch runs both for an http request); the
// floor catches the server that sends a byte now and then, which an idle
// timeout never trips on.
//
// The window slides: it is checked every Window/10 of waiting time over the
// last Window of it. The clock starts with the first byte: the wait for a
// first answer is the idle timeout's, and a small answer that is slow to
// come is not a slow transfer. Only time while the Meter is armed counts, so a caller
// that disarms it while it works on what arrived (a slow disk, a long delta
// resolution) is never taken for a slow server. A window whose last tenth
// brought nothing is a stall, not a trickle: it is left to the caller's
// idle timeout, which says so.
package netrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// DefaultBytes is the least a transfer must move in each window: 1,000
// bytes (curl's --speed-limit of the issue, over its --speed-time, which
// ctx takes from the idle timeout).
const DefaultBytes = 1000

// Clock is the time a Meter counts waiting in, and its callers' idle
// timers: nil is the real clock (time.Now, time.AfterFunc). Tests of a
// caller give one that stands still until the fault they inject is reached,
// so that no wait before it, however slow the machine, counts.
type Clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is what Clock.AfterFunc returns: a *time.Timer on the real clock.
type Timer interface {
	Reset(d time.Duration) bool
	Stop() bool
}

// AfterFunc is c.AfterFunc, or time.AfterFunc when c is nil.
func AfterFunc(c Clock, d time.Duration, f func()) Timer {
	if c == nil {
		return time.AfterFunc(d, f)
	}
	return c.AfterFunc(d, f)
}

// Floor is a rate floor: at least Bytes in every Window of waiting time.
type Floor struct {
	Bytes  int64         // 0 = DefaultBytes; negative = no floor
	Window time.Duration // 0 or negative = no floor
}

// On reports whether f sets a floor at all.
func (f Floor) On() bool { return f.Bytes >= 0 && f.Window > 0 }

func (f Floor) bytes() int64 {
	if f.Bytes == 0 {
		return DefaultBytes
	}
	return f.Bytes
}

// SlowError is why a transfer was given up: Got bytes over the last
// Window, under the floor.
type SlowError struct {
	Floor Floor
	Got   int64
}

func (e *SlowError) Error() string {
	return fmt.Sprintf("the server is too slow: %d bytes in the last %s, under the floor of %d bytes per %s",
		e.Got, e.Floor.Window, e.Floor.bytes(), e.Floor.Window)
}

// slots is how many steps the window slides in.
const slots = 10

// Meter measures one transfer against a Floor. Its methods may be called
// from several goroutines; a nil *Meter (no floor) does nothing.
type Meter struct {
	f     Floor
	slot  time.Duration
	trip  func(*SlowError)
	now   func() time.Time
	clock Clock // nil: the real one

	mu      sync.Mutex
	counts  [slots]int64  // bytes in each of the last slots, a ring
	cur     int           // the slot being filled
	full    int           // slots completed, up to slots
	inSlot  time.Duration // waiting time in the current slot, before armedAt
	armedAt time.Time     // zero while disarmed
	timer   Timer
	started bool // a byte has come: waiting time counts from then
	done    bool
}

// Start returns a disarmed Meter for f that calls trip once when the
// transfer falls under the floor (from a timer's goroutine, or from
// Disarm), never under a lock of the Meter; nil when f sets no floor.
func Start(f Floor, trip func(*SlowError)) *Meter { return StartClock(f, nil, trip) }

// StartClock is Start on clock c (nil: the real clock).
func StartClock(f Floor, c Clock, trip func(*SlowError)) *Meter {
	if !f.On() {
		return nil
	}
	now := time.Now
	if c != nil {
		now = c.Now
	}
	return &Meter{f: f, slot: max(f.Window/slots, time.Millisecond), trip: trip, now: now, clock: c}
}

// Arm starts counting time: the caller is about to wait on the server.
func (m *Meter) Arm() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.done || !m.armedAt.IsZero() {
		return
	}
	m.armedAt = m.now()
	if m.timer == nil {
		m.timer = AfterFunc(m.clock, m.slot-m.inSlot, m.fire)
	} else {
		m.timer.Reset(m.slot - m.inSlot)
	}
}

// Disarm stops counting time: what was waited for arrived.
func (m *Meter) Disarm() {
	if m == nil {
		return
	}
	m.mu.Lock()
	if m.done || m.armedAt.IsZero() {
		m.mu.Unlock()
		return
	}
	m.timer.Stop()
	m.inSlot += m.now().Sub(m.armedAt)
	m.armedAt = time.Time{}
	err := m.advance()
	m.mu.Unlock()
	if err != nil {
		m.trip(err)
	}
}

// Add counts n bytes received.
func (m *Meter) Add(n int) {
	if m == nil || n <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.started && !m.done {
		m.started = true
		m.inSlot = 0
		if !m.armedAt.IsZero() {
			m.armedAt = m.now()
			m.timer.Reset(m.slot)
		}
	}
	m.counts[m.cur] += int64(n)
}

// Stop ends the measure; trip is not called after it returns.
func (m *Meter) Stop() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done = true
	if m.timer != nil {
		m.timer.Stop()
	}
}

// fire is the timer's: a slot of waiting time may have passed.
func (m *Meter) fire() {
	m.mu.Lock()
	if m.done || m.armedAt.IsZero() {
		m.mu.Unlock()
		return
	}
	now := m.now()
	m.inSlot += now.Sub(m.armedAt)
	m.armedAt = now
	err := m.advance()
	if err == nil {
		m.timer.Reset(m.slot - m.inSlot)
	}
	m.mu.Unlock()
	if err != nil {
		m.trip(err)
	}
}

// advance closes every slot the waiting time has filled, checking the
// window at each once the first window is complete. It returns the error
// to trip with (and marks m done), or nil. m.mu is held.
func (m *Meter) advance() *SlowError {
	if !m.started {
		m.inSlot = 0 // waiting for a first byte: the idle timeout's
		return nil
	}
	for m.inSlot >= m.slot {
		m.inSlot -= m.slot
		if m.full < slots {
			m.full++
		}
		if m.full == slots && m.counts[m.cur] > 0 {
			var got int64
			for _, n := range m.counts {
				got += n
			}
			if got < m.f.bytes() {
				m.done = true
				return &SlowError{Floor: Floor{Bytes: m.f.bytes(), Window: m.f.Window}, Got: got}
			}
		}
		m.cur = (m.cur + 1) % slots
		m.counts[m.cur] = 0
	}
	return nil
}

// Watch is one request's watch, the https fetcher's and the embedder's:
// its context ends with the caller's stalled error when nothing arrives
// for the idle timeout (the caller's rule, in its words), and with a
// *SlowError when the body moves less than the floor (DefaultBytes) in a
// window of that timeout (this package's). gitengine has its own, on its
// Clock and with its per-operation watchdog.
type Watch struct {
	cancel context.CancelCauseFunc
	idle   *time.Timer
	after  time.Duration
	meter  *Meter
}

// StartWatch starts a Watch of ctx with the idle timeout idle. The request
// is made with the context it returns, its body read through Body; Stop
// ends the watch and the context.
func StartWatch(ctx context.Context, idle time.Duration, stalled error) (context.Context, *Watch) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &Watch{cancel: cancel, after: idle}
	w.idle = time.AfterFunc(idle, func() { cancel(stalled) })
	w.meter = Start(Floor{Window: idle}, func(se *SlowError) { cancel(se) })
	return ctx, w
}

// Body is r read under the watch; onRead, when not nil, is told of each
// read's bytes.
func (w *Watch) Body(r io.Reader, onRead func(n int)) *Reader {
	return &Reader{r: r, meter: w.meter, idle: w.idle, after: w.after, onRead: onRead}
}

// Stop ends the watch: the floor, the idle timer, then the context.
func (w *Watch) Stop() {
	w.meter.Stop()
	w.idle.Stop()
	w.cancel(nil)
}

// Reader is a body read under a Watch: each read is timed against the
// meter (Arm, Add, Disarm: the time the caller spends on what arrived is
// not counted), and a read that brings bytes restarts the idle timer,
// then tells onRead how many. Err is the last error a read returned but
// io.EOF, for a caller that must tell it from an error of where it copies
// the body to.
type Reader struct {
	r      io.Reader
	meter  *Meter
	idle   Timer
	after  time.Duration
	onRead func(n int)
	Err    error
}

func (r *Reader) Read(p []byte) (int, error) {
	r.meter.Arm()
	n, err := r.r.Read(p)
	r.meter.Add(n)
	r.meter.Disarm()
	if n > 0 {
		r.idle.Reset(r.after)
		if r.onRead != nil {
			r.onRead(n)
		}
	}
	if err != nil && err != io.EOF {
		r.Err = err
	}
	return n, err
}

// The total bound of a command's fetches (red18 finding 4): the floor
// lets a server that sends 34 bytes a second go on for as long as the
// body's size allows (days for a 10 MiB document), so fetching also ends
// after a total time, whatever it moves. npm bounds a request by a total
// time (fetch-timeout, 5 minutes); cargo and go modules have only their
// floors and idle timeouts. A command is many requests (an llms.txt's
// pages, a git negotiation and its pack, several packages), hence a longer
// default; the user raises it (cmd/ctx: CTX_FETCH_TIMEOUT) up to
// CeilingTotal.
//
// The bound is the whole command's (WithBudget, own20): every network
// operation made under its context (WithTotal) draws on one budget of
// network time, so that a command of k operations cannot take k bounds.
// Without a budget in the context (a library caller, a long-running
// server's separate requests) each operation has a bound of its own.
const (
	DefaultTotal = 30 * time.Minute
	CeilingTotal = 24 * time.Hour
)

// TotalError is why a fetch was given up: it went on for longer than
// Bound, the bound of one operation, or with Command, of all the network
// operations of the command together.
type TotalError struct {
	Bound   time.Duration
	Command bool
}

func (e *TotalError) Error() string {
	if e.Command {
		return fmt.Sprintf("the command's fetches went on for longer than %s together, the most one command's network time may be (a server that sends slowly, or very large sources)", e.Bound)
	}
	return fmt.Sprintf("the fetch went on for longer than %s, the most one package's fetch may take (a server that sends slowly, or a very large source)", e.Bound)
}

// Hint says how to raise the bound, for the error a user reads.
func (e *TotalError) Hint() string {
	return fmt.Sprintf("if the server is slow but working, raise the bound with CTX_FETCH_TIMEOUT (say CTX_FETCH_TIMEOUT=%s; at most %s)", min(2*e.Bound, CeilingTotal), CeilingTotal)
}

// budgetKey is the context key of a command's *budget.
type budgetKey struct{}

// budget is one command's bound of network time: the time during which at
// least one operation drawing on it runs (operations in parallel count
// once), at most bound.
type budget struct {
	bound time.Duration
	now   func() time.Time // time.Now; a test's clock

	mu    sync.Mutex
	spent time.Duration // the busy periods that ended
	busy  int           // operations running
	since time.Time     // when the current busy period began
}

// WithBudget returns ctx carrying one total bound d of network time for
// every operation made under it (WithTotal): d = 0 is DefaultTotal,
// negative is none (ctx itself).
func WithBudget(ctx context.Context, d time.Duration) context.Context {
	if d < 0 {
		return ctx
	}
	if d == 0 {
		d = DefaultTotal
	}
	return context.WithValue(ctx, budgetKey{}, &budget{bound: d, now: time.Now})
}

// start begins an operation on b: a context that ends, with a *TotalError
// as its cause, when b is spent (at once when it already is), and the
// function that ends the operation.
func (b *budget) start(ctx context.Context) (context.Context, context.CancelFunc) {
	b.mu.Lock()
	now := b.now()
	if b.busy == 0 {
		b.since = now
	}
	b.busy++
	left := b.bound - b.spent - now.Sub(b.since)
	b.mu.Unlock()
	ctx, cancel := context.WithTimeoutCause(ctx, left, &TotalError{Bound: b.bound, Command: true})
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			b.mu.Lock()
			if b.busy--; b.busy == 0 {
				b.spent += b.now().Sub(b.since)
			}
			b.mu.Unlock()
		})
		cancel()
	}
}

// WithTotal returns ctx bounded for one network operation: by the
// command's budget when ctx carries one (WithBudget; d is then not
// used), else to d from now, d = 0 being DefaultTotal and negative no
// bound. The context ends with a *TotalError as its cause.
func WithTotal(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if b, ok := ctx.Value(budgetKey{}).(*budget); ok {
		return b.start(ctx)
	}
	if d < 0 {
		return context.WithCancel(ctx)
	}
	if d == 0 {
		d = DefaultTotal
	}
	return context.WithTimeoutCause(ctx, d, &TotalError{Bound: d})
}

// Total returns the *TotalError that ended ctx, or nil: the error to
// report for a fetch made under WithTotal's context whatever error the
// transport made of the cancellation.
func Total(ctx context.Context) *TotalError {
	var te *TotalError
	if errors.As(context.Cause(ctx), &te) {
		return te
	}
	return nil
}
