package workspace

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"
	"github.com/ctx-dev/ctx/project"
)

// ident is what says a file was not rewritten: its inode, mtime and ctime
// (a rename or a chmod moves the ctime; nothing a user runs sets it back).
type ident struct {
	ino          uint64
	mtime, ctime int64
}

// idents records every file and folder under dir ("." is dir itself).
func idents(t *testing.T, dir string) map[string]ident {
	t.Helper()
	out := map[string]ident{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		ctime, ino := fileid.Change(fi)
		out[filepath.ToSlash(rel)] = ident{ino, fi.ModTime().UnixNano(), ctime}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// layout is snapshotOf (every file's git mode and bytes) with the folders
// too, so that a folder left behind or missing shows.
func layout(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := snapshotOf(t, dir)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != dir {
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)+"/"] = "dir"
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkClean: status, verify and .tmp/ say the project is as ctx left it.
func checkClean(t *testing.T, w *Workspace) {
	t.Helper()
	if st, err := w.Status(); err != nil || len(st) != 0 {
		t.Errorf("status: %+v %v", st, err)
	}
	vr, err := w.Verify()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vr {
		if !v.OK {
			t.Errorf("verify: %+v", v)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(w.root, project.DirName, project.TmpDir)); len(ents) != 0 {
		t.Errorf("left in .tmp: %v", ents)
	}
}

// add500 makes the fixture's upstream a repository of 500 documents in 10
// folders and adds its docs/ as package docs: the one-of-500 update tests'
// start.
func (f *fixture) add500(t *testing.T) *Workspace {
	t.Helper()
	files := map[string]string{}
	for i := range 500 {
		files[fmt.Sprintf("docs/d%d/f%03d.md", i%10, i)] = fmt.Sprintf("# File %d\n\nSome text.\n", i)
	}
	if err := os.RemoveAll(f.upstream); err != nil {
		t.Fatal(err)
	}
	gittest.NewRepo(t, f.upstream, files)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "docs", Alias: "docs"}}, AddOptions{}))
	return w
}

// TestPatchOneOf500: an update in which 1 of a package's 500 files changed
// upstream rewrites that one file; the other 499 keep their inode, mtime
// and ctime, every folder its inode, and their state entries stay as they
// were.
func TestPatchOneOf500(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.add500(t)
	pkg := w.pkgDir("docs")
	before := idents(t, pkg)
	oldState, err := w.readState("docs")
	if err != nil {
		t.Fatal(err)
	}
	const changed = "d3/f123.md"
	f.commit("one file", map[string]string{"docs/" + changed: "# File 123, second edition\n"})
	r := f.must(w.Update(bg, nil, UpdateOptions{}))
	if got := actions(r); got != "docs:updated" {
		t.Fatalf("update: %s", got)
	}
	after := idents(t, pkg)
	if len(after) != len(before) {
		t.Fatalf("%d entries before, %d after", len(before), len(after))
	}
	rewritten := 0
	for p, id := range before {
		if strings.HasPrefix(p, "d") && !strings.Contains(p, "/") || p == "." {
			// A folder: the entries of d3 changed, so did its mtime.
			if id.ino != after[p].ino {
				t.Errorf("folder %s has a new inode", p)
			}
			continue
		}
		if id == after[p] {
			continue
		}
		if p != changed {
			t.Errorf("%s was touched: %+v, now %+v", p, id, after[p])
			continue
		}
		rewritten++
	}
	if rewritten != 1 {
		t.Errorf("rewritten %d files, want 1", rewritten)
	}
	if got := readFile(t, filepath.Join(pkg, changed)); got != "# File 123, second edition\n" {
		t.Errorf("%s = %q", changed, got)
	}
	newState, err := w.readState("docs")
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range newState.Files {
		o := oldState.Files[i]
		if e.Path != changed && !reflect.DeepEqual(e, o) {
			t.Errorf("state of %s changed: %+v, was %+v", e.Path, e, o)
		}
		if e.Path == changed {
			// Recorded after the rename: status need not hash it.
			fi, err := os.Lstat(filepath.Join(pkg, changed))
			if err != nil || !e.stamp().Same(fileid.Of(fi)) || e.Blob == o.Blob {
				t.Errorf("state of %s: %+v (was %+v), disk %v", changed, e, o, err)
			}
		}
	}
	checkClean(t, w)
}

