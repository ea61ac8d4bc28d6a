package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/rogpeppe/go-internal/testscript"
)

// servers holds each script's git server (one per script).
var servers sync.Map // *testscript.TestScript → *gittest.Server

// gitScriptCmds are script commands for serving and changing git fixtures:
//
//	serve-git ROOT [-auth user:pass] [-nofilter] [-push] [-pushauth user:pass]
//	    serve the repositories under ROOT over smart HTTP on 127.0.0.1 and
//	    set $GITURL (a repository ROOT/x.git is $GITURL/x.git); closed when
//	    the script ends. -push enables receive-pack (pushes); -pushauth
//	    also makes pushes, and only them, need those credentials.
//	git-counters-reset
//	    zero the server's request and byte counters.
//	git-requests N
//	    assert the server answered exactly N requests since the last reset
//	    (1 = only the ref advertisement: no objects were sent).
//	git-proxy VAR
//	    start an HTTP proxy in front of the serve-git server and set $VAR to
//	    its URL; git-hold, git-wait-held and git-release control it:
//	git-hold
//	    from now on the proxy holds every git-upload-pack POST (the requests
//	    that carry objects) without answering it.
//	git-wait-held N
//	    block until N requests are being held (so a background ctx is known
//	    to be mid-fetch; the wait gives up after 2 minutes as a deadlock guard).
//	git-release
//	    stop holding; held requests go on.
//	git-drip DURATION
//	    from now on the proxy sends git-upload-pack responses one byte every
//	    DURATION, as a link too slow to use does (0: at full speed again).
//	git-commit DIR MSG
//	    git add -A and commit everything in DIR (fixed identity and date).
//	git-rev DIR REV VAR
//	    set $VAR to the commit id of REV in DIR, and $VAR_SHORT to its 7-char form.
//	cmp-dir DIR1 DIR2
//	    assert both trees hold the same files, bytes and executable bits.
//	lock-diff OLD NEW [ALIAS...]
//	    assert the lock entries that differ between two lockfiles are
//	    exactly the ALIASes named (none: the locks agree entry by entry).
//	exits N PROGRAM [ARGS...]
//	    run PROGRAM like exec and assert its exit status is exactly N; its
//	    output is then checked with stdout and stderr as after exec.
//	lock-field LOCK ALIAS FIELD VALUE
//	    assert a field (commit, hash, tree, ...) of one lock entry equals VALUE.
//	backup-path PROJECT VAR
//	    set $VAR to the backup folder the last command printed on stderr
//	    ("… backed up to PATH"), resolved against the PROJECT directory.
func gitScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"serve-git":          cmdServeGit,
		"git-counters-reset": cmdCountersReset,
		"git-requests":       cmdGitRequests,
		"git-commit":         cmdGitCommit,
		"git-proxy":          cmdGitProxy,
		"git-hold":           cmdGitHold,
		"git-wait-held":      cmdGitWaitHeld,
		"git-release":        cmdGitRelease,
		"git-drip":           cmdGitDrip,
		"git-rev":            cmdGitRev,
		"cmp-dir":            cmdCmpDir,
		"lock-diff":          cmdLockDiff,
		"lock-field":         cmdLockField,
		"exits":              cmdExits,
		"backup-path":        cmdBackupPath,
	}
}

func noNeg(ts *testscript.TestScript, neg bool, name string) {
	if neg {
		ts.Fatalf("unsupported: ! %s", name)
	}
}

