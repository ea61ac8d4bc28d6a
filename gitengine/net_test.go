package gitengine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

func TestAuth(t *testing.T) {
	t.Parallel()
	o, home := isolate(t)
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{BasicAuth: "alice:s3cret-pass"})
	ctx := context.Background()
	e := New(o)
	plain := s.URL + "/repo.git"
	withCreds := func(user, pass string) string {
		return strings.Replace(plain, "http://", "http://"+user+":"+pass+"@", 1)
	}

	if err := e.CheckAccess(ctx, plain); KindOf(err) != KindAuthRequired {
		t.Errorf("no credentials: %v (kind %v), want auth required", err, KindOf(err))
	} else if msg := err.Error(); strings.Count(msg, "authentication required") != 1 || strings.Contains(msg, "\n") {
		t.Errorf("message repeats itself or spans lines: %q", msg)
	}
	err := e.CheckAccess(ctx, withCreds("alice", "wrong-password"))
	if KindOf(err) != KindAuthFailed {
		t.Errorf("wrong credentials: %v (kind %v), want auth failed", err, KindOf(err))
	}
	if err != nil && strings.Contains(err.Error(), "wrong-password") {
		t.Errorf("error shows the password: %v", err)
	}
	if err := e.CheckAccess(ctx, withCreds("alice", "s3cret-pass")); err != nil {
		t.Errorf("right credentials in URL: %v", err)
	}
	dest := filepath.Join(t.TempDir(), "p")
	if _, err := e.Materialize(ctx, FetchRequest{URL: withCreds("alice", "s3cret-pass"), Commit: f.c2, Path: "docs"}, dest); err != nil {
		t.Errorf("Materialize with credentials in URL: %v", err)
	}

	t.Run("token", func(t *testing.T) {
		ts := f.serve(gittest.ServeOptions{BasicAuth: "x-access-token:tok123"})
		good, bad := o, o
		good.Token, bad.Token = "tok123", "bad-token"
		good.TokenHosts, bad.TokenHosts = []string{"127.0.0.1"}, []string{"127.0.0.1"}
		if err := New(good).CheckAccess(ctx, ts.URL+"/repo.git"); err != nil {
			t.Errorf("CTX_GIT_TOKEN: %v", err)
		}
		err := New(bad).CheckAccess(ctx, ts.URL+"/repo.git")
		if KindOf(err) != KindAuthFailed || !strings.Contains(err.Error(), "CTX_GIT_TOKEN") {
			t.Errorf("bad CTX_GIT_TOKEN: %v (kind %v)", err, KindOf(err))
		}
		if err != nil && strings.Contains(err.Error(), "bad-token") {
			t.Errorf("error shows the token: %v", err)
		}
	})

	t.Run("credential helper", func(t *testing.T) {
		store := filepath.Join(home, "creds")
		cfg := fmt.Sprintf("[credential]\n\thelper = store --file=%s\n", store)
		if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		host := strings.TrimPrefix(s.URL, "http://")
		if err := os.WriteFile(store, []byte("http://alice:s3cret-pass@"+host+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		// New commands: an Engine remembers the answer it got. The
		// caller stops drawing while git may ask at the terminal.
		var asked, resumed int
		po := o
		po.Prompting = func() func() { asked++; return func() { resumed++ } }
		if err := New(po).CheckAccess(ctx, plain); err != nil {
			t.Errorf("with a credential helper: %v", err)
		}
		if asked != 1 || resumed != 1 {
			t.Errorf("Prompting called %d times, resumed %d, around one git credential fill", asked, resumed)
		}
		// A stored credential the server refuses is rejected (erased).
		if err := os.WriteFile(store, []byte("http://alice:stale@"+host+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := New(o).CheckAccess(ctx, plain); KindOf(err) != KindAuthFailed {
			t.Errorf("stale helper credentials: %v (kind %v), want auth failed", err, KindOf(err))
		}
		if b, _ := os.ReadFile(store); strings.Contains(string(b), "stale") {
			t.Errorf("refused credentials not rejected; store holds %q", b)
		}
	})
}

func TestServerWithoutFilter(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{DisableFilter: true})
	var warns []string
	var mu sync.Mutex
	e := New(Options{CacheDir: t.TempDir(), Warn: func(_, m string) { mu.Lock(); warns = append(warns, m); mu.Unlock() }})
	dest := filepath.Join(t.TempDir(), "p")
	res, err := e.Materialize(context.Background(), FetchRequest{URL: s.URL + "/repo.git", Commit: f.c2, Path: "docs/guides/deep"}, dest)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 5 {
		t.Errorf("files %v", res.Files)
	}
	if len(warns) == 0 || !strings.Contains(warns[0], "filter") {
		t.Errorf("no warning about the missing filter support: %q", warns)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "sub", "c", "d.txt")); string(b) != "deep\n" {
		t.Errorf("d.txt = %q", b)
	}
}

// TestCacheReuse: a second Materialize of the same commit moves nothing;
// an update after one changed file moves a small part of the first fetch.
func TestCacheReuse(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Many folders outside the sub-path make the trees a real share of a fetch.
	bulk := map[string]string{}
	for i := 0; i < 400; i++ {
		bulk[fmt.Sprintf("area%02d/topic%02d/page%d.md", i%20, i%7, i)] = fmt.Sprintf("page %d\n", i)
	}
	c3 := f.commit("bulk", bulk)
	s := f.serve(gittest.ServeOptions{})
	url := s.URL + "/repo.git"
	var progress []Progress
	var mu sync.Mutex
	e := New(Options{CacheDir: t.TempDir(), Progress: func(p Progress) { mu.Lock(); progress = append(progress, p); mu.Unlock() }})
	ctx := context.Background()
	req := FetchRequest{URL: url, Commit: c3, Ref: "master", Path: "docs/guides/deep"}

	first, err := e.Materialize(ctx, req, filepath.Join(t.TempDir(), "a"))
	if err != nil {
		t.Fatal(err)
	}
	if first.Bytes == 0 || first.Bytes > s.BytesSent() {
		t.Errorf("first: Bytes %d, server sent %d", first.Bytes, s.BytesSent())
	}
	phases := map[string]bool{}
	for _, p := range progress {
		phases[p.Phase] = true
	}
	if !phases["trees"] || !phases["blobs"] || !phases["write"] {
		t.Errorf("progress phases %v", phases)
	}

	s.ResetCounters()
	second, err := e.Materialize(ctx, req, filepath.Join(t.TempDir(), "b"))
	if err != nil {
		t.Fatal(err)
	}
	if second.Bytes != 0 || s.Requests() != 0 || s.BytesSent() != 0 {
		t.Errorf("second Materialize: Bytes %d, server saw %d requests, %d bytes; want none", second.Bytes, s.Requests(), s.BytesSent())
	}
	// Another engine on the same cache (another process, say) also reuses it.
	other := New(Options{CacheDir: e.opts.CacheDir})
	if r, err := other.Materialize(ctx, req, filepath.Join(t.TempDir(), "c")); err != nil || r.Bytes != 0 || s.Requests() != 0 {
		t.Errorf("fresh engine on a warm cache: %v, %d requests", err, s.Requests())
	}

	c4 := f.commit("one change", map[string]string{"docs/guides/deep/sub/b.md": "# B\n\nbeta, changed\n"})
	s.ResetCounters()
	req.Commit = c4
	updDir := filepath.Join(t.TempDir(), "d")
	upd, err := e.Materialize(ctx, req, updDir)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(updDir, "sub", "b.md")); string(b) != "# B\n\nbeta, changed\n" {
		t.Errorf("updated b.md = %q", b)
	}
	if want := f.git("rev-parse", c4+":docs/guides/deep"); upd.TreeID != want {
		t.Errorf("updated tree %s, want %s", upd.TreeID, want)
	}
	t.Logf("first %d bytes, update %d bytes (server sent %d)", first.Bytes, upd.Bytes, s.BytesSent())
	if upd.Bytes == 0 || upd.Bytes*5 > first.Bytes {
		t.Errorf("update moved %d bytes, first install %d: want under a fifth", upd.Bytes, first.Bytes)
	}
}

