package gitengine

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// FileStatus tells a tracked file (even one a .gitignore lists: `git add
// -f`) from an untracked one, and says where it is in the work tree;
// outside a repository it is all zero.
func TestFileStatus(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	ctxDir := filepath.Join(proj, ".context")
	if err := os.MkdirAll(ctxDir, 0o755); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(ctxDir, "context.local.json")
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(local, "{}")

	// Not a repository.
	if st, err := FileStatus(proj, local); err != nil || st != (TrackStatus{}) {
		t.Fatalf("outside a repository: %+v %v", st, err)
	}

	gittest.MustGit(t, dir, "init", "-q", "-b", "main")
	// In a repository, not tracked; where it is in the work tree.
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := FileStatus(proj, local); err != nil || st != (TrackStatus{InRepository: true, Root: root, Rel: "proj/.context/context.local.json"}) {
		t.Fatalf("untracked: %+v %v", st, err)
	}
	// Ignored by the root's .gitignore: still not tracked.
	write(filepath.Join(dir, ".gitignore"), "context.local.json\n")
	if st, err := FileStatus(proj, local); err != nil || st.Tracked || !st.InRepository {
		t.Fatalf("ignored, untracked: %+v %v", st, err)
	}
	// Force-added and committed: tracked, whatever the ignore files say.
	gittest.MustGit(t, dir, "add", "-A")
	gittest.MustGit(t, dir, "add", "-f", "proj/.context/context.local.json")
	gittest.MustGit(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "c")
	st, err := FileStatus(proj, local)
	if err != nil || !st.Tracked || !st.InRepository {
		t.Fatalf("tracked: %+v %v", st, err)
	}
	// `git rm --cached`: untracked again.
	gittest.MustGit(t, dir, "rm", "-q", "--cached", "proj/.context/context.local.json")
	if st, err := FileStatus(proj, local); err != nil || st.Tracked {
		t.Fatalf("after git rm --cached: %+v %v", st, err)
	}
}

