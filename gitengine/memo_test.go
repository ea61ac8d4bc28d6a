package gitengine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// TestEngineRemembersRefs: one Engine asks a remote for its refs once, however
// many calls resolve refs of it (concurrently or later, through labelled
// Engines too), and remembers a failure as well; a full commit id costs no
// request; a new Engine asks again.
func TestEngineRemembersRefs(t *testing.T) {
	t.Parallel()
	o, _ := isolate(t)
	f := newFixture(t)
	ctx := context.Background()
	s := f.serve(gittest.ServeOptions{})
	url := s.URL + "/repo.git"
	e := New(Options{CacheDir: t.TempDir()})
	var wg sync.WaitGroup
	for i, ref := range []string{"", "master", "v1", "dev", "refs/tags/light", f.c2[:10], "master", "v1"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			le := e.WithLabel(string(rune('a' + i)))
			if _, err := le.Resolve(ctx, url, ref); err != nil {
				t.Errorf("Resolve(%q): %v", ref, err)
			}
			if err := le.CheckAccess(ctx, url); err != nil {
				t.Errorf("CheckAccess: %v", err)
			}
		}()
	}
	wg.Wait()
	if n := s.Requests(); n != 1 {
		t.Errorf("8 resolves and 8 access checks of one remote: %d requests, want 1", n)
	}
	if r, err := e.Resolve(ctx, strings.TrimSuffix(url, ".git"), "v1"); err != nil || r.Commit != f.c1 {
		t.Errorf("Resolve through another spelling of the URL: %+v, %v", r, err)
	}
	if r, err := e.Resolve(ctx, url, strings.ToUpper(f.c1)); err != nil || r.Commit != f.c1 || r.Ref != "" {
		t.Errorf("Resolve(full id) = %+v, %v; want {\"\" %s}", r, err, f.c1)
	}
	if n := s.Requests(); n != 1 {
		t.Errorf("after more resolves of known refs: %d requests, want 1", n)
	}

	s.ResetCounters()
	missing := s.URL + "/nope.git"
	err1 := e.CheckAccess(ctx, missing)
	_, err2 := e.Resolve(ctx, missing, "main")
	if KindOf(err1) != KindNotFound || KindOf(err2) != KindNotFound {
		t.Errorf("missing repository: %v, %v; want repository not found twice", err1, err2)
	}
	if n := s.Requests(); n != 1 {
		t.Errorf("missing repository asked twice: %d requests, want 1 (the error is remembered)", n)
	}

	s.ResetCounters()
	if _, err := New(o).Resolve(ctx, url, "master"); err != nil {
		t.Fatal(err)
	}
	if n := s.Requests(); n != 1 {
		t.Errorf("a new Engine: %d requests, want 1", n)
	}
}

// TestLabels: an Engine made by WithLabel reports its calls' progress and
// warnings under its label.
func TestLabels(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	gittest.MustGit(t, f.bare, "branch", "v1", f.c2) // v1 is a tag and a branch
	ctx := context.Background()
	s := f.serve(gittest.ServeOptions{})
	url := s.URL + "/repo.git"
	var mu sync.Mutex
	var labels, warns []string
	e := New(Options{
		CacheDir: t.TempDir(),
		Progress: func(p Progress) { mu.Lock(); labels = append(labels, p.Label+" "+p.Phase); mu.Unlock() },
		Warn:     func(label, msg string) { mu.Lock(); warns = append(warns, label+": "+msg); mu.Unlock() },
	})
	r, err := e.WithLabel("api").Resolve(ctx, url, "v1")
	if err != nil || r.Ref != "refs/tags/v1" {
		t.Fatalf("Resolve(v1) = %+v, %v; want the tag", r, err)
	}
	if _, err := e.WithLabel("docs").Materialize(ctx, FetchRequest{URL: url, Commit: r.Commit, Ref: r.Ref, Path: "docs"}, filepath.Join(t.TempDir(), "d")); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(labels, ", ")
	for _, want := range []string{"api refs", "docs trees", "docs blobs", "docs write"} {
		if !strings.Contains(got, want) {
			t.Errorf("progress %q lacks %q", got, want)
		}
	}
	for _, l := range labels {
		if !strings.HasPrefix(l, "api refs") && !strings.HasPrefix(l, "docs ") {
			t.Errorf("progress %q under the wrong label", l)
		}
	}
	if len(warns) != 1 || !strings.HasPrefix(warns[0], "api: \"v1\" is both a tag and a branch") {
		t.Errorf("warnings %q, want one about v1 under api", warns)
	}
}

// TestMemo: concurrent callers of a key share one run; results and errors
// are remembered; an error that came with the caller's context ending is
// not, and a waiter whose context ends stops waiting.
func TestMemo(t *testing.T) {
	t.Parallel()
	var m memo[int]
	var runs atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := m.do(context.Background(), "k", func() (int, error) {
				runs.Add(1)
				<-release
				return 7, nil
			})
			if v != 7 || err != nil {
				t.Errorf("do = %d, %v", v, err)
			}
		}()
	}
	close(release)
	wg.Wait()
	if n := runs.Load(); n != 1 {
		t.Errorf("8 concurrent callers: %d runs, want 1", n)
	}

	boom := errors.New("boom")
	for range 2 {
		if _, err := m.do(context.Background(), "bad", func() (int, error) { runs.Add(1); return 0, boom }); err != boom {
			t.Errorf("err %v, want boom", err)
		}
	}
	if n := runs.Load(); n != 2 {
		t.Errorf("an error asked for twice: %d runs in all, want 2", n)
	}

	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.do(cctx, "c", func() (int, error) { return 0, cctx.Err() }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if v, err := m.do(context.Background(), "c", func() (int, error) { return 3, nil }); v != 3 || err != nil {
		t.Errorf("after a cancelled caller: %d, %v; want a new run", v, err)
	}

	block := make(chan struct{})
	started := make(chan struct{})
	go m.do(context.Background(), "slow", func() (int, error) { close(started); <-block; return 1, nil })
	<-started
	wctx, wcancel := context.WithCancel(context.Background())
	wcancel()
	if _, err := m.do(wctx, "slow", func() (int, error) { t.Error("second run"); return 0, nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("waiter whose context ended: %v", err)
	}
	close(block)
}