func TestConcurrentMaterialize(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{})
	cache := t.TempDir()
	out := t.TempDir()
	const n = 6
	var wg sync.WaitGroup
	results := make([]*Result, n)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			e := New(Options{CacheDir: cache}) // one engine per "process"
			path := []string{"docs/guides/deep", "docs"}[i%2]
			results[i], errs[i] = e.Materialize(context.Background(),
				FetchRequest{URL: s.URL + "/repo.git", Commit: f.c2, Path: path}, filepath.Join(out, fmt.Sprint(i)))
		}(i)
	}
	wg.Wait()
	for i := 0; i < n; i++ {
		if errs[i] != nil {
			t.Fatalf("goroutine %d: %v", i, errs[i])
		}
		if got, want := len(results[i].Files), len(results[i%2].Files); got != want || got == 0 {
			t.Errorf("goroutine %d: %d files, want %d", i, got, want)
		}
		b, err := os.ReadFile(filepath.Join(out, fmt.Sprint(i), map[int]string{0: "a.md", 1: "guides/deep/a.md"}[i%2]))
		if err != nil || !strings.Contains(string(b), "revised") {
			t.Errorf("goroutine %d: a.md %q %v", i, b, err)
		}
	}
}

func TestRedactedErrors(t *testing.T) {
	t.Parallel()
	o, _ := isolate(t)
	e := New(o)
	// Nothing listens on port 1: a network error whose message must not
	// carry the credentials.
	url := "http://user:hunter2-secret@127.0.0.1:1/repo.git"
	err := e.CheckAccess(context.Background(), url)
	if KindOf(err) != KindNetwork {
		t.Errorf("kind %v (%v), want network", KindOf(err), err)
	}
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("credentials in error: %v", err)
	}
}

