package lockwait

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// TestExclusive: a free lock is taken; a held one gives ok false after the
// wait (or at once with no wait), and is taken once its holder lets go
// within the wait.
func TestExclusive(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	holder := flock.New(p)
	if ok, err := Exclusive(context.Background(), holder, 0); !ok || err != nil {
		t.Fatalf("free lock: %v %v", ok, err)
	}
	other := flock.New(p)
	for _, wait := range []time.Duration{0, 100 * time.Millisecond} {
		if ok, err := Exclusive(context.Background(), other, wait); ok || err != nil {
			t.Errorf("held lock, wait %v: ok %v, err %v; want false, nil", wait, ok, err)
		}
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		holder.Unlock()
	}()
	if ok, err := Exclusive(context.Background(), other, time.Minute); !ok || err != nil {
		t.Errorf("lock let go within the wait: %v %v", ok, err)
	}
	other.Unlock()
}

// TestShared: a shared lock is taken beside another shared one, and not
// while an exclusive one is held (ok false, no error, after the wait).
func TestShared(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "x.lock")
	a, b := flock.New(p), flock.New(p)
	for _, fl := range []*flock.Flock{a, b} {
		if ok, err := Shared(context.Background(), fl, 0); !ok || err != nil {
			t.Fatalf("shared beside shared: %v %v", ok, err)
		}
	}
	if ok, err := Exclusive(context.Background(), flock.New(p), 0); ok || err != nil {
		t.Errorf("exclusive beside shared: ok %v, err %v; want false, nil", ok, err)
	}
	a.Unlock()
	b.Unlock()
	x := flock.New(p)
	if ok, err := Exclusive(context.Background(), x, 0); !ok || err != nil {
		t.Fatalf("free lock: %v %v", ok, err)
	}
	defer x.Unlock()
	for _, wait := range []time.Duration{0, 30 * time.Millisecond} {
		if ok, err := Shared(context.Background(), flock.New(p), wait); ok || err != nil {
			t.Errorf("shared beside exclusive, wait %v: ok %v, err %v; want false, nil", wait, ok, err)
		}
	}
}

// TestForever: with Forever the wait ends when the lock is let go, or when
// ctx ends, and then with ctx's error, never with ok false and no error.
func TestForever(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "x.lock")
	holder := flock.New(p)
	if ok, err := Exclusive(context.Background(), holder, 0); !ok || err != nil {
		t.Fatalf("free lock: %v %v", ok, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, take := range []func(context.Context, *flock.Flock, time.Duration) (bool, error){Exclusive, Shared} {
		if ok, err := take(ctx, flock.New(p), Forever); ok || !errors.Is(err, context.Canceled) {
			t.Errorf("held lock, ended ctx: ok %v, err %v; want false, %v", ok, err, context.Canceled)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		holder.Unlock() // before or during the wait: either way it ends taken
	}()
	other := flock.New(p)
	if ok, err := Exclusive(context.Background(), other, Forever); !ok || err != nil {
		t.Errorf("lock let go: %v %v", ok, err)
	}
	<-done
	other.Unlock()
}
