package workspace

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/project"
)

func TestInferKind(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFile(t, filepath.Join(f.project, "docs", "a.md"), "# A\n")
	writeFile(t, filepath.Join(f.project, "AGENTS.md"), "# Agents\n")
	root := filepath.Join(f.tmp, "served")
	gittest.MustGit(t, f.tmp, "clone", "-q", "--bare", f.upstream, filepath.Join(root, "repo"))
	gittest.MustGit(t, f.tmp, "clone", "-q", "--bare", f.upstream, filepath.Join(f.project, "bare"))
	gitSrv, err := gittest.Serve(root, gittest.ServeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gitSrv.Close() })
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body><h1>Docs</h1></body></html>"))
	}))
	t.Cleanup(web.Close)
	w := f.open(f.project)
	for _, tc := range []struct{ source, want string }{
		{f.upstream, project.KindGit},
		{"bare", project.KindGit},
		{"docs", project.KindDir},
		{"./docs/", project.KindDir},
		{"AGENTS.md", project.KindDir},
		{filepath.Join(f.project, "docs"), project.KindDir},
		{"missing", ""},
		{"file://" + f.upstream, project.KindGit},
		{"git@example.com:team/handbook.git", project.KindGit},
		{"ssh://git@example.com/team/handbook", project.KindGit},
		{"git://example.com/team/handbook", project.KindGit},
		{"https://example.com/team/handbook.git", project.KindGit},
		{"https://github.com/acme/handbook", project.KindGit},
		{"https://GitLab.com/acme/handbook/", project.KindGit},
		{"https://bitbucket.org/acme/handbook", project.KindGit},
		{"https://example.com/guide.md", project.KindHTTPS},
		{"https://example.com/notes.markdown", project.KindHTTPS},
		{"https://example.com/notes.TXT", project.KindHTTPS},
		{"https://example.com/page.html", project.KindHTTPS},
		{"https://example.com/page.htm", project.KindHTTPS},
		{"https://example.com/llms.txt", project.KindHTTPS},
		{"https://example.com/docs.tar.gz", project.KindHTTPS},
		{"https://example.com/docs.tgz", project.KindHTTPS},
		{"https://example.com/docs.zip", project.KindHTTPS},
		{"https://github.com/acme/handbook/blob/main/README.md", project.KindHTTPS},
		{gitSrv.URL + "/repo", project.KindGit}, // probed: speaks git
		{web.URL + "/guide", project.KindHTTPS}, // probed: does not
	} {
		got, err := w.InferKind(bg, nil, tc.source)
		if tc.want == "" {
			if err == nil || !strings.Contains(err.Error(), "does not exist") {
				t.Errorf("InferKind(%q) = %q, %v; want a does-not-exist error", tc.source, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("InferKind(%q) = %q, %v; want %q", tc.source, got, err, tc.want)
		}
	}
}

// A dir source is recorded in the manifest only: nothing is copied to
// packages/, nothing is locked, install/update/outdated/verify/status pass
// over it, and remove forgets it without touching its files.
func TestDirSourceLifecycle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFile(t, filepath.Join(f.project, "docs", "a.md"), "# A\n")
	writeFile(t, filepath.Join(f.project, "AGENTS.md"), "# Agents\n")
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "team", Alias: "handbook"}}, AddOptions{}))
	lockPath := filepath.Join(f.project, project.DirName, project.LockName)
	lockBefore := readFile(t, lockPath)

	r := f.must(w.Add(bg, []project.PackageSpec{{Source: "./docs/"}, {Source: "AGENTS.md"}}, AddOptions{}))
	if got := actions(r); got != "agents:linked docs:linked" {
		t.Fatalf("add = %s", got)
	}
	if got := readFile(t, lockPath); got != lockBefore {
		t.Fatalf("the lock changed on adding dir sources:\n%s", got)
	}
	m, err := w.proj.ReadManifest()
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := m.Spec("docs"); s.Kind != project.KindDir || s.Source != "docs" {
		t.Fatalf("docs spec = %+v", s)
	}
	if s, _ := m.Spec("handbook"); s.Kind != "" {
		t.Fatalf("a git spec got kind %q", s.Kind)
	}
	for _, a := range []string{"docs", "agents"} {
		if exists(w.pkgDir(a)) || exists(w.statePath(a)) {
			t.Fatalf("%s was copied into packages/", a)
		}
	}
	list, err := w.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list {
		wantKind := project.KindDir
		if p.Alias == "handbook" {
			wantKind = project.KindGit
		}
		if p.Kind != wantKind || !p.Installed || p.Locked != (p.Alias == "handbook") {
			t.Errorf("list: %+v", p)
		}
	}

	r = f.must(w.Install(bg, InstallOptions{Frozen: true}))
	if got := actions(r); got != "handbook:unchanged" {
		t.Fatalf("install --frozen = %s", got)
	}
	r = f.must(w.Install(bg, InstallOptions{}))
	if got := actions(r); got != "handbook:unchanged" {
		t.Fatalf("install = %s", got)
	}
	r = f.must(w.Update(bg, nil, UpdateOptions{}))
	if got := actions(r); got != "handbook:unchanged" {
		t.Fatalf("update = %s", got)
	}
	if _, err := w.Update(bg, []string{"docs"}, UpdateOptions{}); err != nil {
		t.Fatalf("update docs: %v", err)
	}
	if ch, err := outdatedOf(w); err != nil || len(ch) != 0 {
		t.Fatalf("outdated = %v, %v", ch, err)
	}
	if v, err := w.Verify(); err != nil || len(v) != 1 || !v[0].OK {
		t.Fatalf("verify = %+v, %v", v, err)
	}
	writeFile(t, filepath.Join(f.project, "docs", "a.md"), "# A, edited\n")
	if st, err := w.Status(); err != nil || len(st) != 0 {
		t.Fatalf("status = %+v, %v", st, err)
	}
	if got := readFile(t, lockPath); got != lockBefore {
		t.Fatalf("the lock changed:\n%s", got)
	}

	r = f.must(w.Remove(bg, []string{"docs"}, RemoveOptions{}))
	if got := actions(r); got != "docs:removed" {
		t.Fatalf("remove = %s", got)
	}
	r = f.must(w.Remove(bg, []string{"agents"}, RemoveOptions{Force: true}))
	if got := actions(r); got != "agents:removed" {
		t.Fatalf("remove --force = %s", got)
	}
	if got := readFile(t, filepath.Join(f.project, "docs", "a.md")); got != "# A, edited\n" {
		t.Fatalf("docs/a.md after remove = %q", got)
	}
	if got := readFile(t, filepath.Join(f.project, "AGENTS.md")); got != "# Agents\n" {
		t.Fatalf("AGENTS.md after remove = %q", got)
	}
	m, _ = w.proj.ReadManifest()
	if hasSpec(m, "docs") || hasSpec(m, "agents") || !hasSpec(m, "handbook") {
		t.Fatalf("manifest after remove: %+v", m.Packages)
	}
	if got := readFile(t, lockPath); got != lockBefore {
		t.Fatalf("the lock changed on remove:\n%s", got)
	}
}

