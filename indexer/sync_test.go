package indexer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeFiles creates files under <contextDir>/packages/<alias>/.
func writeFiles(t *testing.T, contextDir, alias string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(contextDir, "packages", alias, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func testPackages() []Package {
	return []Package{
		{Alias: "guides", Source: "https://git.example/guides.git", Path: "docs", Ref: "main", Rev: strings.Repeat("1", 40)},
		{Alias: "ops", Source: "https://git.example/ops.git", Rev: strings.Repeat("2", 40)},
	}
}

func setupCorpus(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "guides", map[string]string{
		"deploy.md": "---\ntitle: Deploying services\nsummary: How to roll out a service to production.\ntags: [ops, release]\n---\n" +
			"# Deploying\n\nWe deploy with the pipeline. " + strings.Repeat("Every rollout is canaried first. ", 8) + "\n\n" +
			"## Rollback\n\nTo roll back a bad release, revert the commit and redeploy. " + strings.Repeat("Rollbacks are cheap. ", 8) + "\n",
		"style/go.md":   "# Go style\n\nErrors are wrapped with %w. " + strings.Repeat("Keep packages small. ", 10) + "\n",
		"notes.html":    "not a document: ignored",
		"image.md":      "PNG\x00\x00binary",
		"sub/empty.mdx": "",
	})
	writeFiles(t, dir, "ops", map[string]string{
		"oncall.markdown": "On-call rota\n============\n\nTags: ops, pager\n\nThe pager rotates weekly. " + strings.Repeat("Escalate after fifteen minutes. ", 6) + "\n",
		"broken.md":       "---\ntitle: [unclosed\n---\n# Broken front matter\n\nThe body of the broken file is still searchable: flamingo.\n",
	})
	return dir
}

func TestSyncSearchDocuments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	var warns []string
	rep, err := Sync(ctx, dir, testPackages(), Options{Warn: func(s string) { warns = append(warns, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != 6 || rep.Updated != 0 || rep.Removed != 0 || !rep.Rebuilt || rep.Chunks == 0 {
		t.Errorf("report = %+v, want 6 added (5 markdown files + 1 skipped binary) and a rebuild", rep)
	}
	joined := strings.Join(warns, "\n")
	for _, w := range []string{"packages/guides/image.md: binary content", "packages/ops/broken.md:2: invalid YAML front matter"} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings %q lack %q", joined, w)
		}
	}

	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	hits, err := r.Search(ctx, Query{Text: "how do I roll back a release"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Path != "deploy.md" || hits[0].Package != "guides" {
		t.Fatalf("hits = %+v, want guides/deploy.md first", hits)
	}
	h := hits[0]
	if h.Heading != "Deploying > Rollback" || h.Lines != [2]int{10, 12} {
		t.Errorf("hit = %q lines %v, want Deploying > Rollback 10-12", h.Heading, h.Lines)
	}
	if !strings.Contains(h.Snippet, "**roll**") || !strings.Contains(h.Snippet, "**release**") || h.Score <= 0 {
		t.Errorf("snippet %q (score %v): want roll and release marked", h.Snippet, h.Score)
	}

	// Broken front matter: body still indexed.
	if hits, err := r.Search(ctx, Query{Text: "flamingo"}); err != nil || len(hits) != 1 || hits[0].Path != "broken.md" {
		t.Errorf("flamingo: %+v %v", hits, err)
	}
	// Filters.
	if hits, _ := r.Search(ctx, Query{Text: "ops pager rollout", Packages: []string{"ops"}}); len(hits) == 0 || anyPackage(hits, "guides") {
		t.Errorf("package filter: %+v", hits)
	}
	if hits, _ := r.Search(ctx, Query{Text: "rollout pager", Tags: []string{"PAGER"}}); len(hits) != 1 || hits[0].Path != "oncall.markdown" {
		t.Errorf("tag filter (inline Tags: line, case-insensitive): %+v", hits)
	}
	if hits, _ := r.Search(ctx, Query{Text: "rollout pager", Tags: []string{"release"}, Packages: []string{"ops"}}); len(hits) != 0 {
		t.Errorf("tag and package filters together: %+v", hits)
	}
	// BestPerDocument: deploy.md has two chunks matching "rollout".
	all, _ := r.Search(ctx, Query{Text: "rollout rollback redeploy canaried", Limit: 10})
	best, _ := r.Search(ctx, Query{Text: "rollout rollback redeploy canaried", Limit: 10, BestPerDocument: true})
	if countPath(all, "deploy.md") < 2 || countPath(best, "deploy.md") != 1 {
		t.Errorf("best per document: all %d, best %d chunks of deploy.md", countPath(all, "deploy.md"), countPath(best, "deploy.md"))
	}
	if hits, _ := r.Search(ctx, Query{Text: "canaried", Limit: 1}); len(hits) != 1 {
		t.Errorf("limit 1: %d hits", len(hits))
	}
	if _, err := r.Search(ctx, Query{Text: "  "}); err == nil {
		t.Error("empty query: no error")
	}

	docs, err := r.Documents("")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, d := range docs {
		paths = append(paths, d.Package+"/"+d.Path)
	}
	if got := strings.Join(paths, " "); got != "guides/deploy.md guides/style/go.md guides/sub/empty.mdx ops/broken.md ops/oncall.markdown" {
		t.Errorf("documents = %s", got)
	}
	d := docs[0]
	if d.Title != "Deploying services" || d.Summary != "How to roll out a service to production." || strings.Join(d.Tags, ",") != "ops,release" || d.Lines != 12 || d.Size == 0 || d.Modified.IsZero() {
		t.Errorf("deploy.md document = %+v", d)
	}
	if ops, err := r.Documents("ops"); err != nil || len(ops) != 2 || ops[1].Title != "On-call rota" {
		t.Errorf("Documents(ops) = %+v, %v", ops, err)
	}
	if _, err := r.Documents("nope"); !errors.Is(err, ErrUnknownPackage) {
		t.Errorf("Documents(nope) error = %v", err)
	}

	f, err := r.Freshness(testPackages())
	if err != nil || !f.Fresh || len(f.Stale) != 0 || f.BuiltAt.IsZero() {
		t.Errorf("freshness after sync = %+v, %v", f, err)
	}

	md, err := os.ReadFile(filepath.Join(dir, "INDEX.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## guides", "`https://git.example/guides.git` · path `docs` · ref `main` · commit `1111111`",
		"`https://git.example/ops.git` · default branch · commit `2222222`",
		"- Deploying services (`deploy.md`): How to roll out a service to production.", "- On-call rota (`oncall.markdown`)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("INDEX.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(string(md), "image.md") {
		t.Errorf("INDEX.md lists the skipped binary file")
	}
	if rep.IndexTokens != o200kCount(string(md)) {
		t.Errorf("report says %d tokens, file has %d", rep.IndexTokens, o200kCount(string(md)))
	}
}

func anyPackage(hits []Hit, alias string) bool {
	for _, h := range hits {
		if h.Package == alias {
			return true
		}
	}
	return false
}

func countPath(hits []Hit, path string) int {
	n := 0
	for _, h := range hits {
		if h.Path == path {
			n++
		}
	}
	return n
}

func TestSyncIncremental(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	pkgs := testPackages()
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	md1, _ := os.ReadFile(filepath.Join(dir, "INDEX.md"))
	mdInfo1, _ := os.Stat(filepath.Join(dir, "INDEX.md"))

	// Nothing changed: nothing re-read, INDEX.md byte-identical and untouched.
	rep, err := Sync(ctx, dir, pkgs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added+rep.Updated+rep.Removed != 0 || rep.Unchanged != 6 || rep.Rebuilt {
		t.Errorf("no-change sync report = %+v", rep)
	}
	md2, _ := os.ReadFile(filepath.Join(dir, "INDEX.md"))
	mdInfo2, _ := os.Stat(filepath.Join(dir, "INDEX.md"))
	if string(md1) != string(md2) || !mdInfo1.ModTime().Equal(mdInfo2.ModTime()) {
		t.Errorf("INDEX.md rewritten by a no-change sync")
	}

	r, _ := OpenReader(dir)
	defer r.Close()
	if hits, _ := r.Search(ctx, Query{Text: "flamingo"}); len(hits) != 1 {
		t.Fatalf("flamingo before edit: %d hits", len(hits))
	}

	// Touch without a content change: hashed, not re-indexed.
	now := time.Now().Add(time.Minute)
	os.Chtimes(filepath.Join(dir, "packages/guides/style/go.md"), now, now)
	// One real edit, one new file, one deletion.
	writeFiles(t, dir, "ops", map[string]string{"broken.md": "# Fixed\n\nNow about pelicans.\n"})
	writeFiles(t, dir, "guides", map[string]string{"new.md": "# New\n\nAlbatross facts.\n"})
	os.Remove(filepath.Join(dir, "packages/guides/sub/empty.mdx"))

	if f, _ := r.Freshness(pkgs); f.Fresh || strings.Join(f.Stale, ",") != "guides,ops" {
		t.Errorf("freshness after edits = %+v, want guides and ops stale", f)
	}

	// The reader above has the index open: Sync must not hang on it.
	rep, err = Sync(ctx, dir, pkgs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != 1 || rep.Updated != 1 || rep.Removed != 1 || rep.Unchanged != 4 || rep.Rebuilt {
		t.Errorf("incremental report = %+v, want 1 added, 1 updated, 1 removed, 4 unchanged", rep)
	}
	if hits, _ := r.Search(ctx, Query{Text: "flamingo"}); len(hits) != 0 {
		t.Errorf("old content still found after the edit: %+v", hits)
	}
	for _, q := range []string{"pelicans", "albatross"} {
		if hits, _ := r.Search(ctx, Query{Text: q}); len(hits) != 1 {
			t.Errorf("%s after the edit: %d hits", q, len(hits))
		}
	}
	if f, _ := r.Freshness(pkgs); !f.Fresh {
		t.Errorf("freshness after sync = %+v", f)
	}

	// A package dropped from the list is removed from index and catalogue.
	rep, err = Sync(ctx, dir, pkgs[:1], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Removed != 2 {
		t.Errorf("dropping ops: report %+v, want 2 removed", rep)
	}
	if hits, _ := r.Search(ctx, Query{Text: "pelicans"}); len(hits) != 0 {
		t.Errorf("dropped package still searchable: %+v", hits)
	}
	if f, _ := r.Freshness(pkgs); f.Fresh || strings.Join(f.Stale, ",") != "ops" {
		t.Errorf("freshness with ops missing from the index = %+v", f)
	}
	// A new commit for the same files is stale until synced.
	moved := append([]Package(nil), pkgs[:1]...)
	moved[0].Rev = strings.Repeat("9", 40)
	if f, _ := r.Freshness(moved); f.Fresh {
		t.Errorf("freshness with a new commit = %+v", f)
	}
}

func TestSyncRebuildsOnSchemaChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	// Pretend an older ctx wrote the index.
	p := filepath.Join(dir, "index", metaFile)
	var m meta
	if err := readJSON(p, &m); err != nil {
		t.Fatal(err)
	}
	oldDir := m.Bleve
	m.Schema = schemaVersion - 1
	b, _ := json.Marshal(m)
	os.WriteFile(p, b, 0o644)

	r, _ := OpenReader(dir)
	defer r.Close()
	if f, err := r.Freshness(testPackages()); err != nil || f.Fresh || len(f.Stale) != 2 {
		t.Errorf("freshness of an old-schema index: %+v %v, want everything stale", f, err)
	}
	if _, err := r.Search(ctx, Query{Text: "pager"}); err == nil || !strings.Contains(err.Error(), "ctx index") {
		t.Errorf("search on an old schema: %v, want a hint to run ctx index", err)
	}
	rep, err := Sync(ctx, dir, testPackages(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Rebuilt || rep.Added != 6 {
		t.Errorf("report = %+v, want a rebuild", rep)
	}
	if _, err := os.Stat(filepath.Join(dir, "index", oldDir)); !os.IsNotExist(err) {
		t.Errorf("old index directory %s not removed: %v", oldDir, err)
	}
	if hits, err := r.Search(ctx, Query{Text: "pager"}); err != nil || len(hits) == 0 {
		t.Errorf("search after rebuild: %v %v", hits, err)
	}
	// --rebuild asked explicitly.
	if rep, err := Sync(ctx, dir, testPackages(), Options{Rebuild: true}); err != nil || !rep.Rebuilt {
		t.Errorf("Rebuild option: %+v %v", rep, err)
	}
}

func TestNoIndex(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Search(context.Background(), Query{Text: "x"})
	if !errors.Is(err, ErrNoIndex) || !strings.Contains(err.Error(), "ctx index") {
		t.Errorf("search without an index: %v", err)
	}
	if _, err := r.Documents(""); !errors.Is(err, ErrNoIndex) {
		t.Errorf("documents without an index: %v", err)
	}
	f, err := r.Freshness(testPackages())
	if err != nil || f.Fresh || len(f.Stale) != 2 {
		t.Errorf("freshness without an index: %+v %v", f, err)
	}
}

func TestReaderSeesIndexCreatedLater(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	r, _ := OpenReader(dir)
	defer r.Close()
	if _, err := r.Search(context.Background(), Query{Text: "quokka"}); !errors.Is(err, ErrNoIndex) {
		t.Fatalf("before: %v", err)
	}
	writeFiles(t, dir, "ops", map[string]string{"a.md": "# A\n\nquokka\n"})
	if _, err := Sync(context.Background(), dir, []Package{{Alias: "ops"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	hits, err := r.Search(context.Background(), Query{Text: "quokka"})
	if err != nil || len(hits) != 1 {
		t.Errorf("after Sync, the same Reader: %v %v", hits, err)
	}
}

func TestSyncSkipsOversizedSymlinksAndHidden(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), ".context")
	big := "# Big\n\n" + strings.Repeat("a", maxFileSize) + "\n"
	writeFiles(t, dir, "p", map[string]string{"big.md": big, "ok.md": "# OK\n\nfine\n",
		".github/pr.md": "# PR template\n\nhiddenword\n", ".notes.md": "# Notes\n\nhiddenword\n"})
	outside := filepath.Join(t.TempDir(), "secret.md")
	os.WriteFile(outside, []byte("# Secret\n\nhunter2\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, "packages", "p", "link.md")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	var warns []string
	rep, err := Sync(ctx, dir, []Package{{Alias: "p"}}, Options{Warn: func(s string) { warns = append(warns, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "packages/p/big.md: larger than 2 MB") {
		t.Errorf("warnings = %q", warns)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	if hits, _ := r.Search(ctx, Query{Text: "hunter2"}); len(hits) != 0 {
		t.Errorf("followed a symlink out of the package: %+v", hits)
	}
	if hits, _ := r.Search(ctx, Query{Text: "hiddenword"}); len(hits) != 0 {
		t.Errorf("indexed a hidden file (ctx mcp never serves them): %+v", hits)
	}
	if rep.Added != 2 {
		t.Errorf("report = %+v", rep)
	}
	// The skipped file is remembered: no second warning when unchanged.
	warns = nil
	Sync(ctx, dir, []Package{{Alias: "p"}}, Options{Warn: func(s string) { warns = append(warns, s) }})
	if len(warns) != 0 {
		t.Errorf("second sync warned again: %q", warns)
	}
}

func TestSyncRejectsBadAliases(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, pkgs := range [][]Package{{{Alias: "../x"}}, {{Alias: ""}}, {{Alias: "a"}, {Alias: "a"}}, {{Alias: ".state"}}, {{Alias: "-x"}}, {{Alias: "a b"}}} {
		if _, err := Sync(context.Background(), dir, pkgs, Options{}); err == nil {
			t.Errorf("Sync(%+v): no error", pkgs)
		}
	}
}

func TestSyncCancelled(t *testing.T) {
	t.Parallel()
	dir := setupCorpus(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Sync(ctx, dir, testPackages(), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled sync: %v", err)
	}
	// A later sync works and leaves no stray directories.
	if _, err := Sync(context.Background(), dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "index"))
	n := 0
	for _, e := range ents {
		if e.IsDir() && e.Name() != catalogDir {
			n++
		}
	}
	if n != 1 {
		t.Errorf("index has %d directories besides %s/, want 1", n, catalogDir)
	}
}

func TestSyncRebuildsAfterInterruptedUpdate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	// A Sync killed in the middle of an incremental update leaves the
	// dirty mark behind.
	p := filepath.Join(dir, "index", metaFile)
	var m meta
	readJSON(p, &m)
	m.Dirty = true
	b, _ := json.Marshal(m)
	os.WriteFile(p, b, 0o644)
	rep, err := Sync(ctx, dir, testPackages(), Options{})
	if err != nil || !rep.Rebuilt {
		t.Errorf("after an interrupted update: %+v %v, want a rebuild", rep, err)
	}
	// An ordinary incremental update clears the mark.
	writeFiles(t, dir, "ops", map[string]string{"x.md": "# X\n\nwombat\n"})
	if rep, err := Sync(ctx, dir, testPackages(), Options{}); err != nil || rep.Rebuilt || rep.Added != 1 {
		t.Errorf("incremental: %+v %v", rep, err)
	}
	var after meta
	readJSON(p, &after)
	if after.Dirty {
		t.Errorf("dirty mark left after a finished Sync")
	}
}

// A page that writes its words with mnemonics ("E[x]tract", "[c]reate", as
// tldr pages do) is found by the plain words, and the snippet shows the page
// as written.
func TestSearchFindsMnemonicWords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "cli", map[string]string{
		"tar.md":   "# tar\n\n> Archiving utility.\n\n- E[x]tract a (compressed) archive file into the current directory:\n\n`tar xf path/to/source.tar[.gz|.bz2|.xz]`\n\n- [c]reate an archive from files:\n\n`tar cf target.tar file1 file2`\n",
		"other.md": "# other\n\n> Something else entirely.\n\n- Print the version:\n\n`other --version`\n",
	})
	if _, err := Sync(ctx, dir, []Package{{Alias: "cli"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	for _, q := range []string{"extract", "create"} { // only the mnemonic words say these
		hits, err := r.Search(ctx, Query{Text: q})
		if err != nil || len(hits) == 0 || hits[0].Path != "tar.md" {
			t.Errorf("%q: %+v, %v", q, hits, err)
			continue
		}
		if !strings.Contains(hits[0].Snippet, "[") {
			t.Errorf("%q: snippet %q does not show the page as written", q, hits[0].Snippet)
		}
	}
}

// TestOldSchemaIndexSaysRunIndex: an index an older ctx wrote (meta.json,
// catalog.json and its parts all of the old schema) is met by every read
// with the schema's own message, not one about a part that is "not the
// catalogue" its top names (a query of qualifiers alone, the document
// list and find read the catalogue before the bleve index).
func TestOldSchemaIndexSaysRunIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	old := func(p string) {
		t.Helper()
		var v map[string]any
		if err := readJSON(p, &v); err != nil {
			t.Fatal(err)
		}
		v["schema"] = schemaVersion - 1
		b, _ := json.Marshal(v)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx := filepath.Join(dir, "index")
	old(filepath.Join(idx, metaFile))
	old(filepath.Join(idx, catalogFile))
	parts, _ := filepath.Glob(filepath.Join(idx, catalogDir, "*.json"))
	if len(parts) == 0 {
		t.Fatal("no catalogue parts")
	}
	for _, p := range parts {
		old(p)
	}
	want := fmt.Sprintf("has schema %d, this ctx needs %d: run `ctx index`", schemaVersion-1, schemaVersion)
	check := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s on an old-schema index: %v, want %q", what, err, want)
		}
	}
	for _, q := range []string{"pager", "package:ops", "kind:changelog"} {
		r, _ := OpenReader(dir)
		_, err := r.Search(ctx, Query{Text: q})
		check("search "+q, err)
		r.Close()
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	_, err := r.Documents("")
	check("documents", err)
}
