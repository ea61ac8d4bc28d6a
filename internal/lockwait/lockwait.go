// Package lockwait takes a file lock with a bounded wait: the one way ctx
// waits for a lock file another process holds (the project lock, the
// index's writer lock, a git cache's locks, the https cache's lock). A lock
// held all the wait is reported, not an error, so that each caller says
// what it means (skipped, busy, try again).
package lockwait

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/gofrs/flock"
)

// pollInterval is how often a held lock is tried again.
const pollInterval = 50 * time.Millisecond

// Forever is a wait that only ctx ends: ok is then false only with an
// error (ctx's).
const Forever time.Duration = math.MaxInt64

// Exclusive takes fl exclusively, trying once when wait <= 0 and else for
// up to wait. ok is false, with no error, when another process held it all
// that time; an error is the lock's own, or ctx's when ctx ends first.
func Exclusive(ctx context.Context, fl *flock.Flock, wait time.Duration) (ok bool, err error) {
	return takeFile(ctx, fl, fl.TryLock, fl.TryLockContext, wait)
}

// Shared takes fl shared, as Exclusive takes it exclusively.
func Shared(ctx context.Context, fl *flock.Flock, wait time.Duration) (ok bool, err error) {
	return takeFile(ctx, fl, fl.TryRLock, fl.TryRLockContext, wait)
}

// takeFile is take for fl: a lock file that is a symbolic link is
// ErrLinkedLock (File's, where the open cannot refuse one: looked at
// first); one taken that is not a regular file is let go and refused.
func takeFile(ctx context.Context, fl *flock.Flock, try func() (bool, error), poll func(context.Context, time.Duration) (bool, error), wait time.Duration) (bool, error) {
	if noFollow == 0 {
		if err := linked(fl.Path(), nil); err != nil {
			return false, err
		}
	}
	ok, err := take(ctx, try, poll, wait)
	if err != nil {
		err = linked(fl.Path(), err)
	}
	if ok {
		// What was opened and locked, not what the path is now: a lock
		// on a fifo or a folder is no lock ctx made (review of own21).
		if fi, serr := fl.Stat(); serr == nil && !fi.Mode().IsRegular() {
			_ = fl.Unlock()
			return false, notRegular(fl.Path(), fi.Mode())
		}
	}
	return ok, err
}

func take(ctx context.Context, try func() (bool, error), poll func(context.Context, time.Duration) (bool, error), wait time.Duration) (ok bool, err error) {
	if wait <= 0 {
		return try()
	}
	if wait == Forever {
		ok, err = poll(ctx, pollInterval)
		if !ok && err == nil {
			err = ctx.Err()
		}
		return ok, err
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	ok, err = poll(wctx, pollInterval)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return false, nil
	}
	return ok, err
}
