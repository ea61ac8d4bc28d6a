package indexer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

	// A free lock is taken (and indexDir made) at once.
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
		// The note reaches a person's terminal, whatever its locale (LANG=C
		// too), and the indexer does not know it: "...", as workspace's own
		// waiting line, never "…" (polish21a).
		if c.wantNote && len(notes) > 0 && !strings.HasSuffix(notes[0], " ...") {
			t.Errorf("%s: note %q, want it to end in ASCII \" ...\"", c.name, notes[0])
		}
	}

	// A holder that lets go is waited for: it lets go only after the note
	// (so the first try has failed and the wait is what takes the lock),
	// and a little later, so a wait cut short gives ErrIndexBusy here.
	other := flock.New(filepath.Join(indexDir, lockFile))
	l.Unlock()
	if ok, err := other.TryLock(); !ok || err != nil {
		t.Fatal(ok, err)
	}
	noted := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		got, err := lockIndex(context.Background(), d, indexDir, lockwait.Forever, func(string) { close(noted) })
		if got != nil {
			got.Unlock()
		}
		done <- err
	}()
	select {
	case <-noted:
	case err := <-done:
		t.Fatalf("forever, held: returned without waiting: %v", err)
	}
	time.Sleep(120 * time.Millisecond) // past two of lockwait's polls; the test holds without it
	other.Unlock()
	if err := <-done; err != nil {
		t.Errorf("forever, holder let go: %v", err)
	}
}

// Sync waits for another process's index lock (a note, then the index),
// where StartSync would be ErrIndexBusy (TestStreamBusy).
func TestSyncWaitsForTheLock(t *testing.T) {
	t.Parallel()
	dir := setupCorpus(t)
	indexDir := filepath.Join(dir, "index")
	if err := os.MkdirAll(indexDir, 0o755); err != nil {
		t.Fatal(err)
	}
	other := flock.New(filepath.Join(indexDir, lockFile))
	if ok, err := other.TryLock(); !ok || err != nil {
		t.Fatal(ok, err)
	}
	noted := make(chan struct{})
	var once sync.Once
	warn := func(s string) {
		if strings.Contains(s, "waiting for another ctx process") {
			once.Do(func() { close(noted) })
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := Sync(context.Background(), dir, testPackages(), Options{Warn: warn})
		done <- err
	}()
	select {
	case <-noted:
	case err := <-done:
		t.Fatalf("Sync with the lock held returned without waiting: %v", err)
	}
	time.Sleep(120 * time.Millisecond) // past two of lockwait's polls
	other.Unlock()
	if err := <-done; err != nil {
		t.Fatalf("Sync with the lock let go: %v", err)
	}
}