// reshape commits, in f's upstream, a change to the guides folder with one
// of each kind: a changed file, files added (one in new folders), a file
// deleted and with it its folder, the executable bit set, a file that
// becomes a folder, a folder that becomes a file, a symbolic link added.
// It returns the new commit.
func reshape(t *testing.T, f *fixture) string {
	t.Helper()
	up := filepath.Join(f.upstream, "guides")
	writeFile(t, filepath.Join(up, "other.md"), "# Other v2\n")
	writeFile(t, filepath.Join(up, "new/deep/added.md"), "# Added\n")
	writeFile(t, filepath.Join(up, "top.md"), "# Top\n")
	removeFiles(t, f.upstream, "guides/api/v2/ref/auth.md") // the commit's add -A stages it
	if err := os.Chmod(filepath.Join(up, "api/v2/intro.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("top.md", filepath.Join(up, "link.md")); err != nil {
		t.Fatal(err)
	}
	return f.commit("reshape", nil)
}

// removeFiles removes files of dir's work tree and the folders they
// leave empty, as git rm does; gittest.Commit's add -A stages the
// removals (and makes no git process when the commit is one it made
// before: see gittest.Commit).
func removeFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		for d := filepath.Dir(p); d != dir; d = filepath.Dir(d) {
			if os.Remove(d) != nil { // not empty
				break
			}
		}
	}
}

// reshapeBase adds, to the fixture's upstream, the files reshape turns
// around: x.md (a file that becomes a folder) and y/z.md (a folder that
// becomes a file). Call it before installing.
func reshapeBase(t *testing.T, f *fixture) {
	t.Helper()
	f.commit("base", map[string]string{"guides/x.md": "# X\n", "guides/y/z.md": "# Z\n"})
}

// reshapeTypes is the second half of reshape: x.md becomes a folder and
// y a file.
func reshapeTypes(t *testing.T, f *fixture) string {
	t.Helper()
	removeFiles(t, f.upstream, "guides/x.md", "guides/y/z.md")
	writeFile(t, filepath.Join(f.upstream, "guides/x.md/inner.md"), "# Inner\n")
	writeFile(t, filepath.Join(f.upstream, "guides/y"), "# Y is a file now\n")
	return f.commit("types", nil)
}

// TestStepsMakeTheStepsRepository: fixture.steps, run again by the same
// name from the same commit, makes the upstream the repository the steps
// made (every file of the work tree and of .git, its mode and bytes, and
// a clean status), returns what they returned, and does not run them.
var stepsTestRuns atomic.Int64

