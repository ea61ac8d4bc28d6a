package workspace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/internal/treehash"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"
	"github.com/ctx-dev/ctx/project"
)

func TestInitAndOpen(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if _, err := Init(f.project, InitOptions{}, f.opts()); err == nil || !strings.Contains(err.Error(), "already") {
		t.Fatalf("second Init: %v", err)
	}
	gi := readFile(t, filepath.Join(f.project, project.DirName, ".gitignore"))
	for _, want := range []string{"/packages/", "/index/", "/INDEX.md", "/.state/", "/.tmp/", "/.lock", "/backup/"} {
		if !strings.Contains(gi, want+"\n") {
			t.Errorf(".gitignore lacks %s:\n%s", want, gi)
		}
	}
	w := f.open(f.project)
	if m := w.Manifest(); m.Project != "demo" || m.Packages == nil {
		t.Fatalf("manifest = %+v", m)
	}
	if err := w.SetRegistry("https://example.com/registry.json"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(readFile(t, filepath.Join(f.project, project.DirName, project.ManifestName)), `"registry": "https://example.com/registry.json"`) {
		t.Fatal("registry not written")
	}
	if _, err := Open(t.TempDir(), f.opts()); !errors.Is(err, project.ErrNoProject) || !strings.Contains(err.Error(), "ctx init") {
		t.Fatalf("Open of a plain dir: %v", err)
	}
}

func TestAddNestedSubPathDefaultBranchMaster(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	head := f.git("rev-parse", "HEAD")
	r := f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides/api/v2/"}}, AddOptions{}))
	if actions(r) != "v2:installed" || r.Packages[0].NewCommit != head {
		t.Fatalf("report = %s %+v", actions(r), r.Packages)
	}
	dir := filepath.Join(f.project, project.DirName, "packages", "v2")
	got := tree(t, dir)
	want := map[string]string{"intro.md": upstreamFiles["guides/api/v2/intro.md"], "ref/auth.md": upstreamFiles["guides/api/v2/ref/auth.md"]}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("installed %v, want %v", got, want)
	}
	e := readLock(t, f.project).Packages["v2"]
	h, _ := treehash.HashDir(dir)
	if e.Rev != head || e.Tree != f.git("rev-parse", "HEAD:guides/api/v2") || e.Hash != h || e.Path != "guides/api/v2" || e.Source != f.upstream {
		t.Fatalf("lock entry %+v (hash on disk %s)", e, h)
	}
	if m := w.Manifest(); len(m.Packages) != 1 || m.Packages[0] != (project.PackageSpec{Alias: "v2", Source: f.upstream, Path: "guides/api/v2"}) {
		t.Fatalf("manifest %+v", m.Packages)
	}
	// A duplicate alias is refused before anything happens.
	if _, err := w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "x/v2"}}, AddOptions{}); err == nil || !strings.Contains(err.Error(), `alias "v2" is already used`) {
		t.Fatalf("duplicate alias: %v", err)
	}
	if st, err := w.Status(); err != nil || len(st) != 0 {
		t.Fatalf("fresh install is dirty: %+v %v", st, err)
	}
	if vr, err := w.Verify(); err != nil || len(vr) != 1 || !vr[0].OK {
		t.Fatalf("verify %+v %v", vr, err)
	}
}

func TestAddRefsAndRelativeSource(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	first := f.git("rev-parse", "HEAD")
	f.git("tag", "v1")
	f.git("tag", "-a", "-m", "annotated", "v1-annotated")
	second := f.commit("two", map[string]string{"guides/other.md": "# Other, v2\n"})
	w := f.open(f.project)
	r := f.must(w.Add(bg, []project.PackageSpec{
		{Alias: "tag", Source: "../upstream", Path: "guides", Ref: "v1"},
		{Alias: "annotated", Source: f.upstream, Path: "guides", Ref: "v1-annotated"},
		{Alias: "sha", Source: f.upstream, Path: "guides", Ref: first},
		{Alias: "short", Source: f.upstream, Path: "guides", Ref: first[:10]},
		{Alias: "branch", Source: f.upstream, Path: "guides", Ref: "master"},
		{Alias: "head", Source: f.upstream, Path: "guides"},
	}, AddOptions{}))
	want := map[string]string{"tag": first, "annotated": first, "sha": first, "short": first, "branch": second, "head": second}
	l := readLock(t, f.project)
	for _, p := range r.Packages {
		if p.Action != Installed || p.NewCommit != want[p.Alias] || l.Packages[p.Alias].Rev != want[p.Alias] {
			t.Errorf("%s: %s at %s (lock %s), want %s", p.Alias, p.Action, p.NewCommit, l.Packages[p.Alias].Rev, want[p.Alias])
		}
	}
	if got := readFile(t, filepath.Join(f.project, project.DirName, "packages/tag/other.md")); got != "# Other\n" {
		t.Fatalf("tag content %q", got)
	}
	if l.Packages["tag"].Source != "../upstream" {
		t.Fatalf("relative source not stored as given: %q", l.Packages["tag"].Source)
	}
	// A bad ref fails and is not kept in the manifest.
	r, err := w.Add(bg, []project.PackageSpec{{Alias: "bad", Source: f.upstream, Ref: "no-such-branch"}}, AddOptions{})
	if err != nil || r.Packages[0].Action != Failed || !r.Partial() {
		t.Fatalf("bad ref: %+v %v", r, err)
	}
	if m := w.Manifest(); hasSpec(&m, "bad") {
		t.Fatal("failed add kept in the manifest")
	}
}