func cmdServeGit(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "serve-git")
	var o gittest.ServeOptions
	var root string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-auth":
			if i+1 >= len(args) {
				ts.Fatalf("usage: serve-git ROOT [-auth user:pass] [-nofilter]")
			}
			i++
			o.BasicAuth = args[i]
		case "-nofilter":
			o.DisableFilter = true
		case "-push":
			o.ReceivePack = true
		case "-pushauth":
			if i+1 >= len(args) {
				ts.Fatalf("usage: serve-git ROOT [-auth user:pass] [-nofilter] [-push] [-pushauth user:pass]")
			}
			i++
			o.ReceivePack, o.PushAuth = true, args[i]
		default:
			if root != "" {
				ts.Fatalf("usage: serve-git ROOT [-auth user:pass] [-nofilter]")
			}
			root = args[i]
		}
	}
	if root == "" {
		ts.Fatalf("usage: serve-git ROOT [-auth user:pass] [-nofilter]")
	}
	if _, ok := servers.Load(ts); ok {
		ts.Fatalf("serve-git: a server is already running in this script")
	}
	// A fetch git has answered before, from a repository with the same
	// bytes, is answered from memory (gittest's Memo): a third of the
	// scripts' requests are such repeats. CTX_SCRIPT_GIT=1 asks git always.
	o.Memo = !scriptGitExec
	s, err := gittest.Serve(ts.MkAbs(root), o)
	ts.Check(err)
	servers.Store(ts, s)
	ts.Defer(func() {
		servers.Delete(ts)
		s.Close()
	})
	ts.Setenv("GITURL", s.URL)
}

func server(ts *testscript.TestScript) *gittest.Server {
	s, ok := servers.Load(ts)
	if !ok {
		ts.Fatalf("no git server: run serve-git first")
	}
	return s.(*gittest.Server)
}

func cmdCountersReset(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "git-counters-reset")
	server(ts).ResetCounters()
}

func cmdGitRequests(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: git-requests N")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	s := server(ts)
	got := s.Requests()
	ts.Logf("git server: %d requests, %d bytes since the last reset", got, s.BytesSent())
	if (got == want) == neg {
		if neg {
			ts.Fatalf("git server answered %d requests, want any number but that", got)
		}
		ts.Fatalf("git server answered %d requests, want %d", got, want)
	}
}

// holdProxy forwards to a git server and can hold the requests that carry
// objects, so a script can kill ctx at a known point of a fetch.
type holdProxy struct {
	mu      sync.Mutex
	cond    *sync.Cond
	holding bool
	held    int
	release chan struct{} // closed by git-release
	drip    time.Duration // git-drip: the time between two bytes of a pack response
	srv     *httptest.Server
}

// dripWriter writes one byte every d, until the client hangs up.
type dripWriter struct {
	http.ResponseWriter
	d    time.Duration
	done <-chan struct{}
}

func (w dripWriter) Write(p []byte) (int, error) {
	for i := range p {
		select {
		case <-w.done:
			return i, http.ErrAbortHandler
		case <-time.After(w.d):
		}
		if _, err := w.ResponseWriter.Write(p[i : i+1]); err != nil {
			return i, err
		}
		http.NewResponseController(w.ResponseWriter).Flush()
	}
	return len(p), nil
}

var proxies sync.Map // *testscript.TestScript → *holdProxy

func cmdGitProxy(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "git-proxy")
	if len(args) != 1 {
		ts.Fatalf("usage: git-proxy VAR")
	}
	target, err := url.Parse(server(ts).URL)
	ts.Check(err)
	rp := httputil.NewSingleHostReverseProxy(target)
	hp := &holdProxy{release: make(chan struct{})}
	hp.cond = sync.NewCond(&hp.mu)
	hp.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-upload-pack") {
			hp.mu.Lock()
			holding, release, drip := hp.holding, hp.release, hp.drip
			if holding {
				hp.held++
				hp.cond.Broadcast()
			}
			hp.mu.Unlock()
			if holding {
				select {
				case <-release:
				case <-r.Context().Done():
					return
				}
			}
			if drip > 0 {
				w = dripWriter{ResponseWriter: w, d: drip, done: r.Context().Done()}
			}
		}
		rp.ServeHTTP(w, r)
	}))
	proxies.Store(ts, hp)
	ts.Defer(func() {
		proxies.Delete(ts)
		hp.mu.Lock()
		if hp.holding {
			hp.holding = false
			close(hp.release)
		}
		hp.mu.Unlock()
		hp.srv.CloseClientConnections()
		hp.srv.Close()
	})
	ts.Setenv(args[0], hp.srv.URL)
}

func proxy(ts *testscript.TestScript) *holdProxy {
	p, ok := proxies.Load(ts)
	if !ok {
		ts.Fatalf("no proxy: run git-proxy first")
	}
	return p.(*holdProxy)
}

