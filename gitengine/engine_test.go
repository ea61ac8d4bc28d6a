package gitengine

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// urls returns the fixture's repository under every way of reaching it.
func urls(t *testing.T, f *fixture) map[string]string {
	s := f.serve(gittest.ServeOptions{})
	return map[string]string{
		"path":     f.bare,
		"worktree": f.src,
		"file":     "file://" + filepath.ToSlash(f.bare),
		"http":     s.URL + "/repo.git",
	}
}

func TestListRefsAndResolve(t *testing.T) {
	t.Parallel()
	o, _ := isolate(t)
	f := newFixture(t)
	ctx := context.Background()
	tag := f.git("rev-parse", "v1")
	for name, url := range urls(t, f) {
		t.Run(name, func(t *testing.T) {
			e := New(o)
			rem, err := e.ListRefs(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			if rem.Head != "refs/heads/master" {
				t.Errorf("Head = %q, want refs/heads/master", rem.Head)
			}
			byName := map[string]Ref{}
			for i, r := range rem.Refs {
				byName[r.Name] = r
				if r.Name == "HEAD" {
					t.Errorf("HEAD listed among refs")
				}
				if i > 0 && rem.Refs[i-1].Name >= r.Name {
					t.Errorf("refs not sorted: %s before %s", rem.Refs[i-1].Name, r.Name)
				}
			}
			if got := byName["refs/tags/v1"]; got.Hash != tag || got.Peel != f.c1 {
				t.Errorf("refs/tags/v1 = %+v, want hash %s peel %s", got, tag, f.c1)
			}
			if got := byName["refs/tags/light"]; got.Hash != f.c1 || got.Peel != "" {
				t.Errorf("refs/tags/light = %+v", got)
			}
			if got := byName["refs/heads/master"]; got.Hash != f.c2 {
				t.Errorf("master = %+v, want %s", got, f.c2)
			}
			for _, tc := range []struct{ ref, wantRef, wantCommit string }{
				{"", "refs/heads/master", f.c2},
				{"master", "refs/heads/master", f.c2},
				{"dev", "refs/heads/dev", f.c1},
				{"v1", "refs/tags/v1", f.c1},
				{"refs/tags/v1", "refs/tags/v1", f.c1},
				{"light", "refs/tags/light", f.c1},
				{f.c1, "", f.c1},
				{f.c2[:10], "", f.c2},
				{strings.ToUpper(f.c2[:12]), "", f.c2},
			} {
				got, err := e.Resolve(ctx, url, tc.ref)
				if err != nil {
					t.Errorf("Resolve(%q): %v", tc.ref, err)
					continue
				}
				if got.Ref != tc.wantRef || got.Commit != tc.wantCommit {
					t.Errorf("Resolve(%q) = %+v, want {%s %s}", tc.ref, got, tc.wantRef, tc.wantCommit)
				}
			}
			for _, ref := range []string{"nope", "refs/heads/nope", "deadbeef"} {
				_, err := e.Resolve(ctx, url, ref)
				if KindOf(err) != KindRefNotFound {
					t.Errorf("Resolve(%q): err %v (kind %v), want ref not found", ref, err, KindOf(err))
				}
			}
			// A full commit id the repository lacks (a pinned commit a
			// force-push removed) is a gone commit, as a lock's is: a
			// local repository says so at resolve, a remote's fetch does.
			gone := strings.Repeat("d", 40)
			if got, err := e.Resolve(ctx, url, gone); err != nil {
				if KindOf(err) != KindCommitNotFound || strings.Contains(err.Error(), "ls-remote") {
					t.Errorf("Resolve(gone id): err %v (kind %v), want commit not found", err, KindOf(err))
				}
			} else if got.Commit != gone {
				t.Errorf("Resolve(gone id) = %+v", got)
			}
		})
	}
}

func TestMaterializeSubPath(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	const sub = "docs/guides/deep"
	wantTree := f.objectAt(f.c2, sub)
	for name, url := range urls(t, f) {
		t.Run(name, func(t *testing.T) {
			var warns []string
			e := New(Options{CacheDir: t.TempDir(), Warn: func(_, m string) { warns = append(warns, m) }})
			dest := filepath.Join(t.TempDir(), "pkg", "deep")
			res, err := e.Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Ref: "master", Path: sub + "/"}, dest)
			if err != nil {
				t.Fatal(err)
			}
			if res.Commit != f.c2 || res.TreeID != wantTree {
				t.Errorf("commit %s tree %s, want %s %s", res.Commit, res.TreeID, f.c2, wantTree)
			}
			if len(warns) != 0 {
				t.Errorf("warnings: %q", warns)
			}
			var got []string
			for _, file := range res.Files {
				got = append(got, file.Path)
				want := f.objectAt(f.c2, sub+"/"+file.Path)
				if file.BlobID != want {
					t.Errorf("%s: blob %s, want %s", file.Path, file.BlobID, want)
				}
				p := filepath.Join(dest, filepath.FromSlash(file.Path))
				fi, err := os.Lstat(p)
				if err != nil {
					t.Fatal(err)
				}
				switch file.Path {
				case "run.sh":
					if file.Mode != 0o755 || fi.Mode().Perm()&0o100 == 0 {
						t.Errorf("run.sh: mode %v, on disk %v; want executable", file.Mode, fi.Mode())
					}
				case "link.md":
					if file.Mode != fs.ModeSymlink|0o777 || fi.Mode()&fs.ModeSymlink == 0 {
						t.Errorf("link.md: mode %v, on disk %v; want symlink", file.Mode, fi.Mode())
					}
					if tgt, _ := os.Readlink(p); tgt != "a.md" {
						t.Errorf("link.md -> %q", tgt)
					}
				default:
					b, err := os.ReadFile(p)
					if err != nil {
						t.Fatal(err)
					}
					if HashBlob(b) != file.BlobID || int64(len(b)) != file.Size {
						t.Errorf("%s on disk: hash %s size %d, want %s %d", file.Path, HashBlob(b), len(b), file.BlobID, file.Size)
					}
				}
			}
			want := []string{"a.md", "link.md", "run.sh", "sub/b.md", "sub/c/d.txt"}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("files %v, want %v", got, want)
			}
			if b, _ := os.ReadFile(filepath.Join(dest, "a.md")); string(b) != "# A\n\nalpha, revised\n" {
				t.Errorf("a.md = %q", b)
			}
			if len(res.Skipped) != 0 {
				t.Errorf("skipped %v", res.Skipped)
			}
			if name == "http" && res.Bytes == 0 {
				t.Errorf("http fetch reported 0 bytes")
			}
			if name != "http" && res.Bytes != 0 {
				t.Errorf("local fetch reported %d bytes", res.Bytes)
			}
			// Nothing but dest was left beside it.
			entries, _ := os.ReadDir(filepath.Dir(dest))
			if len(entries) != 1 {
				t.Errorf("beside dest: %v", entries)
			}
			// dest exists now: a second write must refuse.
			if _, err := e.Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: sub}, dest); err == nil {
				t.Errorf("Materialize into an existing dest succeeded")
			}
		})
	}
}