func TestStepsMakeTheStepsRepository(t *testing.T) {
	t.Parallel()
	// Steps of this run's own (go test -count=2 runs it again in this
	// process, whose memo holds the first run's): the first call runs them.
	name := fmt.Sprintf("%s, run %d", t.Name(), stepsTestRuns.Add(1))
	ran := 0
	do := func(f *fixture) func() string {
		return func() string {
			ran++
			reshapeBase(t, f)
			reshape(t, f)
			return reshapeTypes(t, f)
		}
	}
	a, b := newFixture(t), newFixture(t)
	// One call site for both, as a matrix's cells have (the site keys
	// the memo with the name).
	var revs [2]string
	for i, f := range []*fixture{a, b} {
		revs[i] = f.steps(name, do(f))
	}
	revA, revB := revs[0], revs[1]
	if ran != 1 || revA != revB {
		t.Fatalf("the steps ran %d times (want 1); returned %s, then %s", ran, revA, revB)
	}
	if got := b.git("rev-parse", "HEAD"); got != revA {
		t.Fatalf("HEAD is %s, want %s", got, revA)
	}
	if st := b.git("status", "--porcelain"); st != "" {
		t.Fatalf("status: %q", st)
	}
	everything := func(dir string) map[string]string {
		out := map[string]string{}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == dir {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			fi, err := d.Info()
			if err != nil {
				return err
			}
			var b []byte
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				s, err := os.Readlink(p)
				if err != nil {
					return err
				}
				b = []byte(s)
			case fi.Mode().IsRegular():
				if b, err = os.ReadFile(p); err != nil {
					return err
				}
			}
			// git's mode (what a commit records), not the umask's trim of a
			// written file's permissions.
			out[filepath.ToSlash(rel)] = fmt.Sprintf("%v %x", gitMode(fi.Mode()), b)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	// git status refreshed b's index (its stat data): compared without it.
	ea, eb := everything(a.upstream), everything(b.upstream)
	delete(ea, ".git/index")
	delete(eb, ".git/index")
	if !reflect.DeepEqual(ea, eb) {
		for k := range ea {
			if ea[k] != eb[k] {
				t.Errorf("%s differs", k)
			}
		}
		for k := range eb {
			if _, ok := ea[k]; !ok {
				t.Errorf("%s is new", k)
			}
		}
	}
	if b.git("ls-files", "-s") != a.git("ls-files", "-s") {
		t.Error("the index stages other entries")
	}
}

// TestPatchAddDeleteMode: an update that adds, deletes, changes a mode,
// turns a file into a folder and a folder into a file, and adds a link
// leaves exactly the new tree (no folder left behind), rewrites only what
// changed (the mode in place), and records a clean state.
func TestPatchAddDeleteMode(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.steps("reshapeBase", func() string { reshapeBase(t, f); return "" })
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
	pkg := w.pkgDir("guides")
	before := idents(t, pkg)
	f.steps("reshape, reshapeTypes", func() string { reshape(t, f); return reshapeTypes(t, f) })
	f.must(w.Update(bg, nil, UpdateOptions{}))
	if got, want := layout(t, pkg), layout(t, filepath.Join(f.upstream, "guides")); !reflect.DeepEqual(got, want) {
		t.Errorf("package:\n%v\nwant the new tree:\n%v", got, want)
	}
	after := idents(t, pkg)
	for _, p := range []string{".", "api", "api/v2", "api/v2/intro.md"} {
		if before[p].ino != after[p].ino {
			t.Errorf("%s has a new inode", p)
		}
	}
	if id := after["api/v2/intro.md"]; id.mtime != before["api/v2/intro.md"].mtime {
		t.Errorf("the mode change rewrote api/v2/intro.md")
	}
	checkClean(t, w)
}

// TestPatchRollback: when the lock cannot be written (a full disk) after a
// patch, the package is put back exactly: every file its old bytes, mode
// and inode, no folder the patch made, the state and lock as before.
func TestPatchRollback(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.steps("reshapeBase", func() string { reshapeBase(t, f); return "" })
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
	pkg := w.pkgDir("guides")
	before, ids := layout(t, pkg), idents(t, pkg)
	stBefore := readFile(t, w.statePath("guides"))
	lockBefore := readFile(t, filepath.Join(f.project, project.DirName, project.LockName))
	f.steps("reshape, reshapeTypes", func() string { reshape(t, f); return reshapeTypes(t, f) })
	w.opts.testHook = func(stage, alias string) error {
		if stage == "write:lock" {
			return &fs.PathError{Op: "write", Path: "lock", Err: syscall.ENOSPC}
		}
		return nil
	}
	_, err := w.Update(bg, nil, UpdateOptions{})
	if err == nil || !strings.Contains(err.Error(), "the disk is full") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("update: %v", err)
	}
	w.opts.testHook = nil
	if got := layout(t, pkg); !reflect.DeepEqual(got, before) {
		t.Errorf("package:\n%v\nwant as it was:\n%v", got, before)
	}
	// Each file is the one it was (folders the patch emptied are made
	// again: layout compared them).
	after := idents(t, pkg)
	for p, id := range ids {
		if p != "." && before[p+"/"] != "dir" && (after[p].ino != id.ino || after[p].mtime != id.mtime) {
			t.Errorf("%s: %+v, was %+v", p, after[p], id)
		}
	}
	if readFile(t, w.statePath("guides")) != stBefore || readFile(t, filepath.Join(f.project, project.DirName, project.LockName)) != lockBefore {
		t.Error("state or lock changed")
	}
	checkClean(t, w)
	// With room again, the update goes through.
	f.must(w.Update(bg, nil, UpdateOptions{}))
	if got, want := layout(t, pkg), layout(t, filepath.Join(f.upstream, "guides")); !reflect.DeepEqual(got, want) {
		t.Errorf("package:\n%v\nwant the new tree:\n%v", got, want)
	}
	checkClean(t, w)
}

