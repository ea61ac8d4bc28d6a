package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

func TestRemoveAndStrays(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "team"}, {Source: f.upstream, Path: "guides"}}, AddOptions{}))
	if _, err := w.Remove(bg, []string{"team", "nope"}, RemoveOptions{}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("unknown alias: %v", err)
	}
	if !exists(w.pkgDir("team")) {
		t.Fatal("a failed remove removed something")
	}
	r := f.must(w.Remove(bg, []string{"team"}, RemoveOptions{}))
	if actions(r) != "team:removed" || exists(w.pkgDir("team")) || exists(w.statePath("team")) {
		t.Fatalf("remove: %s", actions(r))
	}
	if m := w.Manifest(); hasSpec(&m, "team") {
		t.Fatal("team still in the manifest")
	}
	if _, ok := readLock(t, f.project).Packages["team"]; ok {
		t.Fatal("team still locked")
	}

	// A folder ctx did not install is left alone by install, and Add refuses
	// to overwrite it unless forced.
	stray := filepath.Join(f.project, project.DirName, "packages", "mine")
	writeFile(t, filepath.Join(stray, "notes.md"), "mine\n")
	r = f.must(w.Install(bg, InstallOptions{}))
	if actions(r) != "guides:unchanged" || !exists(filepath.Join(stray, "notes.md")) || !strings.Contains(f.log.String(), "packages/mine is not a package ctx installed") {
		t.Fatalf("install with a stray folder: %s\n%s", actions(r), f.log)
	}
	r = f.must(w.Add(bg, []project.PackageSpec{{Alias: "mine", Source: f.upstream, Path: "team"}}, AddOptions{}))
	if r.Packages[0].Action != Skipped || r.Packages[0].DirtyFiles[0] != "A notes.md" {
		t.Fatalf("add over a stray folder: %+v", r.Packages[0])
	}
	if m := w.Manifest(); hasSpec(&m, "mine") {
		t.Fatal("a skipped add was kept in the manifest")
	}
	r = f.must(w.Add(bg, []project.PackageSpec{{Alias: "mine", Source: f.upstream, Path: "team"}}, AddOptions{Force: true}))
	if r.Packages[0].Action != Installed || readFile(t, filepath.Join(r.Packages[0].Backup, "notes.md")) != "mine\n" {
		t.Fatalf("forced add: %+v", r.Packages[0])
	}
	if _, err := os.Stat(filepath.Join(stray, "handbook.md")); err != nil {
		t.Fatal(err)
	}
}

func TestOutdatedUnlockedAndRefChange(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "team"}}, AddOptions{}))
	head := f.git("rev-parse", "HEAD")
	f.git("tag", "v1")
	m := w.Manifest()
	m.Packages[0].Ref = "v1" // same commit, another ref
	m.Packages = append(m.Packages, project.PackageSpec{Alias: "new", Source: f.upstream, Path: "guides"})
	if err := w.writeManifest(&m); err != nil {
		t.Fatal(err)
	}
	ch, err := outdatedOf(w)
	if err != nil || len(ch) != 2 || ch[0].Alias != "new" || ch[0].OldCommit != "" || ch[1].Alias != "team" || ch[1].NewCommit != head || ch[1].Ref != "v1" {
		t.Fatalf("outdated: %+v %v", ch, err)
	}
	before := tree(t, w.pkgDir("team"))
	r := f.must(w.Update(bg, []string{"team"}, UpdateOptions{}))
	if actions(r) != "team:updated" || r.Packages[0].Bytes != 0 {
		t.Fatalf("update: %s %+v", actions(r), r.Packages[0])
	}
	if e := readLock(t, f.project).Packages["team"]; e.Ref != "v1" || e.Rev != head {
		t.Fatalf("lock: %+v", e)
	}
	if len(tree(t, w.pkgDir("team"))) != len(before) {
		t.Fatal("files changed")
	}
	r = f.must(w.Update(bg, nil, UpdateOptions{}))
	if actions(r) != "new:installed team:unchanged" {
		t.Fatalf("update all: %s", actions(r))
	}
}

func TestPathChangeRefetches(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Alias: "docs", Source: f.upstream, Path: "team"}}, AddOptions{}))
	m := w.Manifest()
	m.Packages[0].Path = "guides"
	w.writeManifest(&m)
	r := f.must(w.Install(bg, InstallOptions{}))
	if actions(r) != "docs:installed" || !exists(filepath.Join(w.pkgDir("docs"), "other.md")) || exists(filepath.Join(w.pkgDir("docs"), "handbook.md")) {
		t.Fatalf("install after a path change: %s", actions(r))
	}
	if e := readLock(t, f.project).Packages["docs"]; e.Path != "guides" || e.Tree != f.git("rev-parse", "HEAD:guides") {
		t.Fatalf("lock %+v", e)
	}
}

func TestTagBeforeBranch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	first := f.git("rev-parse", "HEAD")
	f.git("tag", "same")
	f.commit("two", map[string]string{"team/x.md": "x\n"})
	f.git("branch", "same")
	w := f.open(f.project)
	r := f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "team", Ref: "same"}}, AddOptions{}))
	if r.Packages[0].NewCommit != first || !strings.Contains(f.log.String(), "both a tag and a branch") {
		t.Fatalf("got %s, want the tag's %s; log %q", r.Packages[0].NewCommit, first, f.log)
	}
}
