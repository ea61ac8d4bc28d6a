package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/project"
)

// edits change the installed "guides" package (path guides) the three ways a
// user can.
var edits = map[string]struct {
	apply func(t *testing.T, dir string)
	dirty []string
}{
	"modify": {func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "other.md"), "# Other, my notes\n") }, []string{"M other.md"}},
	"add":    {func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "api/mine.md"), "mine\n") }, []string{"A api/mine.md"}},
	"delete": {func(t *testing.T, dir string) {
		if err := os.Remove(filepath.Join(dir, "api/v2/intro.md")); err != nil {
			t.Fatal(err)
		}
	}, []string{"D api/v2/intro.md"}},
}

func TestDirtyMatrix(t *testing.T) {
	t.Parallel()
	for _, edit := range []string{"modify", "add", "delete"} {
		for _, cmd := range []string{"update", "install", "remove"} {
			t.Run(edit+"/"+cmd, func(t *testing.T) {
				t.Parallel() // each cell has its own fixture
				f := newFixture(t)
				w := f.open(f.project)
				f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}, {Source: f.upstream, Path: "team"}}, AddOptions{}))
				if cmd != "remove" {
					f.commit("upstream moves", map[string]string{"guides/other.md": "# Other, upstream v2\n", "team/handbook.md": "# Handbook v2\n"})
				}
				if cmd == "install" {
					// A teammate updated and committed the lock; we pulled it.
					f.teammate(func(wm *Workspace) { f.must(wm.Update(bg, nil, UpdateOptions{})) }, project.LockName)
				}
				dir := w.pkgDir("guides")
				edits[edit].apply(t, dir)
				before := tree(t, dir)
				lockBefore := readLock(t, f.project).Packages["guides"]
				manifestBefore := readFile(t, w.proj.Path(project.ManifestName))

				run := func(force bool) *Report {
					t.Helper()
					var r *Report
					var err error
					switch cmd {
					case "update":
						r, err = w.Update(bg, nil, UpdateOptions{Force: force})
					case "install":
						r, err = w.Install(bg, InstallOptions{Force: force})
					case "remove":
						names := []string{"guides", "team"}
						if force {
							names = names[:1] // team went the first time
						}
						r, err = w.Remove(bg, names, RemoveOptions{Force: force})
					}
					return f.must(r, err)
				}
				r := run(false)
				g := r.Packages[0]
				if g.Alias != "guides" || g.Action != Skipped || g.Reason != "dirty" || !reflect.DeepEqual(g.DirtyFiles, edits[edit].dirty) || !r.Partial() {
					t.Fatalf("guides: %+v", g)
				}
				if other := r.Packages[1].Action; other == Skipped || other == Unchanged {
					t.Fatalf("the clean package did not go on: %s", actions(r))
				}
				if got := tree(t, dir); !reflect.DeepEqual(got, before) {
					t.Fatalf("dirty package changed: %v, was %v", keys(got), keys(before))
				}
				if got := readLock(t, f.project).Packages["guides"]; !reflect.DeepEqual(got, lockBefore) {
					t.Fatalf("lock entry changed: %+v, was %+v", got, lockBefore)
				}
				if cmd == "remove" && readFile(t, w.proj.Path(project.ManifestName)) == manifestBefore {
					t.Fatal("team was not dropped from the manifest")
				}
				if m := w.Manifest(); !hasSpec(&m, "guides") {
					t.Fatal("guides dropped from the manifest")
				}
				st, err := w.Status()
				if err != nil || len(st) != 1 || st[0].Alias != "guides" {
					t.Fatalf("status: %+v %v", st, err)
				}

				// --force: the local versions go to a backup first, then the command proceeds.
				r = run(true)
				g = r.Packages[0]
				want := map[string]Action{"update": Updated, "install": Updated, "remove": Removed}[cmd]
				if g.Action != want || g.Backup == "" || r.Partial() || g.Alias != "guides" {
					t.Fatalf("forced: %s %+v", actions(r), g)
				}
				if !strings.HasPrefix(g.Backup, filepath.Join(f.project, project.DirName, "backup", "guides-")) {
					t.Fatalf("backup at %s", g.Backup)
				}
				// The backup is the whole folder as it was, edits included.
				if got := tree(t, g.Backup); !reflect.DeepEqual(got, before) {
					t.Fatalf("backup holds %v, the folder had %v", keys(got), keys(before))
				}
				switch edit {
				case "modify":
					if got := readFile(t, filepath.Join(g.Backup, "other.md")); got != "# Other, my notes\n" {
						t.Fatalf("backup has %q", got)
					}
				case "add":
					if got := readFile(t, filepath.Join(g.Backup, "api/mine.md")); got != "mine\n" {
						t.Fatalf("backup has %q", got)
					}
				case "delete":
					if got := readFile(t, g.Backup+".deleted.txt"); !strings.Contains(got, "api/v2/intro.md") {
						t.Fatalf("deleted list: %q", got)
					}
					if exists(filepath.Join(g.Backup, "api/v2/intro.md")) {
						t.Fatal("a deleted file is in the backup")
					}
				}
				if cmd == "remove" {
					if exists(dir) || hasSpec(ptr(w.Manifest()), "guides") {
						t.Fatal("guides not removed")
					}
				} else if got := readFile(t, filepath.Join(dir, "other.md")); got != "# Other, upstream v2\n" {
					t.Fatalf("after force: other.md = %q", got)
				}
				if st, _ := w.Status(); len(st) != 0 {
					t.Fatalf("still dirty after force: %+v", st)
				}
			})
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestDirtyDetection(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
	dir := w.pkgDir("guides")
	p := filepath.Join(dir, "other.md")
	// Touched, same content: clean (size+mtime differ → hash decides).
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	if st, err := w.Status(); err != nil || len(st) != 0 {
		t.Fatalf("touched file reported dirty: %+v %v", st, err)
	}
	// Same size, other content.
	writeFile(t, p, "# OTHER\n")
	// Executable bit.
	if err := os.Chmod(filepath.Join(dir, "api/v2/intro.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A file replaced by a symlink.
	os.Remove(filepath.Join(dir, "api/v2/ref/auth.md"))
	if err := os.Symlink("../intro.md", filepath.Join(dir, "api/v2/ref/auth.md")); err != nil {
		t.Fatal(err)
	}
	st, err := w.Status()
	want := []PackageStatus{{Alias: "guides", Files: []FileChange{
		{Path: "api/v2/intro.md", Change: "mode"},
		{Path: "api/v2/ref/auth.md", Change: "modified"},
		{Path: "other.md", Change: "modified"},
	}}}
	if err != nil || !reflect.DeepEqual(st, want) {
		t.Fatalf("status = %+v %v, want %+v", st, err, want)
	}
	// Install leaves a dirty package at the locked commit alone, skipped with
	// its files listed (it does not match the lock); --force restores it.
	r := f.must(w.Install(bg, InstallOptions{}))
	if actions(r) != "guides:skipped" || !reflect.DeepEqual(r.Packages[0].DirtyFiles, []string{"M api/v2/intro.md", "M api/v2/ref/auth.md", "M other.md"}) {
		t.Fatalf("install: %s %+v", actions(r), r.Packages[0])
	}
	r = f.must(w.Install(bg, InstallOptions{Force: true}))
	if actions(r) != "guides:installed" || r.Packages[0].Backup == "" {
		t.Fatalf("install --force: %s %+v", actions(r), r.Packages[0])
	}
	if vr, _ := w.Verify(); !vr[0].OK {
		t.Fatalf("verify after restore: %+v", vr)
	}
	if link, err := os.Readlink(filepath.Join(r.Packages[0].Backup, "api/v2/ref/auth.md")); err != nil || link != "../intro.md" {
		t.Fatalf("backup of the symlink: %q %v", link, err)
	}
	// Lost state: files that match the lock are recognised, anything else is not ctx's.
	os.RemoveAll(filepath.Join(f.project, project.DirName, ".state"))
	if st, err := w.Status(); err != nil || len(st) != 0 {
		t.Fatalf("status without state: %+v %v", st, err)
	}
	if !exists(w.statePath("guides")) {
		t.Fatal("state not rebuilt")
	}
	os.RemoveAll(filepath.Join(f.project, project.DirName, ".state"))
	writeFile(t, filepath.Join(dir, "x.md"), "x\n")
	if st, _ := w.Status(); len(st) != 1 || len(st[0].Files) != 4 {
		t.Fatalf("status without state, changed files: %+v", st)
	}
}

// A missing package folder is not an edit: install puts it back.
func TestInstallRestoresMissingFolder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "team"}}, AddOptions{}))
	os.RemoveAll(filepath.Join(f.project, project.DirName, "packages"))
	r := f.must(w.Install(bg, InstallOptions{}))
	if actions(r) != "team:installed" || !exists(filepath.Join(w.pkgDir("team"), "handbook.md")) {
		t.Fatalf("install: %s", actions(r))
	}
}

