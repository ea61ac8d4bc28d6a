package project

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// trackedRepo is a git project: docs/a.md committed, docs/new.md not
// tracked (not ignored either), main shared with a remote
// (refs/remotes/origin/main), a local branch wip no remote has, a tag v1.
func trackedRepo(t *testing.T) (root, head string) {
	t.Helper()
	if !gittest.Available() {
		t.Skip("no git")
	}
	root = t.TempDir()
	gittest.MustGit(t, root, "init", "-q", "-b", "main")
	gittest.WriteFiles(t, root, map[string]string{"docs/a.md": "# A\n", "README.md": "# R\n"})
	gittest.MustGit(t, root, "add", "-A")
	gittest.MustGit(t, root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "c")
	head = strings.TrimSpace(gittest.MustGit(t, root, "rev-parse", "HEAD"))
	gittest.MustGit(t, root, "update-ref", "refs/remotes/origin/main", head)
	gittest.MustGit(t, root, "branch", "wip")
	gittest.MustGit(t, root, "tag", "v1")
	gittest.WriteFiles(t, root, map[string]string{"docs/new.md": "# New\n\nuntracked\n"})
	return root, head
}

// A committed dir source inside a git project serves what git tracks
// (Live's Package.Tracked); the user's own (Local) and an allowed one
// serve everything; `git add` changes the set and its key.
func TestCommittedDirSourceTracked(t *testing.T) {
	root, _ := trackedRepo(t)
	p, err := At(root)
	if err != nil {
		t.Fatal(err)
	}
	m := &Manifest{Packages: []PackageSpec{{Alias: "d", Kind: KindDir, Source: "./docs"}}}
	pkgs := p.Live(m)
	if len(pkgs) != 1 || pkgs[0].Tracked == nil {
		t.Fatalf("Live = %+v; want docs with its tracked files", pkgs)
	}
	tr := pkgs[0].Tracked
	if !tr.Has("a.md") || tr.Has("new.md") {
		t.Errorf("tracked a.md %v, new.md %v; want true, false", tr.Has("a.md"), tr.Has("new.md"))
	}
	key := tr.Key()

	local := &Manifest{Packages: []PackageSpec{{Alias: "d", Kind: KindDir, Source: "./docs", Local: true}}}
	if pkgs := p.Live(local); len(pkgs) != 1 || pkgs[0].Tracked != nil {
		t.Errorf("the user's own source: %+v; want all its files", pkgs)
	}
	want, ok := p.InsideAllowFor(m.Packages[0])
	if !ok || want != (InsideAllow{Path: "docs"}) {
		t.Fatalf("InsideAllowFor = %+v %v", want, ok)
	}
	allowed := &Manifest{Packages: m.Packages, AllowInside: []InsideAllow{want}}
	if pkgs := p.Live(allowed); len(pkgs) != 1 || pkgs[0].Tracked != nil {
		t.Errorf("allowed: %+v; want all its files", pkgs)
	}
	// An allowance of another path allows nothing here.
	other := &Manifest{Packages: m.Packages, AllowInside: []InsideAllow{{Path: "."}}}
	if pkgs := p.Live(other); len(pkgs) != 1 || pkgs[0].Tracked == nil {
		t.Errorf("an allowance of another path: %+v; want the tracked files only", pkgs)
	}

	gittest.MustGit(t, root, "add", "docs/new.md")
	pkgs = p.Live(m)
	if len(pkgs) != 1 || pkgs[0].Tracked == nil || !pkgs[0].Tracked.Has("new.md") || pkgs[0].Tracked.Key() == key {
		t.Errorf("after git add: %+v; want new.md tracked, and a new key", pkgs)
	}
}