func cmdGitHold(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "git-hold")
	hp := proxy(ts)
	hp.mu.Lock()
	defer hp.mu.Unlock()
	if !hp.holding {
		hp.holding = true
		hp.held = 0
		hp.release = make(chan struct{})
	}
}

func cmdGitRelease(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "git-release")
	hp := proxy(ts)
	hp.mu.Lock()
	defer hp.mu.Unlock()
	if hp.holding {
		hp.holding = false
		close(hp.release)
	}
}

func cmdGitDrip(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "git-drip")
	if len(args) != 1 {
		ts.Fatalf("usage: git-drip DURATION")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	hp := proxy(ts)
	hp.mu.Lock()
	defer hp.mu.Unlock()
	hp.drip = d
}

func cmdGitWaitHeld(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "git-wait-held")
	if len(args) != 1 {
		ts.Fatalf("usage: git-wait-held N")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	hp := proxy(ts)
	// A deadlock guard, not a timing assertion: wake the waiter after a
	// generous limit so a ctx that never fetches fails the script.
	expired := false
	t := time.AfterFunc(2*time.Minute, func() {
		hp.mu.Lock()
		expired = true
		hp.cond.Broadcast()
		hp.mu.Unlock()
	})
	defer t.Stop()
	hp.mu.Lock()
	defer hp.mu.Unlock()
	for hp.held < n && !expired {
		hp.cond.Wait()
	}
	if hp.held < n {
		ts.Fatalf("git-wait-held: %d requests held, want %d (did ctx fail before fetching?)", hp.held, n)
	}
}

// scriptGit runs git in dir with the script's environment (fixed identity
// and dates from Setup).
func scriptGit(ts *testscript.TestScript, dir string, args ...string) string {
	env := append(gittest.Env(ts.Getenv("HOME")),
		"GIT_AUTHOR_DATE="+ts.Getenv("GIT_AUTHOR_DATE"),
		"GIT_COMMITTER_DATE="+ts.Getenv("GIT_COMMITTER_DATE"))
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = ts.MkAbs(dir), env, &stdout, &stderr
	if err := cmd.Run(); err != nil {
		ts.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(stdout.String())
}

func cmdGitCommit(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "git-commit")
	if len(args) != 2 {
		ts.Fatalf("usage: git-commit DIR MSG")
	}
	if !scriptGitExec {
		_, err := gittest.CommitInProcess(ts.MkAbs(args[0]), args[1], ts.Getenv)
		if !errors.Is(err, errNotInProcess) {
			ts.Check(err)
			return
		}
	}
	scriptGit(ts, args[0], "add", "-A")
	scriptGit(ts, args[0], "commit", "-q", "-m", args[1])
}

func cmdGitRev(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "git-rev")
	if len(args) != 3 {
		ts.Fatalf("usage: git-rev DIR REV VAR")
	}
	id, err := "", errNotInProcess
	if !scriptGitExec {
		id, err = gittest.RevInProcess(ts.MkAbs(args[0]), args[1])
	}
	if errors.Is(err, errNotInProcess) {
		id = scriptGit(ts, args[0], "rev-parse", "--verify", args[1]+"^{commit}")
	} else {
		ts.Check(err)
	}
	ts.Setenv(args[2], id)
	ts.Setenv(args[2]+"_SHORT", id[:7])
}

type fileSum struct {
	data []byte
	mode fs.FileMode
	link string
}

func readTree(ts *testscript.TestScript, dir string) map[string]fileSum {
	root := ts.MkAbs(dir)
	files := map[string]fileSum{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			files[rel] = fileSum{link: t, mode: fs.ModeSymlink}
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		files[rel] = fileSum{data: b, mode: fi.Mode() & 0o111}
		return err
	})
	ts.Check(err)
	return files
}