func TestMaterializeWholeTreeAndTag(t *testing.T) {
	t.Parallel()
	o, _ := isolate(t)
	f := newFixture(t)
	url := urls(t, f)["http"]
	e := New(o)
	ctx := context.Background()
	r, err := e.Resolve(ctx, url, "v1")
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "all")
	res, err := e.Materialize(ctx, FetchRequest{URL: url, Commit: r.Commit, Ref: r.Ref, Path: "."}, dest)
	if err != nil {
		t.Fatal(err)
	}
	if want := f.git("rev-parse", "v1^{tree}"); res.TreeID != want {
		t.Errorf("tree %s, want %s", res.TreeID, want)
	}
	if n := strings.Count(f.git("ls-tree", "-r", "--name-only", "v1"), "\n") + 1; len(res.Files) != n {
		t.Errorf("%d files, want %d", len(res.Files), n)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "docs/guides/deep/a.md")); string(b) != "# A\n\nalpha\n" {
		t.Errorf("a.md at v1 = %q", b)
	}
}

func TestMaterializePinnedOldCommit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// c1 is a tip of dev; make a commit that is no tip at all.
	old := f.commit("third", map[string]string{"docs/guides/deep/a.md": "third\n"})
	f.commit("fourth", map[string]string{"docs/guides/deep/a.md": "fourth\n"})
	for name, url := range urls(t, f) {
		t.Run(name, func(t *testing.T) {
			e := New(Options{CacheDir: t.TempDir()})
			dest := filepath.Join(t.TempDir(), "p")
			res, err := e.Materialize(context.Background(), FetchRequest{URL: url, Commit: old, Path: "docs/guides/deep"}, dest)
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(dest, "a.md")); string(b) != "third\n" || res.Commit != old {
				t.Errorf("a.md = %q at %s", b, res.Commit)
			}
			// An abbreviated id that is no tip resolves once the commit is
			// in the cache (or, locally, in the repository).
			if r, err := e.Resolve(context.Background(), url, old[:12]); err != nil || r.Commit != old {
				t.Errorf("Resolve(%s) = %+v, %v; want %s", old[:12], r, err, old)
			}
		})
	}
}

