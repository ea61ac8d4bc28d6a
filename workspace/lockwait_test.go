package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/project"
	"github.com/gofrs/flock"
)

// onWait is a log that calls release once, at the line saying Open waits:
// the holder finishes just as the waiter starts waiting, with no sleep.
type onWait struct {
	mu      sync.Mutex
	text    strings.Builder
	release func()
}

func (o *onWait) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.text.Write(p)
	if o.release != nil && strings.Contains(string(p), "waiting for another ctx") {
		o.release()
		o.release = nil
	}
	return len(p), nil
}

func (o *onWait) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.text.String()
}

// holdProjectLock takes the project lock as another ctx (pid 4242) would.
func holdProjectLock(t *testing.T, dir string) *flock.Flock {
	t.Helper()
	p := filepath.Join(dir, project.DirName, project.ProjectLock)
	fl := flock.New(p)
	if ok, err := fl.TryLock(); err != nil || !ok {
		t.Fatalf("lock: %v %v", ok, err)
	}
	if err := os.WriteFile(p, []byte("pid 4242\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fl.Unlock() })
	return fl
}

// A command that changes the project waits for another one working in it,
// with a line naming the holder and the bound (by default minutes, not
// seconds); it gives up naming both; Ctrl-C (its context) ends the wait.
func TestOpenWaitsForTheProjectLock(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, tc := range []struct {
		wait time.Duration
		want string
	}{{0, "up to 10m (CTX_LOCK_WAIT sets how long)"}, {90 * time.Second, "up to 1m30s"}} {
		fl := holdProjectLock(t, f.project)
		log := &onWait{release: func() { fl.Unlock() }}
		o := f.opts()
		o.Log, o.LockWait = log, tc.wait
		w, err := Open(f.project, o)
		if err != nil {
			t.Fatalf("wait %v: %v", tc.wait, err)
		}
		w.Close()
		if s := log.String(); !strings.Contains(s, "waiting for another ctx (pid 4242) working in this project, "+tc.want) {
			t.Errorf("wait %v: the waiter said %q, want the holder and %q", tc.wait, s, tc.want)
		}
	}

	holdProjectLock(t, f.project)
	o := f.opts()
	o.LockWait = 100 * time.Millisecond
	_, err := Open(f.project, o)
	var busy *BusyError
	if !errors.As(err, &busy) || !strings.Contains(err.Error(), "another ctx (pid 4242)") || !strings.Contains(err.Error(), "waited 100ms") {
		t.Fatalf("held all the wait: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o.LockWait, o.Context = time.Hour, ctx
	if _, err := Open(f.project, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted wait: %v", err)
	}
}
