package gitengine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/netrate"
)

// DefaultIdleTimeout is how long a fetch waits for the next byte from a
// server before giving up on it (Options.IdleTimeout).
const DefaultIdleTimeout = 30 * time.Second

// StalledError is the cause of a network operation given up because the
// server sent nothing for Idle.
type StalledError struct{ Idle time.Duration }

func (e *StalledError) Error() string {
	return fmt.Sprintf("server stopped responding (no data for %s)", e.Idle)
}

// errCutShort is the cause of a response that ended before it was complete
// (the server closed the connection, or died).
var errCutShort = errors.New("the server closed the connection before the transfer was complete")

// cutShort marks err, when it says a response ended early, with errCutShort.
// go-git loses the chain in some of its messages ("error decoding
// upload-pack response: unexpected EOF"), hence the suffix test.
func cutShort(err error) error {
	if err == nil || errors.Is(err, errCutShort) {
		return err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || strings.HasSuffix(err.Error(), io.ErrUnexpectedEOF.Error()) {
		return fmt.Errorf("%w (%v)", errCutShort, err)
	}
	return err
}

// watchdog gives up on one network operation (an advertisement, or one
// upload-pack request and its response) when the server has sent nothing
// for its idle time while ctx waits on it: it cancels the operation's
// context with a *StalledError. Its meter applies the rate floor
// (internal/netrate, the rule's owner) to the same waits: a server that
// sends a byte now and then is given up with a *netrate.SlowError. Both
// are armed while something waits on the network and disarmed while ctx
// works on what arrived, so slow disks or a long delta resolution never
// count as a stalled or slow server.
type watchdog struct {
	idle   time.Duration
	timer  netrate.Timer
	meter  *netrate.Meter
	cancel context.CancelCauseFunc
}

type watchdogKey struct{}

// floor is the rate floor of e's network operations: Options.RateFloor,
// its window the idle timeout unless set; none when the idle timeout is
// off.
func (e *Engine) floor(idle time.Duration) netrate.Floor {
	f := e.opts.RateFloor
	if f.Window == 0 {
		f.Window = idle
	}
	if idle <= 0 {
		f.Window = 0
	}
	return f
}

// watch returns a context for one network operation, with a watchdog that
// starts armed (a connect and the wait for the first answer count), and a
// stop function that disarms it and releases the context.
func (e *Engine) watch(ctx context.Context) (context.Context, *watchdog, func()) {
	idle := e.opts.IdleTimeout
	if idle == 0 {
		idle = DefaultIdleTimeout
	}
	ctx, cancelTotal := netrate.WithTotal(ctx, e.opts.Total)
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watchdog{idle: idle, cancel: cancel}
	if idle > 0 {
		w.timer = netrate.AfterFunc(e.opts.clock, idle, func() { cancel(&StalledError{Idle: idle}) })
	}
	w.meter = netrate.StartClock(e.floor(idle), e.opts.clock, func(se *netrate.SlowError) { cancel(se) })
	w.meter.Arm()
	ctx = context.WithValue(ctx, watchdogKey{}, w)
	return ctx, w, func() {
		w.disarm()
		w.meter.Stop()
		cancel(nil)
		cancelTotal()
	}
}

// watchdogOf returns the watchdog of ctx, or nil.
func watchdogOf(ctx context.Context) *watchdog {
	w, _ := ctx.Value(watchdogKey{}).(*watchdog)
	return w
}

// arm (re)starts the countdown: something is about to wait on the server.
func (w *watchdog) arm() {
	if w == nil {
		return
	}
	if w.timer != nil {
		w.timer.Reset(w.idle)
	}
	w.meter.Arm()
}

// moved counts n bytes received for the rate floor.
func (w *watchdog) moved(n int) {
	if w != nil {
		w.meter.Add(n)
	}
}

// disarm stops the countdown: what was waited for arrived.
func (w *watchdog) disarm() {
	if w == nil {
		return
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	w.meter.Disarm()
}

// timedOut reports whether err gave up on a server for its time (a
// *StalledError, a *netrate.SlowError or a *netrate.TotalError): such a
// failure is reported, never retried, so one network operation costs at
// most one idle timeout (or one window of the rate floor, or the total
// bound).
func timedOut(err error) bool {
	var se *StalledError
	var slow *netrate.SlowError
	var total *netrate.TotalError
	return errors.As(err, &se) || errors.As(err, &slow) || errors.As(err, &total)
}

// stalled returns err, or the *StalledError, *netrate.SlowError or
// *netrate.TotalError behind it when ctx was given up by its watchdog or
// its total bound (the transports report that as
// a cancelled context, a closed connection or a broken pipe).
func stalled(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cause := context.Cause(ctx); timedOut(cause) && !timedOut(err) {
		return cause
	}
	return err
}
