package gitengine

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

type rawEntry struct{ mode, name, hash string }

// storeTree stores a tree object built byte by byte, so it can hold entries
// `git mktree` refuses (names with slashes, "..", ".git").
func storeTree(t *testing.T, repo string, entries []rawEntry) string {
	t.Helper()
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	var buf bytes.Buffer
	for _, e := range entries {
		buf.WriteString(e.mode + " " + e.name + "\x00")
		h, err := hex.DecodeString(e.hash)
		if err != nil || len(h) != 20 {
			t.Fatalf("bad hash %q", e.hash)
		}
		buf.Write(h)
	}
	return storeObject(t, repo, "tree", buf.Bytes())
}

func storeBlob(t *testing.T, repo, content string) string {
	t.Helper()
	return storeObject(t, repo, "blob", []byte(content))
}

// storeObject writes a loose object into the bare repository repo, as `git
// hash-object -w --literally -t kind` does (no check of the content), in
// this process: the deep trees below take hundreds of them.
func storeObject(t *testing.T, repo, kind string, content []byte) string {
	t.Helper()
	raw := append([]byte(fmt.Sprintf("%s %d\x00", kind, len(content))), content...)
	sum := sha1.Sum(raw)
	id := hex.EncodeToString(sum[:])
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	if _, err := zw.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(repo, "objects", id[:2])
	if _, err := os.Stat(filepath.Join(dir, id[2:])); err == nil {
		return id // stored already
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id[2:]), z.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
	return id
}

// evilRepo builds a bare repository whose master holds every kind of entry
// a package must not write.
func evilRepo(t *testing.T, root string) (repo, commit string) {
	t.Helper()
	repo = filepath.Join(root, "evil.git")
	gittest.MustGit(t, root, "init", "-q", "--bare", "-b", "master", repo)
	readme := storeBlob(t, repo, "# fine\n")
	docsA := storeBlob(t, repo, "# a\n")
	docs := storeTree(t, repo, []rawEntry{
		{"100644", "a.md", docsA},
		{"120000", "inner", storeBlob(t, repo, "../../etc")},
		{"120000", "sneaky", storeBlob(t, repo, "a.md/../../x")},
		{"120000", "fine", storeBlob(t, repo, "../README.md")},
	})
	escape := storeTree(t, repo, []rawEntry{{"100644", "escape", storeBlob(t, repo, "escaped!\n")}})
	hooks := storeTree(t, repo, []rawEntry{{"100755", "post-checkout", storeBlob(t, repo, "#!/bin/sh\necho pwned\n")}})
	top := storeTree(t, repo, []rawEntry{
		{"100644", "README.md", readme},
		{"40000", "docs", docs},
		{"120000", "evil", storeBlob(t, repo, "/etc/passwd")},
		{"120000", "up", storeBlob(t, repo, "../outside")},
		{"120000", "ok", storeBlob(t, repo, "README.md")},
		{"160000", "sub", strings.Repeat("12", 20)},
		{"40000", ".git", hooks},
		{"40000", ".GIT", hooks},
		{"40000", "..", escape},
		{"100644", "../escape2", readme},
		{"100644", "a/../../escape3", readme},
	})
	commit, err := gittest.GitInput(repo, nil, "commit-tree", top, "-m", "evil")
	if err != nil {
		t.Fatal(err)
	}
	gittest.MustGit(t, repo, "update-ref", "refs/heads/master", commit)
	return repo, commit
}

func TestMaterializeUntrustedTree(t *testing.T) {
	t.Parallel()
	needGit(t)
	root := t.TempDir()
	repo, commit := evilRepo(t, root)
	s, err := gittest.Serve(root, gittest.ServeOptions{Memo: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for name, url := range map[string]string{"path": repo, "http": s.URL + "/evil.git"} {
		t.Run(name, func(t *testing.T) {
			e := New(Options{CacheDir: t.TempDir()})
			outer := t.TempDir()
			dest := filepath.Join(outer, "a", "b", "pkg")
			res, err := e.Materialize(context.Background(), FetchRequest{URL: url, Commit: commit}, dest)
			if err != nil {
				t.Fatal(err)
			}
			var files []string
			for _, f := range res.Files {
				files = append(files, f.Path)
			}
			if got, want := strings.Join(files, ","), "README.md,docs/a.md,docs/fine,ok"; got != want {
				t.Errorf("files %s, want %s", got, want)
			}
			skipped := map[string]string{}
			for _, s := range res.Skipped {
				skipped[s.Path] = s.Reason
			}
			for p, reason := range map[string]string{
				"evil":            "symlink leaves the package",
				"up":              "symlink leaves the package",
				"docs/inner":      "symlink leaves the package",
				"docs/sneaky":     "symlink leaves the package",
				"sub":             "submodule",
				".git":            "unsafe path",
				".GIT":            "unsafe path",
				"..":              "unsafe path",
				"../escape2":      "unsafe path",
				"a/../../escape3": "unsafe path",
			} {
				if skipped[p] != reason {
					t.Errorf("skipped[%q] = %q, want %q", p, skipped[p], reason)
				}
			}
			if len(skipped) != 10 {
				t.Errorf("skipped %v", res.Skipped)
			}
			// Nothing outside dest: walk everything under the temp dir.
			err = filepath.WalkDir(outer, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if p == outer || p == filepath.Join(outer, "a") || p == filepath.Join(outer, "a", "b") {
					return nil
				}
				if rel, _ := filepath.Rel(dest, p); strings.HasPrefix(rel, "..") {
					t.Errorf("written outside dest: %s", p)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if tgt, err := os.Readlink(filepath.Join(dest, "docs", "fine")); err != nil || tgt != "../README.md" {
				t.Errorf("docs/fine -> %q, %v", tgt, err)
			}
		})
	}
}