func TestFreshCloneInstallReproducesLock(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}, {Source: f.upstream, Path: "team", Alias: "team"}}, AddOptions{}))
	w.Close()
	lockBytes := readFile(t, filepath.Join(f.project, project.DirName, project.LockName))
	locked := f.git("rev-parse", "HEAD")

	// Upstream moves on; a teammate's fresh clone still gets the locked
	// commit. The upstream is a repository outside the project: the
	// clone's user allows it (once for both packages; naming the second
	// too is no error).
	f.commit("moved", map[string]string{"guides/other.md": "# Other, changed\n", "guides/new.md": "new\n"})
	clone := filepath.Join(f.tmp, "clone")
	copyProject(t, f.project, clone)
	wc := f.open(clone)
	if r, err := wc.Install(bg, InstallOptions{Frozen: true}); err != nil || actions(r) != "guides:failed team:failed" || !errors.Is(r.Packages[0].Err, project.ErrOutside) {
		t.Fatalf("clone, not allowed: %v %v", r, err)
	}
	r := f.must(wc.Install(bg, InstallOptions{Frozen: true, AllowOutside: []string{"guides", "team"}}))
	if actions(r) != "guides:installed team:installed" {
		t.Fatalf("install: %s", actions(r))
	}
	if got := readFile(t, filepath.Join(clone, project.DirName, project.LockName)); got != lockBytes {
		t.Fatalf("install changed the lock:\n%s\nwas\n%s", got, lockBytes)
	}
	for _, a := range []string{"guides", "team"} {
		if !reflect.DeepEqual(tree(t, filepath.Join(clone, project.DirName, "packages", a)), tree(t, filepath.Join(f.project, project.DirName, "packages", a))) {
			t.Errorf("%s differs from the original install", a)
		}
	}
	vr, err := wc.Verify()
	if err != nil || len(vr) != 2 || !vr[0].OK || !vr[1].OK {
		t.Fatalf("verify: %+v %v", vr, err)
	}
	if r.Packages[0].NewCommit != locked {
		t.Fatalf("installed %s, locked %s", r.Packages[0].NewCommit, locked)
	}
	// Installing again moves nothing.
	r = f.must(wc.Install(bg, InstallOptions{}))
	if actions(r) != "guides:unchanged team:unchanged" {
		t.Fatalf("second install: %s", actions(r))
	}
	// A tampered lock hash is caught on install.
	tampered := filepath.Join(f.tmp, "tampered")
	copyProject(t, f.project, tampered)
	copyLocal(t, f.project, tampered)
	l := readLock(t, tampered)
	e := l.Packages["team"]
	e.Hash = "h1:" + strings.Repeat("A", 43) + "="
	l.Packages["team"] = e
	if err := lockfiletest.Write(filepath.Join(tampered, project.DirName, project.LockName), l); err != nil {
		t.Fatal(err)
	}
	wt := f.open(tampered)
	r, err = wt.Install(bg, InstallOptions{})
	if err != nil || actions(r) != "guides:installed team:failed" || !strings.Contains(r.Packages[1].Err.Error(), "ctx update team") {
		t.Fatalf("tampered: %s %v %v", actions(r), err, r.Packages[1].Err)
	}
	if _, err := os.Stat(filepath.Join(tampered, project.DirName, "packages", "team")); !os.IsNotExist(err) {
		t.Fatal("a package that failed its hash was installed")
	}
}