// TestPatchForce: update --force over local edits (a change, an added
// file, a deleted one, a mode) replaces exactly the files it found
// changed, after backing the folder up; the other files keep their inode.
func TestPatchForce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.commit("keep", map[string]string{"guides/keep.md": "# Keep\n"})
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
	pkg := w.pkgDir("guides")
	writeFile(t, filepath.Join(pkg, "api/mine.md"), "mine\n")
	writeFile(t, filepath.Join(pkg, "api/v2/intro.md"), "# Intro, edited\n")
	if err := os.Remove(filepath.Join(pkg, "api/v2/ref/auth.md")); err != nil {
		t.Fatal(err)
	}
	ids := idents(t, pkg)
	f.commit("moves", map[string]string{"guides/other.md": "# Other v2\n"})
	r := f.must(w.Update(bg, nil, UpdateOptions{Force: true}))
	if r.Packages[0].Backup == "" {
		t.Fatal("no backup")
	}
	if got, want := layout(t, pkg), layout(t, filepath.Join(f.upstream, "guides")); !reflect.DeepEqual(got, want) {
		t.Errorf("package:\n%v\nwant the new tree:\n%v", got, want)
	}
	if after := idents(t, pkg); after["."].ino != ids["."].ino || after["api/v2"].ino != ids["api/v2"].ino || after["keep.md"] != ids["keep.md"] {
		t.Error("keep.md or folders were replaced")
	}
	checkClean(t, w)
}

// TestPatchStopAtEveryStep stops a churn-free update at every step in turn
// (every file moved out, in or back, and the stages around them), as a
// crash would, with and without a full disk making it put the package
// back, then opens the project again: recovery leaves the old tree or,
// past the journal, the new one exactly, with the lock and the state in
// agreement. TestKillDuringPatch kills real processes at a few of these.
func TestPatchStopAtEveryStep(t *testing.T) {
	t.Parallel()
	for _, fail := range []string{"", "write:lock"} {
		t.Run("fail="+fail, func(t *testing.T) {
			t.Parallel()
			for n := 1; ; n++ {
				stopped := ""
				t.Run(fmt.Sprint(n), func(t *testing.T) { stopped = stopPatchAt(t, n, fail) })
				if stopped == "" {
					break
				}
			}
		})
	}
}

// stopPatchAt is one cell of TestPatchStopAtEveryStep: it returns the
// stage it stopped at, "" when the update has fewer than n steps.
func stopPatchAt(t *testing.T, n int, fail string) (stopped string) {
	f := newFixture(t)
	f.steps("reshapeBase", func() string { reshapeBase(t, f); return "" })
	w, err := Open(f.project, f.opts())
	if err != nil {
		t.Fatal(err)
	}
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
	oldRev := readLock(t, f.project).Packages["guides"].Rev
	pkg := w.pkgDir("guides")
	oldTree := layout(t, pkg)
	newRev := f.steps("reshape, reshapeTypes", func() string { reshape(t, f); return reshapeTypes(t, f) })
	newTree := layout(t, filepath.Join(f.upstream, "guides"))
	count, journaled := 0, false
	w.opts.testHook = func(stage, alias string) error {
		if stage == fail {
			return &fs.PathError{Op: "write", Path: stage, Err: syscall.ENOSPC}
		}
		if strings.HasPrefix(stage, "write:") {
			return nil
		}
		journaled = journaled || stage == "journaled"
		if count++; count == n {
			stopped = stage
			return fmt.Errorf("stop at %s", stage)
		}
		return nil
	}
	_, err = w.Update(bg, nil, UpdateOptions{})
	w.Close()
	if stopped == "" {
		if fail == "" && err != nil {
			t.Fatal(err)
		}
		return ""
	}
	t.Logf("stopped at %s (%d)", stopped, n)
	w2 := f.open(f.project)
	e := readLock(t, f.project).Packages["guides"]
	got := layout(t, pkg)
	switch {
	case e.Rev == newRev && reflect.DeepEqual(got, newTree):
	case e.Rev == oldRev && reflect.DeepEqual(got, oldTree) && (!journaled || fail != ""):
		// Before the journal, or after a full disk had it all put back.
	default:
		t.Fatalf("stopped at %s: lock at %s, folder:\n%v\nold tree:\n%v\nnew tree:\n%v", stopped, naming.ShortRev(e.Rev, 12), got, oldTree, newTree)
	}
	if st, err := w2.readState("guides"); err != nil || st.Rev != e.Rev {
		t.Errorf("lock %s, state %+v %v", naming.ShortRev(e.Rev, 12), st, err)
	}
	checkClean(t, w2)
	return stopped
}