func TestCrashRecovery(t *testing.T) {
	t.Parallel()
	for _, stage := range []string{"staged", "journaled", "swapped", "locked"} {
		t.Run(stage, func(t *testing.T) {
			t.Parallel() // each stage has its own fixture
			f := newFixture(t)
			w := f.open(f.project)
			f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}, {Source: f.upstream, Path: "team"}}, AddOptions{}))
			oldCommit := readLock(t, f.project).Packages["guides"].Rev
			newCommit := f.commit("moves", map[string]string{"guides/other.md": "# v2\n", "team/handbook.md": "# v2\n"})
			crashUpdateAt(t, w, stage, "guides")
			if stage != "locked" {
				if ents, _ := os.ReadDir(filepath.Join(f.project, project.DirName, ".tmp")); len(ents) == 0 {
					t.Fatal("the simulated crash left nothing to recover")
				}
			}

			w2 := f.open(f.project)
			if ents, _ := os.ReadDir(filepath.Join(f.project, project.DirName, ".tmp")); len(ents) != 0 {
				t.Fatalf("leftovers after recovery: %v", ents)
			}
			l := readLock(t, f.project)
			want := newCommit
			if stage == "staged" {
				want = oldCommit // never reached its journal: as it was
			}
			if got := l.Packages["guides"].Rev; got != want {
				t.Fatalf("guides locked at %s, want %s", got, want)
			}
			// The lock is true to the disk: hashes and state agree for every package.
			vr, err := w2.Verify()
			if err != nil || len(vr) != 2 {
				t.Fatal(vr, err)
			}
			for _, v := range vr {
				st, _ := w2.readState(v.Alias)
				if !v.OK || st == nil || st.Rev != l.Packages[v.Alias].Rev {
					t.Errorf("%s: verify %+v, state %+v, lock %s", v.Alias, v, st, l.Packages[v.Alias].Rev)
				}
			}
			if st, err := w2.Status(); err != nil || len(st) != 0 {
				t.Fatalf("status after recovery: %+v %v", st, err)
			}
			r := f.must(w2.Update(bg, nil, UpdateOptions{}))
			for _, p := range r.Packages {
				if p.NewCommit != newCommit {
					t.Errorf("after recovery and update: %+v", p)
				}
			}
		})
	}
}

// crashUpdateAt runs an update of w that stops at stage for alias, as a
// crash there would, and closes w: what it wrote before stays for the
// next Open to recover.
func crashUpdateAt(t *testing.T, w *Workspace, stage, alias string) {
	t.Helper()
	w.opts.testHook = func(s, a string) error {
		if s == stage && a == alias {
			return errors.New("killed")
		}
		return nil
	}
	if _, err := w.Update(bg, nil, UpdateOptions{}); !errors.Is(err, errStopped) {
		t.Fatalf("update did not stop: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