func cmdCmpDir(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: cmp-dir DIR1 DIR2")
	}
	a, b := readTree(ts, args[0]), readTree(ts, args[1])
	var diffs []string
	for name, fa := range a {
		fb, ok := b[name]
		switch {
		case !ok:
			diffs = append(diffs, "only in "+args[0]+": "+name)
		case !bytes.Equal(fa.data, fb.data) || fa.link != fb.link:
			diffs = append(diffs, "content differs: "+name)
		case fa.mode != fb.mode:
			diffs = append(diffs, "mode differs: "+name)
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			diffs = append(diffs, "only in "+args[1]+": "+name)
		}
	}
	sort.Strings(diffs)
	if len(a) == 0 && len(b) == 0 {
		ts.Logf("cmp-dir: both trees are empty")
	}
	if (len(diffs) == 0) == neg {
		if neg {
			ts.Fatalf("%s and %s are identical (%d files)", args[0], args[1], len(a))
		}
		ts.Fatalf("%s and %s differ:\n%s", args[0], args[1], strings.Join(diffs, "\n"))
	}
}

// lockEntries reads a lockfile's entries as raw JSON, so the check does not
// depend on the lockfile package it is testing.
func lockEntries(ts *testscript.TestScript, file string) map[string]json.RawMessage {
	data, err := os.ReadFile(ts.MkAbs(file))
	ts.Check(err)
	var l struct {
		Packages map[string]json.RawMessage `json:"packages"`
	}
	if err := json.Unmarshal(data, &l); err != nil {
		ts.Fatalf("%s: %v", file, err)
	}
	return l.Packages
}

func cmdLockDiff(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "lock-diff")
	if len(args) < 2 {
		ts.Fatalf("usage: lock-diff OLD NEW [ALIAS...]")
	}
	old, cur := lockEntries(ts, args[0]), lockEntries(ts, args[1])
	var changed []string
	for alias, e := range old {
		if n, ok := cur[alias]; !ok || !bytes.Equal(compactJSON(ts, e), compactJSON(ts, n)) {
			changed = append(changed, alias)
		}
	}
	for alias := range cur {
		if _, ok := old[alias]; !ok {
			changed = append(changed, alias)
		}
	}
	sort.Strings(changed)
	want := append([]string(nil), args[2:]...)
	sort.Strings(want)
	if !slices.Equal(changed, want) {
		ts.Fatalf("lock entries changed: %v, want %v", changed, want)
	}
}

func compactJSON(ts *testscript.TestScript, m json.RawMessage) []byte {
	var b bytes.Buffer
	ts.Check(json.Compact(&b, m))
	return b.Bytes()
}

func cmdLockField(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 {
		ts.Fatalf("usage: lock-field LOCK ALIAS FIELD VALUE")
	}
	e, ok := lockEntries(ts, args[0])[args[1]]
	if !ok {
		ts.Fatalf("%s: no entry %q", args[0], args[1])
	}
	var fields map[string]any
	ts.Check(json.Unmarshal(e, &fields))
	v, ok := fields[args[2]]
	if !ok {
		ts.Fatalf("%s: entry %q has no field %q", args[0], args[1], args[2])
	}
	got := fmt.Sprint(v)
	if (got == args[3]) == neg {
		if neg {
			ts.Fatalf("%s: %s.%s is %q", args[0], args[1], args[2], got)
		}
		ts.Fatalf("%s: %s.%s is %q, want %q", args[0], args[1], args[2], got, args[3])
	}
}

var backedUpRE = regexp.MustCompile(`backed up to (\S+)`)

func cmdBackupPath(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "backup-path")
	if len(args) != 2 {
		ts.Fatalf("usage: backup-path PROJECT VAR")
	}
	m := backedUpRE.FindStringSubmatch(ts.ReadFile("stderr"))
	if m == nil {
		ts.Fatalf("the last command printed no \"backed up to PATH\" on stderr")
	}
	p := m[1]
	if !filepath.IsAbs(p) {
		p = filepath.Join(ts.MkAbs(args[0]), p)
	}
	ts.Setenv(args[1], p)
}

func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "exits")
	if len(args) < 2 {
		ts.Fatalf("usage: exits N PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	if args[1] == "ctx" {
		// ctx runs in process (scriptcmds_ctx_test.go).
		got, err := runScriptCtx(ts, args[2:])
		ts.Check(err)
		if got != want {
			ts.Fatalf("ctx exited with status %d, want %d", got, want)
		}
		return
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}
