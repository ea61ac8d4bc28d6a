package gittest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/fileid"
)

func setup(t *testing.T) (root, commit string) {
	t.Helper()
	if !Available() {
		t.Skip("git not installed")
	}
	tmp := t.TempDir()
	src := filepath.Join(tmp, "src")
	commit = NewRepo(t, src, map[string]string{
		"README.md":     "# hello\n",
		"docs/a/one.md": "one\n",
	})
	if got := MustGit(t, src, "rev-parse", "HEAD"); got != commit {
		t.Fatalf("rev-parse HEAD = %s, want %s", got, commit)
	}
	root = filepath.Join(tmp, "root")
	MustGit(t, tmp, "clone", "-q", "--bare", src, filepath.Join(root, "repo.git"))
	if err := os.WriteFile(filepath.Join(root, "registry.json"), []byte(`{"packages":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, commit
}

func TestStableCommitID(t *testing.T) {
	t.Parallel()
	if !Available() {
		t.Skip("git not installed")
	}
	a := NewRepo(t, t.TempDir(), map[string]string{"f": "x\n"})
	b := NewRepo(t, t.TempDir(), map[string]string{"f": "x\n"})
	if a != b {
		t.Fatalf("same content and fixed dates gave different commits %s and %s", a, b)
	}
}

func TestServeClone(t *testing.T) {
	t.Parallel()
	root, commit := setup(t)
	for _, o := range []ServeOptions{{}, {DisableFilter: true}} {
		s, err := Serve(root, o)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(t.TempDir(), "clone")
		MustGit(t, root, "clone", "-q", "--filter=blob:none", "--depth", "1", s.URL+"/repo.git", dst)
		if got := MustGit(t, dst, "rev-parse", "HEAD"); got != commit {
			t.Errorf("cloned HEAD = %s, want %s", got, commit)
		}
		b, err := os.ReadFile(filepath.Join(dst, "docs", "a", "one.md"))
		if err != nil || string(b) != "one\n" {
			t.Errorf("docs/a/one.md = %q, %v", b, err)
		}
		// The v0 advertisement lists `filter` only when filtering is allowed.
		resp, err := http.Get(s.URL + "/repo.git/info/refs?service=git-upload-pack")
		if err != nil {
			t.Fatal(err)
		}
		adv, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := strings.Contains(string(adv), " filter"); got == o.DisableFilter {
			t.Errorf("DisableFilter=%v: advertisement has filter = %v:\n%s", o.DisableFilter, got, adv)
		}
		if s.BytesSent() == 0 || s.Requests() < 2 {
			t.Errorf("counters: bytes %d, requests %d", s.BytesSent(), s.Requests())
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestServeStaticAndAuth(t *testing.T) {
	t.Parallel()
	root, _ := setup(t)
	s, err := Serve(root, ServeOptions{BasicAuth: "alice:secret"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	resp, err := http.Get(s.URL + "/registry.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic") {
		t.Fatalf("no credentials: status %d, WWW-Authenticate %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}

	req, _ := http.NewRequest("GET", s.URL+"/registry.json", nil)
	req.SetBasicAuth("alice", "secret")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `{"packages":[]}` {
		t.Fatalf("static file: status %d body %q", resp.StatusCode, body)
	}

	if _, err := Git(root, "ls-remote", s.URL+"/repo.git"); err == nil {
		t.Fatal("ls-remote without credentials succeeded")
	}
	u := strings.Replace(s.URL, "http://", "http://alice:secret@", 1)
	if out := MustGit(t, root, "ls-remote", u+"/repo.git"); !strings.Contains(out, "refs/heads/master") {
		t.Fatalf("ls-remote with credentials: %q", out)
	}
}

// TestNewRepoBuildsOnce: a second repository with the same files is a copy
// of the first, made without running git (PATH is empty then), and it is a
// whole repository: same commit, clean work tree, objects intact.
func TestNewRepoBuildsOnce(t *testing.T) {
	if !Available() {
		t.Skip("git not installed")
	}
	files := map[string]string{"README.md": "# once\n", "docs/a.md": "a\n", "docs/b/c.md": "c\n", "z": "TestNewRepoBuildsOnce\n"}
	want := NewRepo(t, filepath.Join(t.TempDir(), "first"), files)

	path := os.Getenv("PATH")
	second := filepath.Join(t.TempDir(), "second")
	t.Setenv("PATH", "")
	got := NewRepo(t, second, files)
	t.Setenv("PATH", path)
	if got != want {
		t.Fatalf("copy's commit = %s, want %s", got, want)
	}
	if head := MustGit(t, second, "rev-parse", "HEAD"); head != want {
		t.Errorf("copy's HEAD = %s, want %s", head, want)
	}
	if st := MustGit(t, second, "status", "--porcelain"); st != "" {
		t.Errorf("copy's status:\n%s", st)
	}
	MustGit(t, second, "fsck", "--strict")
}

// TestCacheCopyNamesItsOwnFolder: a copy of a fixture whose config names
// the folder it was built in (as `git clone` leaves remote.origin.url)
// names the copy's folder; links and file modes survive the copy.
func TestCacheCopyNamesItsOwnFolder(t *testing.T) {
	t.Parallel()
	if !Available() {
		t.Skip("git not installed")
	}
	var c Cache[int]
	builds := 0
	build := func(dir string) int {
		builds++
		NewRepo(t, filepath.Join(dir, "src"), map[string]string{"a.md": "a\n"})
		MustGit(t, dir, "clone", "-q", "--bare", filepath.Join(dir, "src"), filepath.Join(dir, "bare.git"))
		if err := os.Symlink("a.md", filepath.Join(dir, "src", "link.md")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return 7
	}
	first, second := filepath.Join(t.TempDir(), "first"), filepath.Join(t.TempDir(), "second")
	if v := c.Dir(t, "k", first, build); v != 7 {
		t.Fatalf("first value %d", v)
	}
	if v := c.Dir(t, "k", second, build); v != 7 || builds != 1 {
		t.Fatalf("second value %d after %d builds, want 7 after 1", v, builds)
	}
	if got, want := MustGit(t, filepath.Join(second, "bare.git"), "config", "remote.origin.url"), filepath.Join(second, "src"); got != want {
		t.Errorf("copy's origin = %s, want %s", got, want)
	}
	if target, err := os.Readlink(filepath.Join(second, "src", "link.md")); err != nil || target != "a.md" {
		t.Errorf("link: %q, %v", target, err)
	}
	if fi, err := os.Stat(filepath.Join(second, "run.sh")); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("run.sh: %v, %v: want it executable", fi, err)
	}
}

// TestTreeKeepsModTimes: a copy written as is from a Tree has the
// original's modification times, files' and directories' alike (as cp
// -a's), so what compares them (an index's freshness) sees the copy as the
// original; Write's copy is new.
func TestTreeKeepsModTimes(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "src")
	WriteFiles(t, src, map[string]string{"a.md": "a\n", "sub/deep/b.md": "b\n"})
	old := time.Date(2020, 1, 2, 3, 4, 5, 600, time.UTC)
	for _, rel := range []string{"a.md", "sub/deep/b.md", "sub/deep", "sub"} {
		if err := os.Chtimes(filepath.Join(src, rel), old, old); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := ReadTree(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "dst")
	if err := tr.Write(dst); err != nil {
		t.Fatal(err)
	}
	asIs := filepath.Join(t.TempDir(), "as-is")
	if err := tr.WriteAsIs(asIs); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"a.md", "sub/deep/b.md", "sub/deep", "sub"} {
		fi, err := os.Stat(filepath.Join(dst, rel))
		if err != nil {
			t.Fatal(err)
		}
		if fi.ModTime().Equal(old) {
			t.Errorf("%s: modified %v, the original's: want a new file", rel, fi.ModTime())
		}
		if fi, err := os.Stat(filepath.Join(asIs, rel)); err != nil || !fi.ModTime().Equal(old) {
			t.Errorf("%s as is: %v, %v, want modified %v (the original's)", rel, fi, err, old)
		}
	}
}

// TestTreeWriteAsIs: WriteAsIs leaves a file that names the tree's folder
// as it is (cp -a's copy), where Write makes it name the copy's.
func TestTreeWriteAsIs(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "src")
	WriteFiles(t, src, map[string]string{"where.txt": "in " + src + "\n"})
	tr, err := ReadTree(src)
	if err != nil {
		t.Fatal(err)
	}
	moved, asIs := filepath.Join(t.TempDir(), "moved"), filepath.Join(t.TempDir(), "as-is")
	if err := tr.Write(moved); err != nil {
		t.Fatal(err)
	}
	if err := tr.WriteAsIs(asIs); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{moved: "in " + moved + "\n", asIs: "in " + src + "\n"} {
		if b, err := os.ReadFile(filepath.Join(dir, "where.txt")); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v, want %q", dir, b, err, want)
		}
	}
}

// TestServeReplay: with Replay, a request seen before is answered from
// memory (the repository can be gone from disk), a fault still applies to
// such an answer, and a request not seen before still reaches git.
func TestServeReplay(t *testing.T) {
	t.Parallel()
	root, commit := setup(t)
	s, err := Serve(root, ServeOptions{Replay: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	url := s.URL + "/repo.git"
	clone := func() (string, error) {
		dst := filepath.Join(t.TempDir(), "clone")
		if _, err := Git(root, "clone", "-q", url, dst); err != nil {
			return "", err
		}
		return Git(dst, "rev-parse", "HEAD")
	}
	if got, err := clone(); err != nil || got != commit {
		t.Fatalf("first clone: %s, %v; want %s", got, err, commit)
	}
	if err := os.RemoveAll(filepath.Join(root, "repo.git")); err != nil {
		t.Fatal(err)
	}
	if got, err := clone(); err != nil || got != commit {
		t.Fatalf("the same clone with the repository gone: %s, %v; want %s from memory", got, err, commit)
	}
	s.SetFault(Fault{Mode: FaultClose, After: 10})
	if _, err := clone(); err == nil {
		t.Error("a replayed clone succeeded through a fault")
	}
	if s.Faulted() == 0 {
		t.Error("the fault was not hit")
	}
	s.SetFault(Fault{})
	if _, err := Git(root, "ls-remote", s.URL+"/other.git"); err == nil {
		t.Error("a repository never served (nor on disk) was answered")
	}
}

// TestServeMemo: with Memo, a fetch another server answered before from a
// repository with the same bytes (the fixture made again elsewhere) is
// answered from memory, without git http-backend (the bare clone's
// config naming another source folder notwithstanding, and under another
// name too); a repository whose bytes
// changed (a push), or one that borrows objects from elsewhere
// (objects/info/alternates), is asked of git again.
func TestServeMemo(t *testing.T) {
	t.Parallel()
	root, commit := setup(t)
	// The same fixture made again elsewhere: the bare clone's config names
	// another source folder (its [remote "origin"]), every other byte the same.
	copyRoot, _ := setup(t)
	// The memo is the process's: a description no other run has keeps an
	// earlier run's answers (-count) out of this one.
	unique := []byte(fmt.Sprintf("%s %d\n", t.Name(), time.Now().UnixNano()))
	for _, r := range []string{root, copyRoot} {
		if err := os.WriteFile(filepath.Join(r, "repo.git", "description"), unique, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	clone := func(s *Server) string {
		t.Helper()
		dst := filepath.Join(t.TempDir(), "clone")
		MustGit(t, root, "clone", "-q", s.URL+"/repo.git", dst)
		return MustGit(t, dst, "rev-parse", "HEAD")
	}
	serve := func(root string) *Server {
		t.Helper()
		s, err := Serve(root, ServeOptions{Memo: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	a, b := serve(root), serve(copyRoot)
	if got := clone(a); got != commit {
		t.Fatalf("first clone: %s, want %s", got, commit)
	}
	if a.backendRuns.Load() == 0 {
		t.Fatal("the first clone did not reach git http-backend")
	}
	if got := clone(b); got != commit || b.backendRuns.Load() != 0 {
		t.Errorf("the same clone from a copy of the repository: %s, %d runs of git http-backend; want %s, none", got, b.backendRuns.Load(), commit)
	}
	// The same bytes under another name answer the same.
	if err := os.Rename(filepath.Join(copyRoot, "repo.git"), filepath.Join(copyRoot, "other.git")); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "clone")
	MustGit(t, root, "clone", "-q", b.URL+"/other.git", dst)
	if got := MustGit(t, dst, "rev-parse", "HEAD"); got != commit || b.backendRuns.Load() != 0 {
		t.Errorf("the same repository as other.git: %s, %d runs of git http-backend; want %s, none", got, b.backendRuns.Load(), commit)
	}
	if err := os.Rename(filepath.Join(copyRoot, "other.git"), filepath.Join(copyRoot, "repo.git")); err != nil {
		t.Fatal(err)
	}

	// A new commit pushed to the copy: its bytes changed, so git answers.
	src := filepath.Join(t.TempDir(), "src")
	MustGit(t, root, "clone", "-q", filepath.Join(copyRoot, "repo.git"), src)
	next := Commit(t, src, "next", map[string]string{"new.md": "new\n"})
	MustGit(t, src, "push", "-q", "origin", "HEAD:master")
	if got := clone(b); got != next || b.backendRuns.Load() == 0 {
		t.Errorf("after a push: cloned %s with %d runs of git http-backend; want %s from git", got, b.backendRuns.Load(), next)
	}

	// A repository borrowing objects: its own bytes do not say what it
	// serves, so it is never answered from memory.
	shared := filepath.Join(t.TempDir(), "root")
	MustGit(t, root, "clone", "-q", "--bare", "--shared", filepath.Join(root, "repo.git"), filepath.Join(shared, "repo.git"))
	c := serve(shared)
	clone(c)
	runs := c.backendRuns.Load()
	clone(c)
	if c.backendRuns.Load() == runs {
		t.Error("a repository with objects/info/alternates was answered from memory")
	}
}

// TestDaemonCloseStopsIt: after Close no git-daemon of this port is left
// (`git daemon` ran git-daemon as a child, and killing the git wrapper
// left the daemon listening, for ever, after every test). Linux: it reads
// /proc. The daemon's children for a connection (--serve) end with their
// connection and are not counted; nor is a child forked for a connection
// (StartDaemon's probe) that has not yet become --serve: until its exec
// it is a copy of the daemon, its command line its parent's, and after
// Close it may still be one (3 failures in 24 loaded runs counted it).
// Its command line is the one read when it was found (it may exec its
// --serve before a second read), and a process gone before its parent is
// read is skipped. The git wrapper's daemon is its child with another
// command line: counted.
func TestDaemonCloseStopsIt(t *testing.T) {
	t.Parallel()
	if _, err := os.ReadFile("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc")
	}
	root, _ := setup(t)
	d, err := StartDaemon(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() }) // a failed check leaves no daemon (Close again is a no-op)
	port := "--port=" + d.URL[strings.LastIndex(d.URL, ":")+1:]
	// daemons returns the procs (/proc/PID/cmdline) of a daemon of this
	// port, not a connection's --serve, and the command line read of each.
	daemons := func(procs []string) ([]string, map[string][]byte) {
		var found []string
		cmds := map[string][]byte{}
		for _, p := range procs {
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			args := strings.Split(string(b), "\x00")
			if slices.Contains(args, port) && !slices.Contains(args, "--serve") {
				found = append(found, p)
				cmds[p] = b
			}
		}
		return found, cmds
	}
	// parent is the /proc/PID/cmdline of the parent of /proc/PID/cmdline's;
	// false when the process is gone (its stat unreadable).
	parent := func(p string) (string, bool) {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(p), "stat"))
		if err != nil {
			return "", false
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])) // after "PID (comm)": state, ppid…
		if len(f) < 2 {
			return "", false
		}
		return "/proc/" + f[1] + "/cmdline", true
	}
	all, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var running, seen []string
	found, cmds := daemons(all)
	for _, p := range found {
		// A process that exits after its command line was read (a
		// connection's fork, StartDaemon's probe's) is not a second
		// daemon: skipped. The command line compared is the one read
		// (not read again: a fork may have exec'd its --serve since).
		pp, ok := parent(p)
		if !ok {
			continue
		}
		cmd := cmds[p]
		parentCmd, _ := os.ReadFile(pp)
		if !bytes.Equal(cmd, parentCmd) { // not a fork of the daemon before its exec
			running = append(running, p)
		}
		seen = append(seen, fmt.Sprintf("%s %q (parent %s %q)", p, cmd, pp, parentCmd))
	}
	if len(running) != 1 {
		t.Fatalf("%d git-daemon processes with %s while it runs, not a copy of their parent, want 1: %v", len(running), port, seen)
	}
	d.Close()
	// The daemon found while it ran, by its process id: once Close has
	// freed the port, another test binary on the machine may start a
	// git-daemon on the same port, which is not this one left running.
	if left, _ := daemons(running); len(left) != 0 {
		t.Errorf("git-daemon left running after Close: %v", left)
	}
}

// TestServeMemoSharesARunningAnswer: with Memo, fetches that ask the same
// thing at once (a test's parallel installs) run git http-backend once
// for each request, as one fetch alone does: the first runs it, the
// others wait for its answer. The first's run is held until the others
// wait (or, without the sharing, until they have finished on their own),
// so the fetches are known to overlap.
func TestServeMemoSharesARunningAnswer(t *testing.T) {
	t.Parallel()
	root, commit := setup(t)
	// The memo is the process's: a state of the repository no other run
	// has, so that nothing is answered from an earlier one.
	describe := func(tag string) {
		t.Helper()
		d := []byte(fmt.Sprintf("%s %s %d\n", t.Name(), tag, time.Now().UnixNano()))
		if err := os.WriteFile(filepath.Join(root, "repo.git", "description"), d, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Serve(root, ServeOptions{Memo: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	clone := func() error {
		dst, err := os.MkdirTemp(t.TempDir(), "clone")
		if err != nil {
			return err
		}
		if _, err := Git(root, "clone", "-q", s.URL+"/repo.git", dst); err != nil {
			return err
		}
		if got, err := Git(dst, "rev-parse", "HEAD"); err != nil || got != commit {
			return fmt.Errorf("cloned %s (%v), want %s", got, err, commit)
		}
		return nil
	}
	describe("alone")
	if err := clone(); err != nil {
		t.Fatal(err)
	}
	alone := s.backendRuns.Load()

	describe("together")
	s.backendRuns.Store(0)
	const n = 3
	waits := make(chan struct{}, 64)
	finished := make(chan struct{}, n)
	wait := func() {
		select {
		case waits <- struct{}{}:
		default: // later waits, for later requests: not counted
		}
	}
	s.memoWait.Store(&wait)
	var held atomic.Bool
	hold := func() {
		if !held.CompareAndSwap(false, true) {
			return // only the first run is held
		}
		// Held until the n-1 others wait for this run, or (without the
		// sharing) have finished without it.
		waited, done := 0, 0
		for waited < n-1 && done < n-1 {
			select {
			case <-waits:
				waited++
			case <-finished:
				done++
			}
		}
	}
	s.beforeBackend.Store(&hold)
	errs := make(chan error, n)
	for range n {
		go func() {
			err := clone()
			finished <- struct{}{}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := s.backendRuns.Load(); got != alone {
		t.Errorf("%d clones at once ran git http-backend %d times; one alone ran it %d times", n, got, alone)
	}
}

// TestRepoStateReadsChangedFilesOnly: the digest of a repository whose
// files are older than the file system's clock reads none of them again;
// a file rewritten at the same size and modification time is read again,
// and the digest moves.
func TestRepoStateReadsChangedFilesOnly(t *testing.T) {
	if _, ok := device(mustStat(t, t.TempDir())); !ok {
		t.Skip("no device numbers on this system: every file is read each time")
	}
	root, _ := setup(t)
	dir := filepath.Join(root, "repo.git")
	desc := filepath.Join(dir, "description")
	if err := os.WriteFile(desc, []byte("aaaa\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clockPast(t, dir)
	first, ok := repoState(dir)
	if !ok {
		t.Fatal("no digest")
	}
	reads := stateReads.Load()
	again, _ := repoState(dir)
	if again != first || stateReads.Load() != reads {
		t.Errorf("unchanged repository: digest moved %v, %d files read again; want the same, none", again != first, stateReads.Load()-reads)
	}
	// Same size, same mtime: only the ctime says it changed.
	fi := mustStat(t, desc)
	if err := os.WriteFile(desc, []byte("bbbb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(desc, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	reads = stateReads.Load()
	changed, _ := repoState(dir)
	if changed == first || stateReads.Load()-reads != 1 {
		t.Errorf("one file rewritten: digest moved %v, %d files read; want moved, 1", changed != first, stateReads.Load()-reads)
	}
}

// clockPast returns once the file system's clock has moved past the last
// change of every file under dir (one tick of it), so that a sum kept
// from now on is proven by the files' stamps: it spins on the clock, no
// sleep.
func clockPast(t *testing.T, dir string) {
	t.Helper()
	newest := int64(0)
	if err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err == nil {
			newest = max(newest, fileid.Of(info).CTime)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for {
		c, ok := fsClock()
		if !ok {
			t.Fatal("no clock reading in the temporary folder")
		}
		if c.at > newest {
			return
		}
	}
}

func mustStat(t *testing.T, p string) fs.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// TestBytesSentCountedBeforeSent: a server's byte count includes a write's
// bytes by the time they reach the connection (a client that has read an
// answer whole finds it counted: TestCacheReuse failed when the count came
// after), and a write cut short counts what it sent.
func TestBytesSentCountedBeforeSent(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	under := &peekWriter{n: &n}
	w := countingWriter{ResponseWriter: under, n: &n}
	if _, err := w.Write([]byte("abcd")); err != nil {
		t.Fatal(err)
	}
	if under.seen != 4 || n.Load() != 4 {
		t.Errorf("while written the count was %d, after %d; want 4, 4", under.seen, n.Load())
	}
	under.short = true
	if _, err := w.Write([]byte("efgh")); err == nil {
		t.Fatal("a short write reported no error")
	}
	if n.Load() != 5 {
		t.Errorf("after a write that sent 1 of 4 bytes the count is %d, want 5", n.Load())
	}
}

// peekWriter is a ResponseWriter that notes the count when it is written
// to; short makes it send one byte and fail.
type peekWriter struct {
	http.ResponseWriter
	n     *atomic.Int64
	seen  int64
	short bool
}

func (p *peekWriter) Write(b []byte) (int, error) {
	p.seen = p.n.Load()
	if p.short {
		return 1, errors.New("connection reset")
	}
	return len(b), nil
}