// TestTipOnlyServer: git daemon's stateful upload-pack refuses commits that
// are not tips, and blobs by id. A pinned old commit is found by deepening
// its ref; without a ref the error names the server setting.
func TestTipOnlyServer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	old := f.commit("third", map[string]string{"docs/guides/deep/a.md": "third\n"})
	for i := 0; i < 3; i++ {
		f.commit(fmt.Sprint("later ", i), map[string]string{"README.md": fmt.Sprint("later ", i, "\n")})
	}
	gittest.MustGit(t, f.bare, "config", "uploadpack.allowFilter", "true")
	d, err := gittest.StartDaemon(f.root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	url := d.URL + "/repo.git"
	ctx := context.Background()
	var warns []string
	var mu sync.Mutex
	e := New(Options{CacheDir: t.TempDir(), Warn: func(_, m string) { mu.Lock(); warns = append(warns, m); mu.Unlock() }})

	r, err := e.Resolve(ctx, url, "")
	if err != nil || r.Ref != "refs/heads/master" {
		t.Fatalf("Resolve over git://: %+v %v", r, err)
	}
	// The tip: trees by filter; blobs by id are refused, so the whole
	// snapshot is fetched instead, with a warning.
	dest := filepath.Join(t.TempDir(), "tip")
	if _, err := e.Materialize(ctx, FetchRequest{URL: url, Commit: r.Commit, Ref: "master", Path: "docs/guides/deep"}, dest); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "a.md")); string(b) != "third\n" {
		t.Errorf("tip a.md = %q", b)
	}

	_, err = New(Options{CacheDir: t.TempDir()}).Materialize(ctx, FetchRequest{URL: url, Commit: old, Path: "docs/guides/deep"}, filepath.Join(t.TempDir(), "x"))
	if KindOf(err) != KindRefused || !strings.Contains(err.Error(), "uploadpack.allowReachableSHA1InWant") {
		t.Errorf("non-tip without ref: %v (kind %v), want refused naming uploadpack.allowReachableSHA1InWant", err, KindOf(err))
	}

	warns = nil
	dest = filepath.Join(t.TempDir(), "old")
	e2 := New(Options{CacheDir: t.TempDir(), Warn: func(_, m string) { mu.Lock(); warns = append(warns, m); mu.Unlock() }})
	if _, err := e2.Materialize(ctx, FetchRequest{URL: url, Commit: old, Ref: "master", Path: "docs/guides/deep"}, dest); err != nil {
		t.Fatalf("non-tip with ref: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "a.md")); string(b) != "third\n" {
		t.Errorf("old a.md = %q", b)
	}
	if len(warns) == 0 || !strings.Contains(strings.Join(warns, "\n"), "not a branch or tag tip") {
		t.Errorf("no warning about deepening: %q", warns)
	}
}

