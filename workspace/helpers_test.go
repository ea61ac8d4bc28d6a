package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"
	"github.com/ctx-dev/ctx/project"
)

var bg = context.Background()

// fixture is a project and an upstream repository on disk.
type fixture struct {
	t        *testing.T
	tmp      string
	upstream string // non-bare repository, branch master
	project  string
	log      *bytes.Buffer
}

var upstreamFiles = map[string]string{
	"README.md":                 "# upstream\n",
	"guides/api/v2/intro.md":    "# Intro\n\nHello.\n",
	"guides/api/v2/ref/auth.md": "# Auth\n\nTokens.\n",
	"guides/other.md":           "# Other\n",
	"team/handbook.md":          "# Handbook\n",
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	if !gittest.Available() {
		t.Skip("git not installed")
	}
	tmp := t.TempDir()
	f := &fixture{t: t, tmp: tmp, upstream: filepath.Join(tmp, "upstream"), project: filepath.Join(tmp, "project"), log: &bytes.Buffer{}}
	gittest.NewRepo(t, f.upstream, upstreamFiles)
	if err := os.MkdirAll(f.project, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := Init(f.project, InitOptions{Project: "demo"}, f.opts())
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	return f
}

func (f *fixture) opts() Options {
	return Options{Log: f.log, Jobs: 2, EngineOptions: gitengine.Options{CacheDir: filepath.Join(f.tmp, "cache")}}
}

// open opens the project and closes it when the test ends.
func (f *fixture) open(dir string) *Workspace {
	f.t.Helper()
	w, err := Open(dir, f.opts())
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { w.Close() })
	return w
}

func (f *fixture) commit(msg string, files map[string]string) string {
	f.t.Helper()
	return gittest.Commit(f.t, f.upstream, msg, files)
}

// upstreamSteps keeps, per process, what a named run of fixture steps
// made of an upstream repository (work tree and .git, byte for byte) and
// what the steps returned, by the steps' name and the commit they started
// from. A matrix whose every cell makes the same upstream history (each
// step's commits are the same commits in every cell: gittest.Env fixes
// the identity and the dates) runs the steps in its first cell only.
var upstreamSteps struct {
	mu sync.Mutex
	m  map[string]*upstreamStep
}

type upstreamStep struct {
	mu   sync.Mutex
	tree *gittest.Tree
	ret  string
}

// steps runs do, fixture steps that change only the upstream repository
// (its files and its commits) and give the same result from the same
// commit, or, when steps of this name have run from the commit the
// upstream is at in this process, makes the upstream the repository they
// left (a fresh copy, as gittest.NewRepo's: the engine opens a local
// upstream anew for each fetch, and keeps nothing of its files) and
// returns what do returned.
func (f *fixture) steps(name string, do func() string) string {
	t := f.t
	t.Helper()
	head, err := os.ReadFile(filepath.Join(f.upstream, ".git", "refs", "heads", "master"))
	if err != nil {
		return do() // not a state this memo can name
	}
	// The name and the line that calls steps both key the memo: two step
	// lists given one name by mistake are told apart by their call sites
	// (a matrix's cells share theirs). Callers start from a clean upstream
	// (every change committed), so HEAD names the state do starts from.
	_, file, line, _ := runtime.Caller(1)
	key := fmt.Sprintf("%s\x00%s:%d\x00%s", name, file, line, head)
	upstreamSteps.mu.Lock()
	if upstreamSteps.m == nil {
		upstreamSteps.m = map[string]*upstreamStep{}
	}
	st := upstreamSteps.m[key]
	if st == nil {
		st = &upstreamStep{}
		upstreamSteps.m[key] = st
	}
	upstreamSteps.mu.Unlock()
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.tree != nil {
		if err := os.RemoveAll(f.upstream); err != nil {
			t.Fatal(err)
		}
		if err := st.tree.Write(f.upstream); err != nil {
			t.Fatal(err)
		}
		return st.ret
	}
	ret := do()
	tree, err := gittest.ReadTree(f.upstream)
	if err != nil {
		t.Fatal(err)
	}
	st.tree, st.ret = tree, ret
	return ret
}

func (f *fixture) git(args ...string) string {
	f.t.Helper()
	return gittest.MustGit(f.t, f.upstream, args...)
}

// teammate runs change in a copy of the project, as a teammate would, then
// copies the named files of its .context/ back, as a git pull of their
// commit would.
func (f *fixture) teammate(change func(w *Workspace), files ...string) {
	t := f.t
	t.Helper()
	mate := filepath.Join(f.tmp, "mate")
	copyProject(t, f.project, mate)
	copyLocal(t, f.project, mate) // the teammate has allowed the same upstream
	wm, err := Open(mate, f.opts())
	if err != nil {
		t.Fatal(err)
	}
	change(wm)
	wm.Close()
	for _, n := range files {
		writeFile(t, filepath.Join(f.project, project.DirName, n), readFile(t, filepath.Join(mate, project.DirName, n)))
	}
}

func (f *fixture) must(r *Report, err error) *Report {
	t := f.t
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Packages {
		if p.Action == Failed {
			t.Fatalf("%s failed: %v", p.Alias, p.Err)
		}
	}
	return r
}

func actions(r *Report) string {
	var s []string
	for _, p := range r.Packages {
		s = append(s, p.Alias+":"+string(p.Action))
	}
	return strings.Join(s, " ")
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readLock(t *testing.T, dir string) *lockfile.Lock {
	t.Helper()
	l, err := lockfiletest.Read(filepath.Join(dir, project.DirName, project.LockName))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// tree lists the files under dir with their contents.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := walkFiles(dir, func(rel string, _ os.FileInfo) error {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(m map[string]string) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	sort.Strings(k)
	return k
}

// copyProject makes a fresh checkout of a project: only the committed files.
func copyProject(t *testing.T, from, to string) {
	t.Helper()
	for _, n := range []string{project.ManifestName, project.LockName, ".gitignore"} {
		b, err := os.ReadFile(filepath.Join(from, project.DirName, n))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(to, project.DirName, n), string(b))
	}
}

// copyLocal copies the user's own file, context.local.json (its sources
// and allowances: see project.CheckSource), from one checkout to another,
// when it exists.
func copyLocal(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(from, project.DirName, project.LocalName))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(to, project.DirName, project.LocalName), string(b))
}

func hasSpec(m *project.Manifest, alias string) bool {
	_, ok := m.Spec(alias)
	return ok
}
