package gitengine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/internal/treehash"
)

// hostileNamesRepo builds a bare repository whose tree holds names that no
// file system (or the lock's dirhash) can take: a newline, a component over
// 255 bytes, and a folder chain 200 levels deep whose path is far over
// PATH_MAX; beside them an ordinary file and a name that is not UTF-8,
// which must be installed.
func hostileNamesRepo(t *testing.T, root string) (repo, commit string) {
	t.Helper()
	repo = filepath.Join(root, "names.git")
	gittest.MustGit(t, root, "init", "-q", "--bare", "-b", "master", repo)
	blob := storeBlob(t, repo, "# doc\n")
	deep := storeTree(t, repo, []rawEntry{{"100644", "bottom.md", blob}})
	for i := 0; i < 200; i++ {
		deep = storeTree(t, repo, []rawEntry{{"40000", "level-of-a-deep-tree-" + strings.Repeat("x", 10), deep}})
	}
	top := storeTree(t, repo, []rawEntry{
		{"100644", "ok.md", blob},
		{"100644", "caf\xe9.md", blob},
		{"100644", "line\nbreak.md", blob},
		{"100644", strings.Repeat("n", 300) + ".md", blob},
		{"40000", "deep", deep},
	})
	commit, err := gittest.GitInput(repo, nil, "commit-tree", top, "-m", "names")
	if err != nil {
		t.Fatal(err)
	}
	gittest.MustGit(t, repo, "update-ref", "refs/heads/master", commit)
	return repo, commit
}

func TestMaterializeSkipsUnwritableNames(t *testing.T) {
	t.Parallel()
	needGit(t)
	root := t.TempDir()
	repo, commit := hostileNamesRepo(t, root)
	s, err := gittest.Serve(root, gittest.ServeOptions{Memo: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for name, url := range map[string]string{"file": "file://" + repo, "http": s.URL + "/names.git"} {
		t.Run(name, func(t *testing.T) {
			var warnings []string
			e := New(Options{CacheDir: t.TempDir(), Warn: func(_, m string) { warnings = append(warnings, m) }})
			dest := filepath.Join(t.TempDir(), "pkg")
			res, err := e.Materialize(context.Background(), FetchRequest{URL: url, Commit: commit}, dest)
			if err != nil {
				t.Fatalf("Materialize: %v", err)
			}
			var files []string
			for _, f := range res.Files {
				files = append(files, f.Path)
			}
			if got, want := strings.Join(files, ","), "caf\xe9.md,ok.md"; got != want {
				t.Errorf("files %q, want %q", got, want)
			}
			reasons := map[string]string{}
			for _, s := range res.Skipped {
				reasons[s.Path] = s.Reason
				if strings.ContainsAny(s.Path, "\n") {
					t.Errorf("skipped path not escaped: %q", s.Path)
				}
			}
			if r := reasons[`"line\nbreak.md"`]; !strings.Contains(r, "newline") {
				t.Errorf("newline name: reason %q (skipped %v)", r, res.Skipped)
			}
			if r := reasons[strings.Repeat("n", 300)+".md"]; !strings.Contains(r, "255") {
				t.Errorf("long name: reason %q (skipped %v)", r, res.Skipped)
			}
			var deepReason string
			for p, r := range reasons {
				if strings.HasPrefix(p, "deep/") {
					deepReason = r
				}
			}
			if !strings.Contains(deepReason, "path too long") {
				t.Errorf("deep tree: reason %q (skipped %v)", deepReason, res.Skipped)
			}
			if len(res.Skipped) != 3 {
				t.Errorf("skipped %d entries, want 3: %v", len(res.Skipped), res.Skipped)
			}
			if _, err := os.Lstat(filepath.Join(dest, "caf\xe9.md")); err != nil {
				t.Errorf("non-UTF-8 name not written: %v", err)
			}
			if _, err := treehash.HashDir(dest); err != nil {
				t.Errorf("the package does not hash: %v", err)
			}
		})
	}
}

func TestMaterializeSkipsLargeFiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.serve(gittest.ServeOptions{})
	for name, url := range map[string]string{"file": "file://" + f.bare, "http": s.URL + "/repo.git"} {
		t.Run(name, func(t *testing.T) {
			// run.sh is 18 bytes, a.md 20: a limit of 19 keeps run.sh only.
			e := New(Options{CacheDir: t.TempDir(), MaxFileSize: 19})
			dest := filepath.Join(t.TempDir(), "pkg")
			res, err := e.Materialize(context.Background(), FetchRequest{URL: url, Commit: f.c2, Path: "docs/guides/deep"}, dest)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range res.Skipped {
				got = append(got, s.Path+": "+s.Reason)
			}
			want := "a.md: file of 20 bytes is over the size limit of 19 bytes (CTX_MAX_FILE_SIZE)"
			if len(got) != 1 || got[0] != want {
				t.Errorf("skipped %q, want %q", got, want)
			}
			if _, err := os.Lstat(filepath.Join(dest, "a.md")); err == nil {
				t.Errorf("a.md written")
			}
			if b, err := os.ReadFile(filepath.Join(dest, "run.sh")); err != nil || string(b) != "#!/bin/sh\necho hi\n" {
				t.Errorf("run.sh: %q, %v", b, err)
			}
		})
	}
}