// TestServerDefaultWantPolicy: with git's default uploadpack settings (no
// allowAnySHA1InWant) smart HTTP still sends blobs by id, because stateless
// upload-pack accepts any want reachable from a ref. No fallback is needed.
// (The whole-snapshot fallback for servers that refuse is covered by
// TestTipOnlyServer.)
func TestServerDefaultWantPolicy(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{NoAnySHA1InWant: true})
	var warns []string
	var mu sync.Mutex
	e := New(Options{CacheDir: t.TempDir(), Warn: func(_, m string) { mu.Lock(); warns = append(warns, m); mu.Unlock() }})
	dest := filepath.Join(t.TempDir(), "p")
	res, err := e.Materialize(context.Background(), FetchRequest{URL: s.URL + "/repo.git", Commit: f.c2, Ref: "master", Path: "docs/guides/deep"}, dest)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 5 {
		t.Errorf("files %v", res.Files)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "a.md")); string(b) != "# A\n\nalpha, revised\n" {
		t.Errorf("a.md = %q", b)
	}
	if len(warns) != 0 {
		t.Errorf("warnings %q", warns)
	}
}

// TestRequestsPerFetch: with the commit known, a cold fetch over smart HTTP
// makes two requests (trees, then the sub-path's blobs) and skips the
// advertisement; blobs for a cached commit take one. A host that wants
// credentials from a helper pays the skipped-advertisement attempt once,
// not for every package.
func TestRequestsPerFetch(t *testing.T) {
	t.Parallel()
	o, home := isolate(t)
	f := newFixture(t)
	ctx := context.Background()
	s := f.serve(gittest.ServeOptions{})
	url := s.URL + "/repo.git"
	cache := t.TempDir()

	res, err := New(Options{CacheDir: cache}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: "docs/guides/deep"}, filepath.Join(t.TempDir(), "a"))
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Requests(); n != 2 {
		t.Errorf("cold fetch: %d requests, want 2 (trees, blobs)", n)
	}
	if len(res.Files) != 5 || res.Bytes == 0 || res.Bytes > s.BytesSent() {
		t.Errorf("cold fetch: files %v, Bytes %d of %d sent", res.Files, res.Bytes, s.BytesSent())
	}
	s.ResetCounters()
	if _, err := New(Options{CacheDir: cache}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: "bulk"}, filepath.Join(t.TempDir(), "b")); err != nil {
		t.Fatal(err)
	}
	if n := s.Requests(); n != 1 {
		t.Errorf("another folder of a cached commit: %d requests, want 1 (blobs)", n)
	}

	// A commit the server cannot give (not reachable): the skipped
	// advertisement is retried with one, and the error is the usual one.
	s.ResetCounters()
	_, err = New(Options{CacheDir: t.TempDir()}).Materialize(ctx, FetchRequest{URL: url, Commit: strings.Repeat("ab", 20), Path: "docs"}, filepath.Join(t.TempDir(), "c"))
	if KindOf(err) != KindCommitNotFound || strings.Contains(err.Error(), "ls-remote") {
		t.Errorf("unreachable commit: %v (kind %v), want commit not in the repository, no ls-remote advice", err, KindOf(err))
	}

	store := filepath.Join(home, "creds")
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(fmt.Sprintf("[credential]\n\thelper = store --file=%s\n", store)), 0o600); err != nil {
		t.Fatal(err)
	}
	as := f.serve(gittest.ServeOptions{BasicAuth: "alice:s3cret-pass"})
	if err := os.WriteFile(store, []byte("http://alice:s3cret-pass@"+strings.TrimPrefix(as.URL, "http://")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// One Engine, as in one command: it remembers the host that wanted
	// credentials.
	e := New(Options{CacheDir: t.TempDir(), CredentialEnv: o.CredentialEnv})
	if _, err := e.Materialize(ctx, FetchRequest{URL: as.URL + "/repo.git", Commit: f.c2, Path: "docs/guides/deep"}, filepath.Join(t.TempDir(), "d")); err != nil {
		t.Fatalf("credential helper: %v", err)
	}
	as.ResetCounters()
	if _, err := e.WithLabel("second").Materialize(ctx, FetchRequest{URL: as.URL + "/repo.git", Commit: f.c2, Path: "bulk"}, filepath.Join(t.TempDir(), "e")); err != nil {
		t.Fatalf("credential helper, second package: %v", err)
	}
	// 401, advertisement with the helper's credentials, blobs.
	if n := as.Requests(); n != 3 {
		t.Errorf("second package from a host that wants credentials: %d requests, want 3", n)
	}
}