// TestPatchHTTPS: an https source goes through the same staging, so an
// update of an llms.txt whose one page changed rewrites that page only.
func TestPatchHTTPS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var mu sync.Mutex
	pages := map[string]string{
		"/llms.txt": "# Docs\n\n- [A](/a.md)\n- [B](/b.md)\n- [C](/c.md)\n",
		"/a.md":     "# A\n\nAlpha.\n",
		"/b.md":     "# B\n\nBeta.\n",
		"/c.md":     "# C\n\nGamma.\n",
	}
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		body, ok := pages[r.URL.Path]
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		w.Write([]byte(body))
	}))
	t.Cleanup(web.Close)
	w := f.open(f.project)
	spec := project.PackageSpec{Alias: "web", Kind: project.KindHTTPS, Source: web.URL + "/llms.txt", AllowPrivateNetwork: true, TTL: "1ns"}
	f.must(w.Add(bg, []project.PackageSpec{spec}, AddOptions{}))
	pkg := w.pkgDir("web")
	before := idents(t, pkg)
	if len(before) < 4 {
		t.Fatalf("installed %v", keys(tree(t, pkg)))
	}
	mu.Lock()
	pages["/b.md"] = "# B\n\nBeta, second edition.\n"
	mu.Unlock()
	// The content was fetched a minute ago: its TTL (1ns) has run out.
	lp := filepath.Join(f.project, project.DirName, project.LockName)
	l := readLock(t, f.project)
	e := l.Packages["web"]
	e.Fetched = e.Fetched.Add(-time.Minute)
	l.Packages["web"] = e
	if err := lockfiletest.Write(lp, l); err != nil {
		t.Fatal(err)
	}
	if got := actions(f.must(w.Update(bg, nil, UpdateOptions{}))); got != "web:updated" {
		t.Fatalf("update: %s\n%s\n%v", got, f.log, tree(t, pkg))
	}
	after := idents(t, pkg)
	for p, id := range before {
		if d, _ := os.Lstat(filepath.Join(pkg, p)); d != nil && d.IsDir() {
			continue
		}
		if changed := id != after[p]; changed != strings.HasSuffix(p, "b.md") {
			t.Errorf("%s: rewritten %v", p, changed)
		}
	}
	checkClean(t, w)
}

