package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/lockfile"
)

func TestInstalled(t *testing.T) {
	p, err := At(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// a and b were installed by ctx (their state files); planted's folder
	// came some other way (a committed packages/, no state): not
	// installed here, so not indexed or served (mcppkg21).
	for _, a := range []string{"b", "a", "planted"} {
		if err := os.MkdirAll(p.PackageDir(a), 0o755); err != nil {
			t.Fatal(err)
		}
		if a == "planted" {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p.StatePath(a)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p.StatePath(a), []byte(`{"withheld":null,"files":[]}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := lockfile.Entry{Source: "s", Path: "docs", Ref: "main", Rev: strings.Repeat("a", 40)}
	l := &lockfile.Lock{Version: 1, Packages: map[string]lockfile.Entry{"a": e, "b": e, "gone": e, "planted": e}}
	// Dir sources: a folder, a file, one that is missing, one whose alias
	// is also locked (the lock wins), and a git spec (not live).
	if err := os.MkdirAll(filepath.Join(p.Root(), "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.Root(), "AGENTS.md"), []byte("# Agents\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &Manifest{Packages: []PackageSpec{
		{Alias: "project-docs", Kind: KindDir, Source: "./docs"},
		{Alias: "agents", Kind: KindDir, Source: "AGENTS.md"},
		{Alias: "gone-dir", Kind: KindDir, Source: "nowhere"},
		{Alias: "a", Kind: KindDir, Source: "docs"},
		{Alias: "b", Source: "s"},
	}}
	got := p.Installed(m, l)
	// A locked package's State is its state file's stamp (size and mtime);
	// a dir source has none.
	for i, pkg := range got {
		if pkg.Kind != KindDir {
			fi, err := os.Lstat(p.StatePath(pkg.Alias))
			if err != nil || pkg.State != fmt.Sprintf("%d %d", fi.Size(), fi.ModTime().UnixNano()) {
				t.Errorf("%s: State %q, want the state file's stamp (%v)", pkg.Alias, pkg.State, err)
			}
		}
		got[i].State = ""
	}
	want := []Package{
		{Alias: "a", Kind: KindGit, Source: "s", Path: "docs", Ref: "main", Rev: e.Rev, Dir: p.PackageDir("a")},
		{Alias: "agents", Kind: KindDir, Source: "AGENTS.md", Dir: p.Root(), Only: "AGENTS.md", MaxFiles: DefaultDirMaxFiles, MaxBytes: DefaultDirMaxBytes, Project: p.Root()},
		{Alias: "b", Kind: KindGit, Source: "s", Path: "docs", Ref: "main", Rev: e.Rev, Dir: p.PackageDir("b")},
		{Alias: "project-docs", Kind: KindDir, Source: "./docs", Dir: filepath.Join(p.Root(), "docs"), MaxFiles: DefaultDirMaxFiles, MaxBytes: DefaultDirMaxBytes, Project: p.Root()},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Installed = %+v, want %+v", got, want)
	}
	if p.IsInstalled("gone") || !p.IsInstalled("a") {
		t.Error("IsInstalled disagrees with Installed")
	}
	if p.InstalledHere("planted") || p.InstalledHere("gone") || !p.InstalledHere("a") {
		t.Error("InstalledHere disagrees with the state files")
	}
}

// A committed dir source may only lead inside the project (after every
// symbolic link); a local one may lead anywhere but a filesystem root or
// the home folder. A refused one is neither in Live nor in Installed, and
// Refused names its entry.
func TestContainment(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	secret := filepath.Join(base, "secret")
	home := filepath.Join(base, "home")
	for _, d := range []string{filepath.Join(root, DirName), filepath.Join(root, "docs"), filepath.Join(root, "notes"), secret, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"rootlink": "/", "homelink": home, "outlink": secret, "inlink": "notes"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	manifest := `{
  "packages": [
    {"alias": "docs", "kind": "dir", "source": "docs"},
    {"alias": "up", "kind": "dir", "source": "../secret"},
    {"alias": "abs", "kind": "dir", "source": "` + secret + `"},
    {"alias": "out", "kind": "dir", "source": "outlink"},
    {"alias": "in", "kind": "dir", "source": "inlink"}
  ]
}
`
	local := `{"packages": [
  {"alias": "mine", "kind": "dir", "source": "../secret"},
  {"alias": "slash", "kind": "dir", "source": "rootlink"},
  {"alias": "home", "kind": "dir", "source": "homelink"}
]}
`
	if err := os.WriteFile(filepath.Join(root, DirName, ManifestName), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, DirName, LocalName), []byte(local), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _ := At(root)
	p = p.WithHome(home)
	m, err := p.ReadManifest()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pkg := range p.Installed(m, &lockfile.Lock{}) {
		got = append(got, pkg.Alias+"="+pkg.Dir)
	}
	want := []string{"docs=" + filepath.Join(root, "docs"), "in=" + filepath.Join(root, "notes"), "mine=" + secret}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Installed = %q, want %q", got, want)
	}
	refused := map[string]string{}
	for _, e := range p.Refused(m) {
		refused[e.Alias] = e.Error()
	}
	for alias, words := range map[string][]string{
		"up":    {".context/context.config.json:4:", `package "up"`, "outside the project", "ctx remove up", LocalName},
		"abs":   {".context/context.config.json:5:", "outside the project"},
		"out":   {".context/context.config.json:6:", "outside the project", "leads to"},
		"slash": {".context/context.local.json", "filesystem root"},
		"home":  {"home folder"},
	} {
		msg, ok := refused[alias]
		if !ok {
			t.Errorf("%s not refused", alias)
			continue
		}
		for _, w := range words {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q does not say %q", alias, msg, w)
			}
		}
	}
	if len(refused) != 5 {
		t.Errorf("refused %v, want 5", refused)
	}
}

// The user's own sources are read from context.local.json, marked Local,
// never written to the committed manifest; an alias in both files is an
// error naming both.
func TestLocalManifest(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(root, DirName, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(ManifestName, `{"packages": [{"alias": "a", "kind": "dir", "source": "docs"}]}`)
	write(LocalName, `{"packages": [{"alias": "notes", "kind": "dir", "source": "/somewhere/notes"}]}`)
	p, _ := At(root)
	m, err := p.ReadManifest()
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := m.Spec("notes"); !ok || !s.Local {
		t.Fatalf("notes = %+v, %v; want a local spec", s, ok)
	}
	if s, _ := m.Spec("a"); s.Local {
		t.Error("a committed spec is marked local")
	}
	committed, _ := MarshalManifest(m)
	own, _ := MarshalLocal(m)
	if strings.Contains(string(committed), "notes") || !strings.Contains(string(own), "/somewhere/notes") || strings.Contains(string(own), `"a"`) {
		t.Errorf("committed:\n%s\nlocal:\n%s", committed, own)
	}
	if !strings.Contains(Gitignore, "/"+LocalName) {
		t.Error(".gitignore does not list " + LocalName)
	}
	write(LocalName, `{"packages": [{"alias": "a", "kind": "dir", "source": "/x"}]}`)
	if _, err := p.ReadManifest(); err == nil || !strings.Contains(err.Error(), ManifestName) || !strings.Contains(err.Error(), LocalName) {
		t.Errorf("alias in both files: err = %v, want one naming both files", err)
	}
	write(LocalName, `{"packages": [{"alias": "b", "kind": "dir", "source": "/x", "bogus": 1}]}`)
	if _, err := p.ReadManifest(); err == nil || !strings.Contains(err.Error(), LocalName+":1:") {
		t.Errorf("bad local file: err = %v, want its file:line", err)
	}
}

func TestReadMissing(t *testing.T) {
	p, err := At(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); !errors.Is(err, ErrNoProject) || !strings.Contains(err.Error(), "ctx init") {
		t.Errorf("Check = %v, want ErrNoProject saying to run ctx init", err)
	}
	if _, err := p.ReadManifest(); !errors.Is(err, ErrNoProject) {
		t.Errorf("ReadManifest = %v, want ErrNoProject", err)
	}
	if _, err := p.ReadLock(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadLock = %v, want fs.ErrNotExist", err)
	}
	if err := os.MkdirAll(p.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.Dir(), LockName), []byte("{\n  \"version\": 1,\n  \"packages\": 3\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := p.ReadLock(); err == nil || !strings.Contains(err.Error(), ".context/context.lock:3:") {
		t.Errorf("ReadLock of a broken lock = %v, want .context/context.lock:3:…", err)
	}
}

// The containment rule covers git sources named by a local path or a
// file:// URL as it covers dir sources: a committed one that leads outside
// the project (after every symbolic link) is refused, naming its entry and
// the way out, unless context.local.json allows where it leads; one inside
// the project, a local one and a remote URL need nothing.
func TestGitContainment(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	secret := filepath.Join(base, "secret")
	for _, d := range []string{filepath.Join(root, DirName), filepath.Join(root, "vendor", "repo"), secret} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(secret, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	manifest := `{
  "packages": [
    {"alias": "up", "source": "../secret"},
    {"alias": "url", "source": "file://` + secret + `"},
    {"alias": "link", "source": "link"},
    {"alias": "in", "source": "vendor/repo"},
    {"alias": "inurl", "source": "file://` + filepath.Join(root, "vendor", "repo") + `"},
    {"alias": "remote", "source": "https://example.com/r.git"},
    {"alias": "web", "kind": "https", "source": "https://example.com/a.md"}
  ]
}
`
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(root, DirName, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(ManifestName, manifest)
	p, _ := At(root)
	m, err := p.ReadManifest()
	if err != nil {
		t.Fatal(err)
	}
	refused := map[string]string{}
	for _, e := range p.Refused(m) {
		refused[e.Alias] = e.Error()
		if !errors.Is(e, ErrOutside) {
			t.Errorf("%s: %v does not wrap ErrOutside", e.Alias, e)
		}
	}
	for alias, line := range map[string]string{"up": ":3:", "url": ":4:", "link": ":5:"} {
		msg, ok := refused[alias]
		if !ok {
			t.Errorf("%s not refused", alias)
			continue
		}
		for _, w := range []string{ManifestName + line, `package "` + alias + `"`, secret, "outside the project", "ctx install --allow-outside " + alias, LocalName} {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q does not say %q", alias, msg, w)
			}
		}
	}
	if len(refused) != 3 {
		t.Errorf("refused %v, want up, url and link", refused)
	}
	// Allowed: the path where they lead, resolved.
	real, _ := filepath.EvalSymlinks(secret)
	write(LocalName, `{"packages": [], "allow": ["`+real+`"]}`)
	if m, err = p.ReadManifest(); err != nil {
		t.Fatal(err)
	}
	if r := p.Refused(m); len(r) != 0 {
		t.Errorf("allowed, still refused: %v", r)
	}
	for _, s := range m.Packages[:3] {
		if got, err := p.CheckSource(m, s); err != nil || got != real {
			t.Errorf("CheckSource(%s) = %q, %v; want %q", s.Alias, got, err, real)
		}
	}
	own, _ := MarshalLocal(m)
	committed, _ := MarshalManifest(m)
	if !strings.Contains(string(own), real) || strings.Contains(string(committed), `"allow"`) {
		t.Errorf("committed:\n%s\nlocal:\n%s", committed, own)
	}
}

// context.local.json's allowances are checked as strictly as its
// packages: each a clean absolute path, listed once, with file:line.
func TestParseLocalAllow(t *testing.T) {
	for data, want := range map[string]string{
		`{"allow": ["relative/x"]}`:        "allow[0]",
		`{"allow": ["/a/../b"]}`:           "not a clean absolute path",
		`{"allow": ["/a", "/a"]}`:          "already allow[0]",
		`{"allow": "/a"}`:                  LocalName + ":1:",
		`{"allow": ["/a"], "other": true}`: "other",
	} {
		if _, err := ParseLocal(Rel(LocalName), []byte(data)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseLocal(%s) = %v, want an error saying %q", data, err, want)
		}
	}
	f, err := ParseLocal(Rel(LocalName), []byte(`{"allow": ["/a", "/b"]}`))
	if err != nil || !reflect.DeepEqual(f.Allow, []string{"/a", "/b"}) || f.Packages == nil {
		t.Errorf("ParseLocal = %+v, %v", f, err)
	}
}

// A git repository inside the project whose metadata leads outside it (a
// .git file's gitdir, a commondir file, objects/info/alternates, or a
// symbolic link in its git directory, all of which go-git follows) leads
// outside: refused as a committed repository outside is, and allowed the
// same way, by where it leads.
func TestGitMetadataContainment(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	secret := filepath.Join(base, "secret", ".git")
	mk := func(p, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk(filepath.Join(secret, "HEAD"), "ref: refs/heads/main\n")
	bare := func(name string) string {
		d := filepath.Join(root, name)
		mk(filepath.Join(d, "HEAD"), "ref: refs/heads/main\n")
		mk(filepath.Join(d, "objects", "keep"), "")
		mk(filepath.Join(d, "refs", "keep"), "")
		return d
	}
	bare("ok")
	mk(filepath.Join(root, "gitfile", ".git"), "gitdir: ../../secret/.git\n")
	mk(filepath.Join(root, "wt", ".git"), "gitdir: ../ok\n")
	mk(filepath.Join(bare("common"), "commondir"), "../../secret/.git\n")
	mk(filepath.Join(bare("alt"), "objects", "info", "alternates"), filepath.Join(secret, "objects")+"\n")
	if err := os.MkdirAll(filepath.Join(secret, "objects"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(secret, "HEAD"), filepath.Join(bare("link"), "refs", "main")); err != nil {
		t.Fatal(err)
	}
	// A link to a folder inside, holding a link outside.
	mk(filepath.Join(root, "hop", "x"), "")
	if err := os.Symlink(filepath.Join(secret, "objects"), filepath.Join(root, "hop", "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "hop"), filepath.Join(bare("indirect"), "objects", "pack")); err != nil {
		t.Fatal(err)
	}
	p, _ := At(root)
	m := &Manifest{}
	for name, bad := range map[string]bool{"ok": false, "wt": false, "gitfile": true, "common": true, "alt": true, "link": true, "indirect": true} {
		s := PackageSpec{Alias: name, Source: name}
		got, err := p.CheckSource(m, s)
		if !bad {
			if err != nil || got != filepath.Join(root, name) {
				t.Errorf("%s: CheckSource = %q, %v; want it inside", name, got, err)
			}
			continue
		}
		if !errors.Is(err, ErrOutside) || !strings.Contains(fmt.Sprint(err), "git metadata leads to") || !strings.Contains(fmt.Sprint(err), "secret") {
			t.Errorf("%s: CheckSource = %q, %v; want refused, naming where its git metadata leads", name, got, err)
			continue
		}
		s.Local = true
		leads, err := p.CheckSource(nil, s)
		if err != nil || !strings.Contains(leads, "secret") {
			t.Errorf("%s: where it leads = %q, %v", name, leads, err)
			continue
		}
		s.Local = false
		m.Allow = []string{leads}
		if _, err := p.CheckSource(m, s); err != nil {
			t.Errorf("%s: allowed %q, still refused: %v", name, leads, err)
		}
		m.Allow = nil
	}
}

// The manifest and context.local.json check their packages by one rule
// (checkPackages): a repeated alias and a spec its kind refuses are
// reported alike, at their packages[i] field.
func TestPackagesCheckedAlike(t *testing.T) {
	const pkgs = `"packages": [
  {"alias": "a", "source": "https://example.com/a.git"},
  {"alias": "a", "source": "https://example.com/b.git"},
  {"alias": "d", "kind": "dir", "source": "docs", "ref": "main"}
]`
	_, merr := ParseManifest(ManifestName, []byte(`{"version": 1, `+pkgs+`}`))
	_, lerr := ParseLocal(LocalName, []byte(`{`+pkgs+`}`))
	for _, want := range []string{`packages[1].alias: alias "a" is already used by packages[0]`, "packages[2].ref"} {
		for name, err := range map[string]error{"manifest": merr, "local": lerr} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want %q", name, err, want)
			}
		}
	}
}