// indexHas reads the index as go-git's decoder does, in every version git
// writes (2; 3 with an intent-to-add entry's extended flags; 4's
// prefix-compressed names), with a name too long for the length field:
// every entry's name is found, and no other name.
func TestIndexHasAgreesWithGoGit(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := t.TempDir()
	gittest.MustGit(t, dir, "init", "-q", "-b", "main")
	var segs []string // a name longer than the 12-bit length field (4,095 bytes)
	for i := range 21 {
		segs = append(segs, fmt.Sprintf("s%02d", i)+strings.Repeat("m", 197))
	}
	long := strings.Join(segs, "/")
	files := map[string]string{
		"a0": "1", "a.b": "2", "a/b": "3", "a/b.c": "4", "b/zz/y": "5",
		".context/context.local.json": "{}", ".context/context.lock": "x",
	}
	gittest.WriteFiles(t, dir, files)
	gittest.MustGit(t, dir, "add", "-A")
	// The long name in the index only (no file system takes such a path).
	blob := strings.TrimSpace(gittest.MustGit(t, dir, "hash-object", "-w", "a0"))
	gittest.MustGit(t, dir, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+long)
	files[long] = "6"
	absent := []string{"", "a", "A", "a/", "a/c", "b", "b/zz", ".context", ".context/context.local", "zzz", long + "x"}
	for _, v := range []string{"2", "3", "4"} {
		switch v {
		case "2":
			gittest.MustGit(t, dir, "update-index", "--index-version", "2")
		case "3":
			gittest.WriteFiles(t, dir, map[string]string{"later.md": "7"})
			gittest.MustGit(t, dir, "add", "-N", "later.md") // an extended entry: version 3
			files["later.md"] = "7"
		case "4":
			gittest.MustGit(t, dir, "update-index", "--index-version", "4")
		}
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		if got := binary.BigEndian.Uint32(data[4:8]); fmt.Sprint(got) != v {
			t.Fatalf("index version %d, want %s", got, v)
		}
		var idx index.Index
		if err := index.NewDecoder(bytes.NewReader(data)).Decode(&idx); err != nil {
			t.Fatalf("v%s: go-git: %v", v, err)
		}
		if len(idx.Entries) != len(files) {
			t.Fatalf("v%s: go-git read %d entries", v, len(idx.Entries))
		}
		for _, e := range idx.Entries {
			if ok, err := indexHas(data, e.Name, 20); !ok || err != nil {
				t.Errorf("v%s: %.40s not found: %v", v, e.Name, err)
			}
		}
		for _, name := range absent {
			if ok, err := indexHas(data, name, 20); ok || err != nil {
				t.Errorf("v%s: %.40q found: %v", v, name, err)
			}
		}
	}
	for _, bad := range [][]byte{nil, []byte("DIRC"), []byte("DIRC\x00\x00\x00\x05\x00\x00\x00\x01"), []byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x01short")} {
		if _, err := indexHas(bad, "a", 20); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// A SHA-256 repository's index entries hold 32-byte object ids: a tracked
// file there is found, or FileStatus errs (this go-git opens no SHA-256
// repository), never misread as untracked.
func TestFileStatusSHA256(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := t.TempDir()
	if _, err := gittest.Git(dir, "init", "-q", "--object-format=sha256", "-b", "main"); err != nil {
		t.Skip("git without SHA-256 repositories:", err)
	}
	gittest.WriteFiles(t, dir, map[string]string{"a.md": "a", ".context/context.local.json": "{}", "z/z.md": "z"})
	gittest.MustGit(t, dir, "add", "-A")
	for name, want := range map[string]bool{".context/context.local.json": true, "a.md": true, "z/z.md": true, "b.md": false} {
		st, err := FileStatus(dir, filepath.Join(dir, filepath.FromSlash(name)))
		if err == nil && st.Tracked != want {
			t.Errorf("%s: %+v %v, want tracked %v", name, st, err, want)
		}
	}
}

// TrackedUnder lists what `git ls-files` lists under a folder (index
// versions 2 and 4), relative to it; a file is "" when tracked; outside a
// repository, nothing and no error.
func TestTrackedUnder(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := t.TempDir()
	if st, names, err := TrackedUnder(dir, dir); err != nil || st.InRepository || names != nil {
		t.Fatalf("outside a repository: %+v %v %v", st, names, err)
	}
	gittest.MustGit(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFiles(t, dir, map[string]string{"docs/a.md": "a", "docs/sub/b.md": "b", "docs-x/c.md": "c", "docs0.md": "d", "doc.md": "e", "docs/new.md": "n"})
	gittest.MustGit(t, dir, "add", "docs/a.md", "docs/sub/b.md", "docs-x/c.md", "docs0.md", "doc.md")
	for _, v := range []string{"2", "4"} {
		gittest.MustGit(t, dir, "update-index", "--index-version", v)
		for _, c := range []struct{ path, want string }{
			{"docs", "a.md,sub/b.md"}, {"docs/sub", "b.md"}, {"docs/a.md", ""}, {"docs/new.md", "-"}, {"nothing", "-"},
			{".", "doc.md,docs-x/c.md,docs/a.md,docs/sub/b.md,docs0.md"},
		} {
			st, names, err := TrackedUnder(dir, filepath.Join(dir, filepath.FromSlash(c.path)))
			got := strings.Join(names, ",")
			if names == nil {
				got = "-"
			}
			if err != nil || !st.InRepository || got != c.want || st.Tracked != (names != nil) {
				t.Errorf("index v%s, %s: %+v %q %v; want %q", v, c.path, st, got, err, c.want)
			}
			if ls := strings.TrimSpace(gittest.MustGit(t, dir, "ls-files", "--", c.path)); (ls == "") != (names == nil) {
				t.Errorf("index v%s, %s: git ls-files says %q", v, c.path, ls)
			}
		}
	}
}