// TestPatchAudience: a patched package is what a fresh install of the new
// commit gives (files, lock entry, state), audience rules included: the
// rules of the documents the stage lacks (kept in the package folder) are
// read as well, and a withheld document is not created.
func TestPatchAudience(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ files, change map[string]string }{
		// Only a kept document has rules: the stage alone has none.
		"kept-rules": {
			map[string]string{"public.md": "# Public\n", "for-a.md": "---\nctx_include: [proj-a]\n---\n# For A\n"},
			map[string]string{"public.md": "# Public v2\n"},
		},
		"mixed": {mixedAudience, map[string]string{"public.md": "# Public v2\n", "for-b.md": "---\nctx_include: [proj-b]\n---\n# For B\n"}},
	} {
		files := c.files
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			repo := filepath.Join(f.tmp, "repo")
			gittest.NewRepo(t, repo, files)
			w := f.open(f.project)
			setProject(t, w, "proj-a", "", "-")
			spec := project.PackageSpec{Source: repo, Alias: "docs"}
			f.must(w.Add(bg, []project.PackageSpec{spec}, AddOptions{}))
			staged := -1
			w.opts.testHook = func(stage, alias string) error {
				if stage == "staged" {
					staged = len(tree(t, w.stageDir(alias)))
				}
				return nil
			}
			gittest.Commit(t, repo, "moves", c.change)
			f.must(w.Update(bg, nil, UpdateOptions{}))
			w.opts.testHook = nil
			// Written to the stage: public.md and, in mixed, for-b.md and
			// the documents withheld before (not in the folder); all but
			// public.md withheld again before the state is staged.
			if staged != 1 {
				t.Errorf("the stage held %d files, want 1 (public.md)", staged)
			}
			if _, err := os.Lstat(filepath.Join(w.pkgDir("docs"), "for-b.md")); err == nil {
				t.Error("for-b.md, withheld, was created")
			}

			fresh := filepath.Join(f.tmp, "fresh")
			if err := os.MkdirAll(fresh, 0o755); err != nil {
				t.Fatal(err)
			}
			wf, err := Init(fresh, InitOptions{Project: "proj-a"}, f.opts())
			if err != nil {
				t.Fatal(err)
			}
			defer wf.Close()
			f.must(wf.Add(bg, []project.PackageSpec{spec}, AddOptions{}))
			got, want := readLock(t, f.project).Packages["docs"], readLock(t, fresh).Packages["docs"]
			if got.Rev != want.Rev || got.Hash != want.Hash || got.Audience != want.Audience || got.Withheld != want.Withheld {
				t.Errorf("lock entry %+v, a fresh install's %+v", got, want)
			}
			if g, w := snapshotOf(t, w.pkgDir("docs")), snapshotOf(t, wf.pkgDir("docs")); !reflect.DeepEqual(g, w) {
				t.Errorf("files %v, a fresh install's %v", g, w)
			}
			sg, _ := w.readState("docs")
			sw, _ := wf.readState("docs")
			if sg == nil || sw == nil || sg.Audience != sw.Audience || !slices.Equal(sg.Withheld, sw.Withheld) || len(sg.Files) != len(sw.Files) {
				t.Errorf("state %+v, a fresh install's %+v", sg, sw)
			}
			checkClean(t, w)
		})
	}
}

// TestPatchEditDuringUpdate: a file edited after the guard looked and
// before the patch (while the fetch ran) stops the update of its package:
// nothing changes, the edit stays, and the lock's hash never covers it.
func TestPatchEditDuringUpdate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
	pkg := w.pkgDir("guides")
	lockBefore := readFile(t, filepath.Join(f.project, project.DirName, project.LockName))
	f.commit("moves", map[string]string{"guides/other.md": "# Other v2\n"})
	edited := filepath.Join(pkg, "api/v2/intro.md")
	w.opts.testHook = func(stage, alias string) error {
		if stage == "write:stage" {
			// Same size, mtime set back: only the ctime tells.
			fi, err := os.Stat(edited)
			if err != nil {
				return err
			}
			writeFile(t, edited, "# Intro\n\nHellO.\n")
			return os.Chtimes(edited, fi.ModTime(), fi.ModTime())
		}
		return nil
	}
	r, err := w.Update(bg, nil, UpdateOptions{})
	w.opts.testHook = nil
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Packages[0]; p.Action != Failed || !strings.Contains(fmt.Sprint(p.Err), "api/v2/intro.md changed while ctx was updating") {
		t.Fatalf("update: %+v", p)
	}
	if readFile(t, edited) != "# Intro\n\nHellO.\n" || readFile(t, filepath.Join(pkg, "other.md")) != "# Other\n" {
		t.Error("the package changed")
	}
	if readFile(t, filepath.Join(f.project, project.DirName, project.LockName)) != lockBefore {
		t.Error("the lock changed")
	}
	if st, err := w.Status(); err != nil || len(st) != 1 {
		t.Errorf("status: %+v %v (want the edit)", st, err)
	}
}