// The project's own repository (or one inside it), named by a committed
// git source: a tag, a branch a remote has, HEAD on such a branch and a
// full commit id are shared; refs/stash, another refs/ name, a branch no
// remote has, HEAD on one, and an abbreviated commit id are refused
// (ErrUntracked) unless the user allowed that path and ref.
func TestCommittedGitSourceSharedRefs(t *testing.T) {
	root, head := trackedRepo(t)
	p, err := At(root)
	if err != nil {
		t.Fatal(err)
	}
	check := func(ref string, shared bool) {
		t.Helper()
		s := PackageSpec{Alias: "own", Kind: KindGit, Source: ".", Path: "docs", Ref: ref}
		_, err := p.CheckSource(&Manifest{}, s)
		if got := err == nil; got != shared {
			t.Errorf("ref %q: err = %v; want shared %v", ref, err, shared)
		}
		if !shared {
			if !errors.Is(err, ErrUntracked) || !strings.Contains(err.Error(), "ctx install --allow-outside own") {
				t.Errorf("ref %q: %v; want ErrUntracked and the way out", ref, err)
			}
			want, ok := p.InsideAllowFor(s)
			if !ok || want != (InsideAllow{Path: ".", Ref: ref}) {
				t.Errorf("ref %q: InsideAllowFor = %+v %v", ref, want, ok)
			}
			if _, err := p.CheckSource(&Manifest{AllowInside: []InsideAllow{want}}, s); err != nil {
				t.Errorf("ref %q allowed: %v", ref, err)
			}
			s.Local = true
			if _, err := p.CheckSource(&Manifest{}, s); err != nil {
				t.Errorf("ref %q, the user's own spec: %v", ref, err)
			}
		}
	}
	for _, c := range []struct {
		ref    string
		shared bool
	}{
		{"", true}, {"HEAD", true}, {"main", true}, {"refs/heads/main", true}, {"origin/main", true},
		{"refs/remotes/origin/main", true}, {"v1", true}, {"refs/tags/v1", true}, {head, true},
		{"refs/stash", false}, {"refs/notes/commits", false}, {"wip", false}, {"refs/heads/wip", false}, {head[:7], false},
	} {
		check(c.ref, c.shared)
	}
	gittest.MustGit(t, root, "checkout", "-q", "wip")
	check("", false)
	check("HEAD", false)
}

// A repository inside the project that the project's git does not track
// (an ignored private clone) is refused to a committed git source; one it
// tracks (a submodule's gitlink) is not.
func TestCommittedGitSourceNested(t *testing.T) {
	root, _ := trackedRepo(t)
	for _, dir := range []string{"vendor/private", "vendor/sub"} {
		d := filepath.Join(root, filepath.FromSlash(dir))
		gittest.WriteFiles(t, d, map[string]string{"p.md": "# P\n"})
		gittest.MustGit(t, d, "init", "-q", "-b", "main")
		gittest.MustGit(t, d, "add", "-A")
		gittest.MustGit(t, d, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "c")
		gittest.MustGit(t, d, "tag", "v1")
	}
	gittest.MustGit(t, root, "add", "vendor/sub") // a gitlink, as a submodule is
	p, err := At(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.CheckSource(&Manifest{}, PackageSpec{Alias: "pr", Kind: KindGit, Source: "./vendor/private", Ref: "v1"}); !errors.Is(err, ErrUntracked) {
		t.Errorf("an untracked nested repository: %v; want ErrUntracked", err)
	}
	if _, err := p.CheckSource(&Manifest{}, PackageSpec{Alias: "sub", Kind: KindGit, Source: "./vendor/sub", Ref: "v1"}); err != nil {
		t.Errorf("a tracked nested repository at a tag: %v", err)
	}
}

// Outside git nothing is held back: the manifest is the user's own.
func TestCommittedDirSourceNoGit(t *testing.T) {
	root := t.TempDir()
	gittest.WriteFiles(t, root, map[string]string{".gitignore": "config/\n", "config/p.yaml": "a: b\n", "docs/a.md": "# A\n"})
	p, err := At(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"./config", "./docs", "."} {
		s := PackageSpec{Alias: "c", Kind: KindDir, Source: src}
		if _, tr, err := p.checkSource(&Manifest{}, s); err != nil || tr != nil {
			t.Errorf("%s outside git: %v %v; want all of it", src, tr, err)
		}
		if _, ok := p.InsideAllowFor(s); ok {
			t.Errorf("%s outside git needs an allowance", src)
		}
	}
}

// context.local.json's "allowInside": read back as written; a path that
// is not a clean relative slash path inside the project, or listed twice,
// is an error naming the field.
func TestParseLocalAllowInside(t *testing.T) {
	m := &Manifest{AllowInside: []InsideAllow{{Path: "docs"}, {Path: ".", Ref: "refs/stash"}}}
	data, err := MarshalLocal(m)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParseLocal("local", data)
	if err != nil || len(f.AllowInside) != 2 || f.AllowInside[1] != m.AllowInside[1] {
		t.Fatalf("round trip: %+v %v\n%s", f, err, data)
	}
	for _, bad := range []string{`"/etc"`, `"../x"`, `"docs/"`, `"a/../b"`, `""`, `"a\\b"`} {
		_, err := ParseLocal("local", []byte(`{"packages": [], "allowInside": [{"path": `+bad+`}]}`))
		if err == nil || !strings.Contains(err.Error(), "allowInside[0]") {
			t.Errorf("path %s: %v; want an error naming allowInside[0]", bad, err)
		}
	}
	_, err = ParseLocal("local", []byte(`{"packages": [], "allowInside": [{"path": "docs"}, {"path": "docs"}]}`))
	if err == nil || !strings.Contains(err.Error(), "allowInside[1]") {
		t.Errorf("twice: %v", err)
	}
}
