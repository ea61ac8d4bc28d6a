package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/project"
)

// guardEdit is one way a user can change an installed file of the "guides"
// package; path is the file the output must name, word a term only the
// edit brings (searched for after `index`), "" when it brings none.
type guardEdit struct {
	name  string
	path  string
	word  string
	apply func(t *testing.T, dir string)
}

var guardEdits = []guardEdit{
	{"modify", "other.md", "zebrafish", func(t *testing.T, dir string) {
		writeFile(t, filepath.Join(dir, "other.md"), "# Other, my zebrafish notes\n")
	}},
	// What an editor, cp -p, rsync -t or touch -r leave: same size, mtime set back.
	{"modify-keep-size-mtime", "other.md", "zebu", func(t *testing.T, dir string) {
		p := filepath.Join(dir, "other.md")
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		edited := "# zebu!\n" // as long as "# Other\n"
		if int64(len(edited)) != fi.Size() {
			t.Fatalf("edit changes the size")
		}
		writeFile(t, p, edited)
		if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}},
	{"add", "api/mine.md", "okapi", func(t *testing.T, dir string) {
		writeFile(t, filepath.Join(dir, "api/mine.md"), "# Mine\n\nokapi\n")
	}},
	{"delete", "api/v2/intro.md", "", func(t *testing.T, dir string) {
		if err := os.Remove(filepath.Join(dir, "api/v2/intro.md")); err != nil {
			t.Fatal(err)
		}
	}},
	{"chmod", "api/v2/intro.md", "", func(t *testing.T, dir string) {
		if err := os.Chmod(filepath.Join(dir, "api/v2/intro.md"), 0o755); err != nil {
			t.Fatal(err)
		}
	}},
	{"symlink", "other.md", "", func(t *testing.T, dir string) {
		p := filepath.Join(dir, "other.md")
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("api/v2/intro.md", p); err != nil {
			t.Fatal(err)
		}
	}},
	{"empty", "other.md", "", func(t *testing.T, dir string) {
		if err := os.Truncate(filepath.Join(dir, "other.md"), 0); err != nil {
			t.Fatal(err)
		}
	}},
}

// snapshot is every entry under dir: its git mode and its bytes (a link's
// target), so that a lost mode or a followed link shows as well as lost bytes.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	return snapshotOf(t, dir)
}

// TestGuardMatrix: every edit × every command that could replace or delete
// the package's files (and index, which must not) loses nothing, names the
// edited file, and makes the report partial (exit 3); --force keeps the
// edit in the backup. setup re-run is in testdata/script/pm_dirty_setup.txtar.
func TestGuardMatrix(t *testing.T) {
	t.Parallel()
	cmds := []string{"update", "install-lock-moved", "install-dropped", "remove", "index"}
	var tries, failures atomic.Int64
	// The cells run in parallel, so the count is logged once they are done.
	t.Cleanup(func() { t.Logf("guard matrix: %d tries, %d failures", tries.Load(), failures.Load()) })
	for _, e := range guardEdits {
		for _, cmd := range cmds {
			t.Run(e.name+"/"+cmd, func(t *testing.T) {
				t.Parallel() // each cell has its own fixture
				tries.Add(1)
				defer func() {
					if t.Failed() {
						failures.Add(1)
					}
				}()
				guardCell(t, e, cmd)
			})
		}
	}
}