func TestMaterializeMissing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	for name, url := range urls(t, f) {
		t.Run(name, func(t *testing.T) {
			e := New(Options{CacheDir: t.TempDir()})
			dest := filepath.Join(t.TempDir(), "p")
			_, err := e.Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: "docs/nope/deeper"}, dest)
			if KindOf(err) != KindPathNotFound {
				t.Fatalf("err %v, want path not found", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "docs/nope/deeper") || !strings.Contains(msg, f.c2) {
				t.Errorf("message does not name path and commit: %s", msg)
			}
			_, err = e.Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: "README.md"}, dest)
			if KindOf(err) != KindPathNotFound || !strings.Contains(err.Error(), "not a folder") {
				t.Errorf("file as sub-path: %v", err)
			}
			_, err = e.Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Path: "../etc"}, dest)
			if KindOf(err) != KindPathNotFound {
				t.Errorf("../etc: %v", err)
			}
			_, err = e.Materialize(ctx, FetchRequest{URL: url, Commit: strings.Repeat("ab", 20), Path: "docs"}, dest)
			if k := KindOf(err); k != KindCommitNotFound || strings.Contains(err.Error(), "ls-remote") {
				t.Errorf("unknown commit: kind %v, err %v; want commit not in the repository, no ls-remote advice", k, err)
			}
			if _, err := os.Lstat(dest); err == nil {
				t.Errorf("dest exists after failed Materialize")
			}
			entries, _ := os.ReadDir(filepath.Dir(dest))
			if len(entries) != 0 {
				t.Errorf("left behind: %v", entries)
			}
		})
	}
}

func TestNotFound(t *testing.T) {
	t.Parallel()
	o, _ := isolate(t)
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{})
	e := New(o)
	for _, url := range []string{s.URL + "/nope.git", filepath.Join(t.TempDir(), "nope")} {
		if err := e.CheckAccess(context.Background(), url); KindOf(err) != KindNotFound {
			t.Errorf("%s: %v (kind %v), want not found", url, err, KindOf(err))
		}
	}
}

func TestHashBlob(t *testing.T) {
	t.Parallel()
	needGit(t)
	for _, s := range []string{"", "hello\n", strings.Repeat("x", 100000)} {
		want, err := gittest.GitInput(t.TempDir(), []byte(s), "hash-object", "--stdin")
		if err != nil {
			t.Fatal(err)
		}
		if got := HashBlob([]byte(s)); got != want {
			t.Errorf("HashBlob(%d bytes) = %s, want %s", len(s), got, want)
		}
	}
}

// TestMaterializeHave: the files FetchRequest.Have says the caller has are
// listed Kept, neither written nor (over the network, with an empty cache)
// fetched; a link's target is still checked.
func TestMaterializeHave(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	const sub = "docs/guides/deep"
	have := map[string]fs.FileMode{"a.md": 0o644, "link.md": fs.ModeSymlink | 0o777, "sub/c/d.txt": 0o644, "run.sh": 0o644 /* wrong mode: written */}
	for name, url := range urls(t, f) {
		t.Run(name, func(t *testing.T) {
			cache := t.TempDir()
			e := New(Options{CacheDir: cache})
			dest := filepath.Join(t.TempDir(), "pkg")
			asked := map[string]bool{}
			req := FetchRequest{URL: url, Commit: f.c2, Ref: "master", Path: sub, Have: func(p, blob string, mode fs.FileMode) bool {
				asked[p] = true
				if blob != f.objectAt(f.c2, sub+"/"+p) {
					t.Errorf("%s: asked with blob %s", p, blob)
				}
				m, ok := have[p]
				return ok && m == mode
			}}
			res, err := e.Materialize(ctx, req, dest)
			if err != nil {
				t.Fatal(err)
			}
			var kept, written []string
			for _, file := range res.Files {
				if !asked[file.Path] {
					t.Errorf("Have not asked about %s", file.Path)
				}
				_, err := os.Lstat(filepath.Join(dest, filepath.FromSlash(file.Path)))
				if file.Kept {
					kept = append(kept, file.Path)
					if err == nil {
						t.Errorf("%s is Kept but was written", file.Path)
					}
				} else {
					written = append(written, file.Path)
					if err != nil {
						t.Errorf("%s: %v", file.Path, err)
					}
				}
			}
			if strings.Join(kept, ",") != "a.md,link.md,sub/c/d.txt" || strings.Join(written, ",") != "run.sh,sub/b.md" {
				t.Errorf("kept %v, written %v", kept, written)
			}
			if _, err := os.Lstat(filepath.Join(dest, "sub", "c")); err == nil {
				t.Error("a folder holding only kept files was made")
			}
			if name == "http" {
				// The kept blobs were not fetched: without Have they are.
				res2, err := New(Options{CacheDir: cache}).Materialize(ctx, FetchRequest{URL: url, Commit: f.c2, Ref: "master", Path: sub}, filepath.Join(t.TempDir(), "all"))
				if err != nil || res2.Bytes == 0 {
					t.Errorf("second fetch: %v, %d bytes (want the kept blobs fetched now)", err, res2.Bytes)
				}
			}
		})
	}
}
