package indexer

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/project"
)

// dirProject makes a project root with a .context folder, a docs/ folder,
// an AGENTS.md at the root, and hidden folders (.git, .context/packages)
// that hold markdown a dir source at the root must not index.
func dirProject(t *testing.T) (root, ctxDir string) {
	t.Helper()
	root = t.TempDir()
	ctxDir = filepath.Join(root, ".context")
	for name, body := range map[string]string{
		"docs/guide.md":                     "# Guide\n\nThe zanzibar procedure for deploys.\n",
		"docs/sub/deep.md":                  "# Deep\n\nNested quokka notes.\n",
		"docs/.drafts/secret.md":            "# Secret\n\nhiddenword\n",
		"AGENTS.md":                         "# Agents\n\nAgents follow the wombat rule.\n",
		"README.md":                         "# Readme\n\nNot part of the AGENTS.md source.\n",
		".git/notes.md":                     "# Git\n\nhiddenword\n",
		".context/packages/lib/lib.md":      "# Lib\n\nA locked package about pangolins.\n",
		".context/packages/lib/more/api.md": "# API\n\nhiddenword in a package is fine here.\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, ctxDir
}

func dirPackages(root string) []Package {
	return []Package{
		{Alias: "agents", Kind: project.KindDir, Source: "AGENTS.md", Dir: root, Only: "AGENTS.md"},
		{Alias: "lib", Kind: project.KindGit, Source: "https://git.example/lib.git", Rev: strings.Repeat("1", 40), Dir: filepath.Join(root, ".context", "packages", "lib")},
		{Alias: "project-docs", Kind: project.KindDir, Source: "./docs", Dir: filepath.Join(root, "docs")},
		{Alias: "whole", Kind: project.KindDir, Source: ".", Dir: root},
	}
}

// TestSyncDirSources indexes dir sources in place: a folder, a single file
// (only that file), and the project root (whose .context and .git are
// hidden, so not indexed); edits, new and deleted files are picked up by the
// next Sync.
func TestSyncDirSources(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, ctxDir := dirProject(t)
	pkgs := dirPackages(root)
	if _, err := Sync(ctx, ctxDir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(ctxDir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	paths := func(alias string) []string {
		t.Helper()
		docs, err := r.Documents(alias)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range docs {
			out = append(out, d.Path)
		}
		return out
	}
	for alias, want := range map[string][]string{
		"agents":       {"AGENTS.md"},
		"lib":          {"lib.md", "more/api.md"},
		"project-docs": {"guide.md", "sub/deep.md"},
		"whole":        {"AGENTS.md", "README.md", "docs/guide.md", "docs/sub/deep.md"},
	} {
		if got := paths(alias); !slices.Equal(got, want) {
			t.Errorf("Documents(%s) = %q, want %q", alias, got, want)
		}
	}
	hits, err := r.Search(ctx, Query{Text: "hiddenword", Packages: []string{"whole", "project-docs", "agents"}})
	if err != nil || len(hits) != 0 {
		t.Errorf("hidden files searchable through a dir source: %+v, %v", hits, err)
	}
	hits, err = r.Search(ctx, Query{Text: "quokka"})
	if err != nil || !anyPackage(hits, "project-docs") {
		t.Errorf("search quokka = %+v, %v; want a project-docs hit", hits, err)
	}

	// INDEX.md names a dir source's folder from its own (in the header),
	// its documents by their path in the package (as the tools take
	// them), and says it is live.
	md, err := os.ReadFile(filepath.Join(ctxDir, project.IndexName))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(`guide.md`)", "`../AGENTS.md` · live", "(`AGENTS.md`)", "`../docs/` · live from the project (no commit)", "(`lib.md`)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("INDEX.md lacks %q:\n%s", want, md)
		}
	}

	// Live edits: a changed, a new and a deleted file.
	if f, _ := r.Freshness(pkgs); !f.Fresh {
		t.Fatalf("freshness right after Sync = %+v", f)
	}
	if err := os.WriteFile(filepath.Join(root, "docs", "guide.md"), []byte("# Guide\n\nNow about the okapi route.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "docs", "new.md"), []byte("# New\n\nA narwhal appears.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "docs", "sub", "deep.md")); err != nil {
		t.Fatal(err)
	}
	if f, _ := r.Freshness(pkgs); f.Fresh || !slices.Contains(f.Stale, "project-docs") {
		t.Errorf("freshness after edits = %+v, want project-docs stale", f)
	}
	if _, err := Sync(ctx, ctxDir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	if got, want := paths("project-docs"), []string{"guide.md", "new.md"}; !slices.Equal(got, want) {
		t.Errorf("Documents(project-docs) after edits = %q, want %q", got, want)
	}
	for word, want := range map[string]bool{"okapi": true, "narwhal": true, "zanzibar": false, "quokka": false} {
		hits, err := r.Search(ctx, Query{Text: word, Packages: []string{"project-docs"}})
		if err != nil || (len(hits) > 0) != want {
			t.Errorf("search %s after edits = %+v, %v; want found %v", word, hits, err, want)
		}
	}
}

// TestDirIndexSurvivesMove: a project moved or cloned elsewhere has new
// absolute Dirs but the same packages; the index stays fresh when the files
// are the same (stat data aside: a copy has new inodes, so Freshness walks
// and Sync re-hashes, but nothing is re-parsed).
func TestDirIndexSurvivesMove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, ctxDir := dirProject(t)
	pkgs := dirPackages(root)
	if _, err := Sync(ctx, ctxDir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(root, moved); err != nil {
		t.Fatal(err)
	}
	ctxDir = filepath.Join(moved, ".context")
	pkgs = dirPackages(moved)
	r, err := OpenReader(ctxDir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if f, err := r.Freshness(pkgs); err != nil || !f.Fresh {
		t.Errorf("freshness after a move = %+v, %v; want fresh (rename keeps inodes)", f, err)
	}
	rep, err := Sync(ctx, ctxDir, pkgs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added+rep.Updated+rep.Removed != 0 || rep.Rebuilt {
		t.Errorf("Sync after a move = %+v, want nothing re-indexed", rep)
	}
}

// TestSearchKind filters a search by source kind (and by several
// packages).
func TestSearchKind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, ctxDir := dirProject(t)
	if _, err := Sync(ctx, ctxDir, dirPackages(root), Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(ctxDir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, c := range []struct {
		kinds, pkgs []string
		text        string
		want        []string // packages hit
	}{
		// Several packages: bleve's optimised disjunction once failed with
		// "field stat for bm25 not present *".
		{nil, []string{"lib", "agents"}, "pangolins wombat", []string{"agents", "lib"}},
		{[]string{"dir"}, nil, "pangolins wombat", []string{"agents", "whole"}},
		{[]string{"git"}, nil, "pangolins wombat", []string{"lib"}},
		{[]string{"git", "dir"}, nil, "pangolins", []string{"lib"}},
		{[]string{"dir"}, []string{"agents"}, "wombat", []string{"agents"}},
		{[]string{"dir"}, []string{"lib"}, "pangolins", nil},
		{[]string{"https"}, nil, "wombat", nil},
	} {
		hits, err := r.Search(ctx, Query{Text: c.text, Kinds: c.kinds, Packages: c.pkgs})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			if !slices.Contains(got, h.Package) {
				got = append(got, h.Package)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("search %q kinds %v packages %v hit %q, want %q", c.text, c.kinds, c.pkgs, got, c.want)
		}
	}
}

// TestWalkMarkdownStatFromWalk checks that a dir source's walk, which
// keeps the stat data the walk read for its bound on bytes, finds what a
// walk that stats every file after (a locked package's) finds: the same
// files with the same size, mtime, ctime, inode and kep.yaml beside.
func TestWalkMarkdownStatFromWalk(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, body := range map[string]string{
		"a.md": "# A\n", "sub/b.md": "# B\n\nmore\n", "sub/deep/c.rst": "C\n=\n", "keps/1/README.md": "# K\n",
		"keps/1/kep.yaml": "title: K\n", "notes.txt": "plain\n", "image.png": "\x89PNG",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a.md", filepath.Join(root, "link.md")); err != nil {
		t.Fatal(err)
	}
	warn := func(s string) { t.Error(s) }
	plain, err := walkMarkdown(root, markdown.WalkOptions{}, warn)
	if err != nil {
		t.Fatal(err)
	}
	bounded, err := walkMarkdown(root, markdown.WalkOptions{Gitignore: true, MaxBytes: 1 << 20}, warn)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) < 4 {
		t.Fatalf("found %d documents: %+v", len(plain), plain)
	}
	if !reflect.DeepEqual(plain, bounded) {
		t.Errorf("with the walk's stat data:\n%+v\nwith a stat each:\n%+v", bounded, plain)
	}
	for _, f := range bounded {
		if f.size == 0 || f.modNS == 0 || f.ino == 0 {
			t.Errorf("%s: no stat data: %+v", f.rel, f)
		}
		if f.rel == "keps/1/README.md" && f.kep == nil {
			t.Errorf("%s: the kep.yaml beside it is not stamped", f.rel)
		}
	}
}
