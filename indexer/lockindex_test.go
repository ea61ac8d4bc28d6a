package indexer

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/lockwait"
	"github.com/gofrs/flock"
)

// lockIndex is the one way the index's writer lock is taken: StartSync's
// (wait 0: a held lock is ErrIndexBusy at once, with no note) and Sync's
// (lockwait.Forever: a note, then a wait that only ctx ends), and any
// bounded wait between (ErrIndexBusy once it runs out).
func TestLockIndexWait(t *testing.T) {
	t.Parallel()
	contextDir := t.TempDir()
	indexDir := filepath.Join(contextDir, "index")
	d := confine.New(contextDir)

	// A free lock is taken (and indexDir made), whatever the wait.
	l, err := lockIndex(context.Background(), d, indexDir, 0, func(s string) { t.Errorf("note on a free lock: %s", s) })
	if err != nil {
		t.Fatalf("free lock: %v", err)
	}
	defer l.Unlock()

	// Held by l from here on (flock locks are per open file).
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name     string
		ctx      context.Context
		wait     time.Duration
		busy     bool // ErrIndexBusy, else ctx's error
		wantNote bool
	}{
		{"try only", context.Background(), 0, true, false},
		{"bounded", context.Background(), time.Millisecond, true, true},
		{"forever, ctx ended", cancelled, lockwait.Forever, false, true},
	} {
		var notes []string
		got, err := lockIndex(c.ctx, d, indexDir, c.wait, func(s string) { notes = append(notes, s) })
		if got != nil {
			got.Unlock()
			t.Errorf("%s: took a held lock", c.name)
			continue
		}
		if c.busy && (!errors.Is(err, ErrIndexBusy) || !strings.Contains(err.Error(), indexDir)) {
			t.Errorf("%s: err %v, want ErrIndexBusy naming %s", c.name, err, indexDir)
		}
		if !c.busy && (!errors.Is(err, context.Canceled) || errors.Is(err, ErrIndexBusy)) {
			t.Errorf("%s: err %v, want ctx's error", c.name, err)
		}
		if (len(notes) > 0) != c.wantNote || c.wantNote && !strings.Contains(notes[0], "waiting for another ctx process") {
			t.Errorf("%s: notes %q, want a note %v", c.name, notes, c.wantNote)
		}
	}

	// A holder that lets go is waited for.
	other := flock.New(filepath.Join(indexDir, lockFile))
	l.Unlock()
	if ok, err := other.TryLock(); !ok || err != nil {
		t.Fatal(ok, err)
	}
	done := make(chan error, 1)
	go func() {
		got, err := lockIndex(context.Background(), d, indexDir, lockwait.Forever, func(string) {})
		if got != nil {
			got.Unlock()
		}
		done <- err
	}()
	other.Unlock()
	if err := <-done; err != nil {
		t.Errorf("forever, holder let go: %v", err)
	}
}