func guardCell(t *testing.T, e guardEdit, cmd string) {
	f := newFixture(t)
	w, err := Open(f.project, f.opts())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { w.Close() }()
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}, {Source: f.upstream, Path: "team"}}, AddOptions{}))
	if cmd == "update" || cmd == "install-lock-moved" {
		f.commit("upstream moves", map[string]string{"guides/other.md": "# Other, upstream v2\n", "team/handbook.md": "# Handbook v2\n"})
	}
	if cmd == "install-lock-moved" || cmd == "install-dropped" {
		// A teammate changed and committed the lock (and manifest); we pulled.
		w.Close()
		f.teammate(func(wm *Workspace) {
			if cmd == "install-dropped" {
				f.must(wm.Remove(bg, []string{"guides"}, RemoveOptions{}))
			} else {
				f.must(wm.Update(bg, nil, UpdateOptions{}))
			}
		}, project.LockName, project.ManifestName)
		var err error
		if w, err = Open(f.project, f.opts()); err != nil {
			t.Fatal(err)
		}
	}
	dir := w.pkgDir("guides")
	time.Sleep(10 * time.Millisecond) // a coarse clock must still see the edit's ctime move
	e.apply(t, dir)
	before := snapshot(t, dir)
	lockBefore := readFile(t, filepath.Join(f.project, project.DirName, project.LockName))

	all, err := w.Status()
	var st []PackageStatus // the edited packages; after a pull, others are behind the lock
	behind := 0
	for _, s := range all {
		if len(s.Files) > 0 {
			st = append(st, s)
		}
		if s.InstalledCommit != "" {
			behind++
		}
	}
	if err != nil || len(st) != 1 || st[0].Alias != "guides" || !namesFile(st[0].Files, e.path) {
		t.Fatalf("status: %+v %v", all, err)
	}
	if moved := cmd == "install-lock-moved"; moved != (behind > 0) {
		t.Fatalf("status after a pull that moved the lock (%v): %d behind, %+v", moved, behind, all)
	}

	run := func(force bool) *Report {
		t.Helper()
		var r *Report
		var err error
		switch cmd {
		case "update":
			r, err = w.Update(bg, nil, UpdateOptions{Force: force})
		case "install-lock-moved", "install-dropped":
			r, err = w.Install(bg, InstallOptions{Force: force})
		case "remove":
			names := []string{"guides", "team"}
			if force {
				names = names[:1]
			}
			r, err = w.Remove(bg, names, RemoveOptions{Force: force})
		}
		return f.must(r, err)
	}

	if cmd == "index" {
		if _, err := w.Reindex(bg, indexer.Options{}); err != nil {
			t.Fatal(err)
		}
		if got := snapshot(t, dir); fmt.Sprint(got) != fmt.Sprint(before) {
			t.Fatalf("index changed the package: %v, was %v", got, before)
		}
		if e.word != "" {
			rd, err := indexer.OpenReader(w.Dir())
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			hits, err := rd.Search(bg, indexer.Query{Text: e.word})
			if err != nil || len(hits) == 0 || hits[0].Package != "guides" || hits[0].Path != e.path {
				t.Fatalf("the edit is not indexed: %+v %v", hits, err)
			}
		}
		if st, err := w.Status(); err != nil || len(st) != 1 || !namesFile(st[0].Files, e.path) {
			t.Fatalf("status after index: %+v %v", st, err)
		}
		return
	}

	r := run(false)
	var g *PackageResult
	for i := range r.Packages {
		if r.Packages[i].Alias == "guides" {
			g = &r.Packages[i]
		}
	}
	if g == nil || g.Action != Skipped || g.Reason != "dirty" || !r.Partial() {
		t.Fatalf("guides was not refused: %s %+v", actions(r), g)
	}
	named := false
	for _, d := range g.DirtyFiles {
		named = named || strings.HasSuffix(d, " "+e.path)
	}
	if !named {
		t.Fatalf("the edited file %s is not named: %q", e.path, g.DirtyFiles)
	}
	if got := snapshot(t, dir); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("edit lost: %v, was %v", got, before)
	}
	if cmd != "remove" && cmd != "install-dropped" {
		if l := readLock(t, f.project); l.Packages["guides"].Hash == "" {
			t.Fatal("guides left the lock")
		}
	}
	_ = lockBefore

	// --force: the edit is in the backup, then the command goes on.
	r = run(true)
	g = nil
	for i := range r.Packages {
		if r.Packages[i].Alias == "guides" {
			g = &r.Packages[i]
		}
	}
	if g == nil || g.Backup == "" || r.Partial() {
		t.Fatalf("forced: %s %+v", actions(r), g)
	}
	saved := snapshot(t, g.Backup)
	for p, v := range before {
		if saved[p] != v && !(e.name == "chmod" && p == e.path) { // the backup need not keep modes
			t.Errorf("backup %s = %s, was %s", p, saved[p], v)
		}
	}
	if e.name == "delete" && !strings.Contains(readFile(t, g.Backup+".deleted.txt"), e.path) {
		t.Error("the deleted file is not listed")
	}
}

func namesFile(fc []FileChange, p string) bool {
	for _, c := range fc {
		if c.Path == p {
			return true
		}
	}
	return false
}