// TestPatchFallback: a package whose folder holds a path no journal may
// name (here a local .git folder, with --force) is swapped whole, the
// files its fetch did not write copied into the stage first.
func TestPatchFallback(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
	pkg := w.pkgDir("guides")
	writeFile(t, filepath.Join(pkg, ".git/config"), "[core]\n")
	ino := idents(t, pkg)["."].ino
	f.commit("moves", map[string]string{"guides/other.md": "# Other v2\n"})
	r := f.must(w.Update(bg, nil, UpdateOptions{Force: true}))
	if r.Packages[0].Backup == "" {
		t.Fatal("no backup")
	}
	if got, want := layout(t, pkg), layout(t, filepath.Join(f.upstream, "guides")); !reflect.DeepEqual(got, want) {
		t.Errorf("package:\n%v\nwant the new tree:\n%v", got, want)
	}
	if idents(t, pkg)["."].ino == ino {
		t.Error("the folder was patched")
	}
	checkClean(t, w)
}

// TestPatchEditOfReplacedFile: a file the update replaces, edited after the
// guard looked (while the fetch ran), stops the update: the edit is kept.
func TestPatchEditOfReplacedFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
	edited := filepath.Join(w.pkgDir("guides"), "other.md")
	f.commit("moves", map[string]string{"guides/other.md": "# Other v2\n"})
	w.opts.testHook = func(stage, alias string) error {
		if stage == "write:stage" {
			writeFile(t, edited, "# Mine\n")
		}
		return nil
	}
	r, err := w.Update(bg, nil, UpdateOptions{})
	w.opts.testHook = nil
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Packages[0]; p.Action != Failed || !strings.Contains(fmt.Sprint(p.Err), "other.md changed while ctx was updating") {
		t.Fatalf("update: %+v", p)
	}
	if readFile(t, edited) != "# Mine\n" {
		t.Error("the edit is lost")
	}
}

// TestStateDelta: the delta a patch's journal carries, read back from its
// JSON and applied to the old state, is the new state: entries changed,
// added (one whose name is not UTF-8), dropped and kept, with the new
// state's fields; applied to the new state (a recovery after the swap put
// it in place) it is the new state again.
func TestStateDelta(t *testing.T) {
	f := func(p, blob string, size int64) fileState {
		return fileState{Path: p, Blob: blob, Size: size, Mode: 0o644, MTime: size * 7, CTime: size * 9, Ino: uint64(size), Sum: "s" + blob}
	}
	old := &pkgState{Rev: "r1", Tree: "t1", Hash: "h1", Audience: "a", AudienceChecked: true,
		Files: []fileState{f("a.md", "1", 1), f("b.md", "2", 2), f("c/d.md", "3", 3), f("e.md", "4", 4)}, at: 42}
	next := &pkgState{Rev: "r2", Tree: "t2", Hash: "h2", AudienceChecked: true, StateHead: project.StateHead{Withheld: []string{"w.md"}}, RulesNoted: true,
		Files: []fileState{f("a.md", "1", 1), f("b.md", "5", 5), f("c/e.md", "6", 6), f("e.md", "4", 4), f("\xff.md", "9", 9)}}
	next.Files[1].Rules = true
	data, err := json.Marshal(deltaOf(old, next))
	if err != nil {
		t.Fatal(err)
	}
	var d stateDelta
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Set) != 3 || len(d.Drop) != 1 || d.Drop[0].Path != "c/d.md" {
		t.Errorf("delta %s: want 3 entries set and c/d.md dropped", data)
	}
	got := d.apply(old)
	want := *next
	want.at = old.at
	if !reflect.DeepEqual(got, &want) {
		t.Errorf("applied to the old state:\n got %+v\nwant %+v", got, &want)
	}
	if again := d.apply(got); !reflect.DeepEqual(again, &want) {
		t.Errorf("applied to the new state:\n got %+v\nwant %+v", again, &want)
	}
}
