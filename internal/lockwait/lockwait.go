// Package lockwait takes a file lock with a bounded wait, as the collectors
// of ctx's shared caches do: a cache another process is using is waited for
// a while, then skipped.
package lockwait

import (
	"context"
	"errors"
	"time"

	"github.com/gofrs/flock"
)

// pollInterval is how often a held lock is tried again.
const pollInterval = 50 * time.Millisecond

// Exclusive takes fl exclusively, trying once when wait <= 0 and else for
// up to wait. ok is false, with no error, when another process held it all
// that time; an error is the lock's own, or ctx's when ctx ends first.
func Exclusive(ctx context.Context, fl *flock.Flock, wait time.Duration) (ok bool, err error) {
	if wait <= 0 {
		return fl.TryLock()
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	ok, err = fl.TryLockContext(wctx, pollInterval)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return false, nil
	}
	return ok, err
}