func TestInstallFrozenDisagreement(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "guides"}}, AddOptions{}))
	m := w.Manifest()
	m.Packages = append(m.Packages, project.PackageSpec{Alias: "team", Source: f.upstream, Path: "team"})
	m.Packages[0].Ref = "master"
	if err := w.writeManifest(&m); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, filepath.Join(f.project, project.DirName, project.LockName))
	_, err := w.Install(bg, InstallOptions{Frozen: true})
	if err == nil || !strings.Contains(err.Error(), "team is not locked") || !strings.Contains(err.Error(), "guides changed") {
		t.Fatalf("frozen: %v", err)
	}
	if readFile(t, filepath.Join(f.project, project.DirName, project.LockName)) != before {
		t.Fatal("--frozen wrote the lock")
	}
	// Without --frozen: team is resolved and locked; guides' ref changes only in the lock.
	r := f.must(w.Install(bg, InstallOptions{}))
	if actions(r) != "guides:updated team:installed" {
		t.Fatalf("install: %s", actions(r))
	}
	l := readLock(t, f.project)
	if l.Packages["guides"].Ref != "master" || l.Packages["team"].Rev == "" {
		t.Fatalf("lock %+v", l.Packages)
	}
	// A package dropped from the manifest is removed by install.
	m = w.Manifest()
	m.Packages = m.Packages[:1]
	w.writeManifest(&m)
	r = f.must(w.Install(bg, InstallOptions{}))
	if actions(r) != "guides:unchanged team:removed" {
		t.Fatalf("install after drop: %s", actions(r))
	}
	if _, ok := readLock(t, f.project).Packages["team"]; ok || exists(w.pkgDir("team")) {
		t.Fatal("team still there")
	}
}

func TestUpdate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// A bare copy served over smart HTTP, and a second repository.
	root := filepath.Join(f.tmp, "srv")
	gittest.MustGit(t, f.tmp, "clone", "-q", "--bare", f.upstream, filepath.Join(root, "docs.git"))
	other := filepath.Join(f.tmp, "other")
	gittest.NewRepo(t, other, map[string]string{"notes/a.md": "# A\n"})
	gittest.MustGit(t, f.tmp, "clone", "-q", "--bare", other, filepath.Join(root, "other.git"))
	srv, err := gittest.Serve(root, gittest.ServeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{
		{Alias: "api", Source: srv.URL + "/docs.git", Path: "guides/api"},
		{Alias: "team", Source: srv.URL + "/docs.git", Path: "team"},
		{Alias: "notes", Source: srv.URL + "/other.git", Path: "notes"},
	}, AddOptions{}))
	lockPath := filepath.Join(f.project, project.DirName, project.LockName)
	before := readFile(t, lockPath)
	fi0, _ := os.Stat(lockPath)

	// Nothing new: nothing moves, the lock is untouched, no pack is fetched.
	srv.ResetCounters()
	r := f.must(w.Update(bg, nil, UpdateOptions{}))
	if actions(r) != "api:unchanged notes:unchanged team:unchanged" {
		t.Fatalf("update: %s", actions(r))
	}
	for _, p := range r.Packages {
		if p.Bytes != 0 {
			t.Fatalf("%s fetched %d bytes", p.Alias, p.Bytes)
		}
	}
	if srv.Requests() != 2 { // one ref advertisement per repository, nothing else
		t.Fatalf("update made %d requests, want 2 (one ls-refs per repository)", srv.Requests())
	}
	fi1, _ := os.Stat(lockPath)
	if readFile(t, lockPath) != before || !fi1.ModTime().Equal(fi0.ModTime()) {
		t.Fatal("lock rewritten by an update that changed nothing")
	}
	if ch, err := outdatedOf(w); err != nil || len(ch) != 0 {
		t.Fatalf("outdated: %+v %v", ch, err)
	}

	// One new commit in other.git: only notes moves.
	newNotes := gittest.Commit(t, other, "more", map[string]string{"notes/b.md": "# B\n"})
	gittest.Push(t, other, filepath.Join(root, "other.git"), "master")
	ch, err := outdatedOf(w)
	if err != nil || len(ch) != 1 || ch[0].Alias != "notes" || ch[0].NewCommit != newNotes {
		t.Fatalf("outdated: %+v %v", ch, err)
	}
	dry := f.must(w.Update(bg, nil, UpdateOptions{DryRun: true}))
	if actions(dry) != "api:unchanged notes:updated team:unchanged" || readFile(t, lockPath) != before || exists(filepath.Join(w.pkgDir("notes"), "b.md")) {
		t.Fatalf("dry run changed something: %s", actions(dry))
	}
	r = f.must(w.Update(bg, nil, UpdateOptions{}))
	if actions(r) != "api:unchanged notes:updated team:unchanged" || r.Packages[1].NewCommit != newNotes || r.Packages[1].OldCommit == newNotes {
		t.Fatalf("update: %s %+v", actions(r), r.Packages[1])
	}
	if readFile(t, filepath.Join(w.pkgDir("notes"), "b.md")) != "# B\n" {
		t.Fatal("notes not updated on disk")
	}
	oldL, _ := project.ParseLock("old", []byte(before))
	newL := readLock(t, f.project)
	for a := range oldL.Packages {
		if (a == "notes") == reflect.DeepEqual(oldL.Packages[a], newL.Packages[a]) {
			t.Errorf("%s: lock entry changed = %v, want only notes to change", a, a != "notes")
		}
	}
	if !newL.Packages["notes"].Updated.After(oldL.Packages["notes"].Updated.Add(-1)) {
		t.Error("updated time did not move")
	}
	// Unknown alias.
	if _, err := w.Update(bg, []string{"nope"}, UpdateOptions{}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("unknown alias: %v", err)
	}
}