func TestDirSourceProblems(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(f.project)
	_, err := w.Add(bg, []project.PackageSpec{{Source: "nowhere", Kind: project.KindDir}}, AddOptions{})
	if err == nil || !strings.Contains(err.Error(), `"nowhere" does not exist`) {
		t.Fatalf("add of a missing dir: %v", err)
	}
	_, err = w.Add(bg, []project.PackageSpec{{Source: "nowhere"}}, AddOptions{})
	if err == nil || !strings.Contains(err.Error(), `"nowhere" does not exist`) {
		t.Fatalf("add of a missing path: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.project, project.DirName, project.LockName)); err == nil {
		t.Fatal("a lock was written")
	}

	outside := filepath.Join(f.tmp, "notes")
	writeFile(t, filepath.Join(outside, "n.md"), "# N\n")
	r := f.must(w.Add(bg, []project.PackageSpec{{Source: outside, Alias: "notes"}}, AddOptions{}))
	if got := actions(r); got != "notes:linked" {
		t.Fatalf("add = %s", got)
	}
	// Outside the project: the user's own, kept out of the committed
	// manifest (issue 25).
	if !strings.Contains(f.log.String(), "recorded as your own source in .context/context.local.json") {
		t.Fatalf("no note for a path outside the project; log:\n%s", f.log)
	}
	if committed := readFile(t, filepath.Join(f.project, project.DirName, project.ManifestName)); strings.Contains(committed, "notes") {
		t.Fatalf("the committed manifest names the outside source:\n%s", committed)
	}
	if local := readFile(t, filepath.Join(f.project, project.DirName, project.LocalName)); !strings.Contains(local, outside) {
		t.Fatalf("context.local.json:\n%s", local)
	}
	if m := w.Manifest(); !m.Packages[len(m.Packages)-1].Local {
		t.Fatalf("notes = %+v; want a local spec", m.Packages)
	}
	f.log.Reset()
	r = f.must(w.Install(bg, InstallOptions{}))
	if r.Partial() {
		t.Fatalf("install of a project with a local source: %+v", r.Packages)
	}
	if err := os.RemoveAll(outside); err != nil {
		t.Fatal(err)
	}
	f.log.Reset()
	f.must(w.Install(bg, InstallOptions{}))
	if !strings.Contains(f.log.String(), "does not exist") {
		t.Fatalf("no warning for a missing dir source; log:\n%s", f.log)
	}
}

// A package locked as git and then changed to a dir source in the manifest
// (by hand, or a teammate's commit): install drops the old copy under
// packages/ and its lock entry, and --frozen calls it a disagreement.
func TestDirSourceReplacesLockedPackage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFile(t, filepath.Join(f.project, "handbook", "h.md"), "# Mine\n")
	w := f.open(f.project)
	f.must(w.Add(bg, []project.PackageSpec{{Source: f.upstream, Path: "team", Alias: "handbook"}}, AddOptions{}))
	w.Close()
	m, err := project.ParseManifest("m", []byte(readFile(t, filepath.Join(f.project, project.DirName, project.ManifestName))))
	if err != nil {
		t.Fatal(err)
	}
	m.Packages[0] = project.PackageSpec{Alias: "handbook", Kind: project.KindDir, Source: "handbook"}
	data, _ := project.MarshalManifest(m)
	writeFile(t, filepath.Join(f.project, project.DirName, project.ManifestName), string(data))
	w = f.open(f.project)
	if _, err := w.Install(bg, InstallOptions{Frozen: true}); err == nil || !strings.Contains(err.Error(), "handbook changed in the manifest") {
		t.Fatalf("install --frozen: %v", err)
	}
	r := f.must(w.Install(bg, InstallOptions{}))
	if got := actions(r); got != "handbook:removed" {
		t.Fatalf("install = %s", got)
	}
	if exists(w.pkgDir("handbook")) || len(readLock(t, f.project).Packages) != 0 {
		t.Fatal("the old package is still there")
	}
	if got := readFile(t, filepath.Join(f.project, "handbook", "h.md")); got != "# Mine\n" {
		t.Fatalf("the dir source's file = %q", got)
	}
	if m := w.Manifest(); !hasSpec(&m, "handbook") {
		t.Fatal("install dropped the dir spec")
	}
}
