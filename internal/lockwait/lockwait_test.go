package lockwait

import (
	"context"
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