func TestCorruptLock(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	writeFile(t, filepath.Join(f.project, project.DirName, project.LockName), "{\n  \"version\": 1,\n  \"packages\": {\n    \"a\": {\"source\": \"x\"\n}\n")
	_, err := w.Install(bg, InstallOptions{})
	if err == nil || !strings.Contains(err.Error(), ".context/context.lock:6:1") || !strings.Contains(err.Error(), "git checkout .context/context.lock") {
		t.Fatalf("corrupt lock: %v", err)
	}
}

func TestOpenSerializes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w1 := f.open(f.project)
	o := f.opts()
	o.LockWait = 50_000_000 // 50ms
	if _, err := Open(f.project, o); err == nil || !strings.Contains(err.Error(), "another ctx (pid ") {
		t.Fatalf("second open while held: %v", err)
	}
	got := make(chan *Workspace)
	go func() {
		w2, err := Open(f.project, f.opts()) // waits up to 10s
		if err != nil {
			t.Error(err)
		}
		got <- w2
	}()
	// The second opener blocks while w1 holds the lock: it cannot have got
	// in before w1 writes this file and closes.
	marker := filepath.Join(f.project, "marker")
	writeFile(t, marker, "w1")
	w1.Close()
	w2 := <-got
	if w2 == nil {
		t.Fatal("no second workspace")
	}
	defer w2.Close()
	if readFile(t, marker) != "w1" {
		t.Fatal("marker changed")
	}
	if !strings.Contains(f.log.String(), "waiting for another ctx (pid") {
		t.Errorf("the waiter said nothing: %q", f.log.String())
	}
}

func TestDefaultAlias(t *testing.T) {
	t.Parallel()
	for _, tc := range [][3]string{
		{"https://github.com/acme/eng-docs.git", "", "eng-docs"},
		{"git@github.com:acme/eng-docs.git", "", "eng-docs"},
		{"../local/repo/", "", "repo"},
		{"https://x/y.git", "guides/api/v2/", "v2"},
		{"https://x/y.git", "Guides/My Docs", "my-docs"},
		{"https://x/y.git", ".", "y"},
		{"https://x/y.git", ".hidden", "hidden"},
		// https sources: the file without its extension, or the host for
		// an index.
		{"https://docs.example.com/guides/Deploy.md", "", "deploy"},
		{"http://127.0.0.1:8080/api.html", "", "api"},
		{"https://example.com/dl/handbook.tar.gz", "", "handbook"},
		{"https://docs.example.com/llms.txt", "", "docs.example.com"},
		{"https://docs.example.com/v2/index.html", "", "docs.example.com"},
		// A site's root: its host, without the port (not the port).
		{"http://127.0.0.1:18716/", "", "127.0.0.1"},
		{"https://wiki.corp:8443", "", "wiki.corp"},
		{"https://docs.example.com/", "", "docs.example.com"},
	} {
		if got := DefaultAlias(tc[0], tc[1]); got != tc[2] {
			t.Errorf("DefaultAlias(%q, %q) = %q, want %q", tc[0], tc[1], got, tc[2])
		}
	}
}

func TestListAndReindexWarning(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "team"}}, AddOptions{}))
	infos, err := w.List()
	if err != nil || len(infos) != 1 || !infos[0].Installed || !infos[0].Locked || !infos[0].InManifest || infos[0].Commit == "" {
		t.Fatalf("list: %+v %v", infos, err)
	}
	m := w.Manifest()
	m.Packages = append(m.Packages, project.PackageSpec{Alias: "later", Source: "x"})
	w.writeManifest(&m)
	infos, _ = w.List()
	if len(infos) != 2 || infos[0].Alias != "later" || infos[0].Locked || infos[0].Installed {
		t.Fatalf("list: %+v", infos)
	}
	var buf bytes.Buffer
	_ = buf
}
