package gitengine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// TestCredentialFillOneAtATime: fetches run in parallel, and each remote
// that wants credentials runs `git credential fill`, which asks at the
// terminal when no helper answers. Two at once asked two questions on one
// terminal, their answers read by either (rv-wiz20): they are asked one
// after the other. The first fill's Prompting waits for a second to start
// (up to a bound, no assertion on time): one that started meanwhile ran
// alongside.
func TestCredentialFillOneAtATime(t *testing.T) {
	t.Parallel()
	o, home := isolate(t)
	f := newFixture(t)
	s1 := f.serve(gittest.ServeOptions{BasicAuth: "alice:s3cret-pass"})
	s2 := f.serve(gittest.ServeOptions{BasicAuth: "alice:s3cret-pass"})
	store := filepath.Join(home, "creds")
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[credential]\n\thelper = store --file="+store+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var creds strings.Builder
	for _, u := range []string{s1.URL, s2.URL} {
		creds.WriteString("http://alice:s3cret-pass@" + strings.TrimPrefix(u, "http://") + "\n")
	}
	if err := os.WriteFile(store, []byte(creds.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	active, most := 0, 0
	second := make(chan struct{})
	var once sync.Once
	o.Prompting = func() func() {
		mu.Lock()
		active++
		most = max(most, active)
		first := active == 1
		mu.Unlock()
		if first {
			select {
			case <-second:
			case <-time.After(3 * time.Second):
			}
		} else {
			once.Do(func() { close(second) })
		}
		return func() {
			mu.Lock()
			active--
			mu.Unlock()
		}
	}
	e := New(o)
	var wg sync.WaitGroup
	for _, u := range []string{s1.URL, s2.URL} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := e.CheckAccess(context.Background(), u+"/repo.git"); err != nil {
				t.Errorf("%s: %v", u, err)
			}
		}()
	}
	wg.Wait()
	if most != 1 {
		t.Errorf("%d git credential fills at once, want one at a time", most)
	}
}
