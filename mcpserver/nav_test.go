package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/tokens"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"
	"github.com/ctx-dev/ctx/project"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// navProject writes a project whose packages hold files (alias → path →
// content), locks and indexes them, and returns the project folder.
func navProject(t testing.TB, pkgs map[string]map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "proj")
	navProjectIn(t, dir, pkgs)
	return dir
}

// deepShared is navProject's project of deepFiles, shared by the tests
// that only read it (sharedDeepProject).
var deepShared = sharedFixture[string]{name: "the deep project (sharedDeepProject)"}

// sharedDeepProject is navProject's project of one package, deep, of
// deepFiles, built once for the tests that change nothing in it (checked
// at the end: checkShared).
func sharedDeepProject(t testing.TB) string {
	t.Helper()
	return sharedDir(t, &deepShared, func(t testing.TB, dir string) {
		navProjectIn(t, dir, map[string]map[string]string{"deep": deepFiles()})
	})
}

// navProjectIn writes navProject's project at dir.
func navProjectIn(t testing.TB, dir string, pkgs map[string]map[string]string) {
	t.Helper()
	ctxDir := filepath.Join(dir, ".context")
	lock := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{}}
	for alias, files := range pkgs {
		for rel, content := range files {
			writeFile(t, filepath.Join(ctxDir, "packages", alias, filepath.FromSlash(rel)), content)
		}
		lock.Packages[alias] = lockfile.Entry{Source: "https://example.com/" + alias + ".git", Path: "docs", Ref: "main",
			Rev: strings.Repeat("c3", 20), Tree: strings.Repeat("d4", 20), Hash: "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
			Updated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	}
	if err := lockfiletest.WriteInstalled(ctxDir, lock); err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Sync(context.Background(), ctxDir, lockPackages(ctxDir, lock), indexer.Options{}); err != nil {
		t.Fatal(err)
	}
}

// deepFiles is a package of 5 top folders × 8 sub-folders × 10 documents,
// 3 documents at the top, 4 directly in area-0, a hidden folder and a
// file that is not a document: 407 documents served.
func deepFiles() map[string]string {
	f := map[string]string{
		"README.md":            "# Deep\n\nThe top.\n",
		"CHANGES.md":           "# Changes\n",
		"intro.md":             "# Intro\n",
		".hidden/secret.md":    "# Hidden\n",
		"area-0/notes.html":    "not a document\n",
		"area-0/sub-0-x.md":    "# Beside sub-0\n",
		"area-0/a.md":          "# A\n",
		"area-0/b.md":          "# B\n",
		"area-0/guide/text.md": "# In area-0/guide\n",
	}
	for a := range 5 {
		for s := range 8 {
			for d := range 10 {
				f[fmt.Sprintf("area-%d/sub-%d/doc-%02d.md", a, s, d)] = fmt.Sprintf("---\ntitle: Area %d sub %d doc %d\ntags: [area%d, sub%d]\n---\n# Doc %d\n\nText of doc %d.\n", a, s, d, a, s, d, d)
			}
		}
	}
	return f
}

// deepPaths is the served documents of deepFiles, sorted.
func deepPaths() []string {
	var out []string
	for p := range deepFiles() {
		if strings.HasSuffix(p, ".md") && !strings.HasPrefix(p, ".") {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

var o200k = tokens.Codec()

// seenTokens is what a client shows of a tool result (clientView), in
// o200k tokens.
func seenTokens(t testing.TB, res *mcp.CallToolResult) int {
	t.Helper()
	n, _ := o200k.Count(clientView(t, res))
	return n
}

// withinBudget fails when res is over the budget of maxTokens (0: the default).
func withinBudget(t testing.TB, what string, res *mcp.CallToolResult, maxTokens int) int {
	t.Helper()
	b, err := tokenBudget(maxTokens)
	if err != nil {
		t.Fatal(err)
	}
	n := seenTokens(t, res)
	if n > b {
		t.Errorf("%s: %d tokens, over the budget of %d (maxTokens %d)", what, n, b, maxTokens)
	}
	return n
}

// pageAll calls tool with args and then each nextCursor, and returns the
// pages' outputs; every page must be within maxTokens' budget.
func pageAll[T any](t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any, next func(T) string) []T {
	t.Helper()
	var pages []T
	mt, _ := args["maxTokens"].(int)
	cur := ""
	for range 500 {
		a := map[string]any{}
		for k, v := range args {
			a[k] = v
		}
		if cur != "" {
			a["cursor"] = cur
		}
		var out T
		res := call(t, cs, tool, a, &out)
		if res.IsError {
			t.Fatalf("%s %v: %s", tool, a, text(res))
		}
		withinBudget(t, fmt.Sprintf("%s page %d", tool, len(pages)+1), res, mt)
		if cur = next(out); cur != "" && !strings.Contains(text(res), cur) {
			t.Errorf("%s: the text does not give the next cursor", tool)
		}
		pages = append(pages, out)
		if cur == "" {
			return pages
		}
	}
	t.Fatalf("%s: more than 500 pages", tool)
	return nil
}

func TestListDocumentsPagesCoverAllOnce(t *testing.T) {
	t.Parallel()
	dir := sharedDeepProject(t)
	cs := connect(t, dir)
	pages := pageAll(t, cs, "list_contexts", map[string]any{"package": "deep", "maxTokens": 1500},
		func(o ListContextsOut) string { return o.NextCursor })
	var got []string
	for _, p := range pages {
		for _, d := range p.Documents {
			got = append(got, d.Path)
		}
		if p.Total != 407 || p.Listed != len(p.Documents) {
			t.Errorf("page: total %d, listed %d of %d", p.Total, p.Listed, len(p.Documents))
		}
	}
	if len(pages) < 5 {
		t.Errorf("%d pages of 1500 tokens for 407 documents: the budget does not bound them", len(pages))
	}
	slices.Sort(got)
	if !slices.Equal(got, deepPaths()) {
		t.Errorf("pages listed %d documents (%d distinct), want the 407 once each", len(got), len(slices.Compact(slices.Clone(got))))
	}

	// A cursor of another listing, or a damaged one, is refused.
	first := pages[0].NextCursor
	wantError(t, call(t, cs, "list_contexts", map[string]any{"package": "deep", "prefix": "area-1/", "cursor": first}, nil), "another listing")
	wantError(t, call(t, cs, "list_contexts", map[string]any{"package": "deep", "cursor": "not-a-cursor!"}, nil), "not one this server gave", "without cursor")
	wantError(t, call(t, cs, "list_contexts", map[string]any{"package": "deep", "maxTokens": 5}, nil), "too small", "maxTokens")
	wantError(t, call(t, cs, "list_contexts", map[string]any{"package": "deep", "maxTokens": 20001}, nil), "out of range")
}

// TestListPagesWhileDocumentsChange: documents added and removed between
// pages (the index is live) never make a page repeat or skip one of the
// documents present throughout.
func TestListPagesWhileDocumentsChange(t *testing.T) {
	t.Parallel()
	dir := navProject(t, map[string]map[string]string{"deep": deepFiles()})
	ctxDir := filepath.Join(dir, ".context")
	cs := connect(t, dir)
	seen := map[string]int{}
	cur := ""
	for i := 0; ; i++ {
		args := map[string]any{"package": "deep", "maxTokens": 1500}
		if cur != "" {
			args["cursor"] = cur
		}
		var out ListContextsOut
		if res := call(t, cs, "list_contexts", args, &out); res.IsError {
			t.Fatal(text(res))
		}
		for _, d := range out.Documents {
			seen[d.Path]++
		}
		if out.NextCursor == "" {
			break
		}
		cur = out.NextCursor
		if i == 1 {
			// Before and after the cursor: a new document at the top,
			// one deleted and one added further on.
			pk := filepath.Join(ctxDir, "packages", "deep")
			writeFile(t, filepath.Join(pk, "0-first.md"), "# First\n")
			writeFile(t, filepath.Join(pk, "area-4", "zz-new.md"), "# New\n")
			if err := os.Remove(filepath.Join(pk, "area-3", "sub-0", "doc-00.md")); err != nil {
				t.Fatal(err)
			}
			l, err := lockfiletest.Read(filepath.Join(ctxDir, project.LockName))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := indexer.Sync(context.Background(), ctxDir, lockPackages(ctxDir, l), indexer.Options{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, p := range deepPaths() {
		if p == "area-3/sub-0/doc-00.md" {
			continue
		}
		if seen[p] != 1 {
			t.Errorf("%s listed %d times, want once", p, seen[p])
		}
	}
	if seen["area-4/zz-new.md"] != 1 || seen["0-first.md"] != 0 || seen["area-3/sub-0/doc-00.md"] != 0 {
		t.Errorf("added after the cursor %d (want 1), before it %d (want 0), deleted %d (want 0)",
			seen["area-4/zz-new.md"], seen["0-first.md"], seen["area-3/sub-0/doc-00.md"])
	}
}

func TestListFiltersAndTree(t *testing.T) {
	t.Parallel()
	dir := sharedDeepProject(t)
	cs := connect(t, dir)
	list := func(args map[string]any) ListContextsOut {
		t.Helper()
		args["package"] = "deep"
		var out ListContextsOut
		res := call(t, cs, "list_contexts", args, &out)
		if res.IsError {
			t.Fatalf("%v: %s", args, text(res))
		}
		withinBudget(t, fmt.Sprint(args), res, 0)
		return out
	}
	paths := func(o ListContextsOut) []string {
		var p []string
		for _, d := range o.Documents {
			p = append(p, d.Path)
		}
		return p
	}
	count := func(f func(string) bool) int {
		n := 0
		for _, p := range deepPaths() {
			if f(p) {
				n++
			}
		}
		return n
	}

	// prefix: a folder, or any start of the path.
	out := list(map[string]any{"prefix": "area-2/sub-3/"})
	if out.Total != 10 || len(out.Documents) != 10 || out.Documents[0].Path != "area-2/sub-3/doc-00.md" || out.Documents[0].Title != "Area 2 sub 3 doc 0" {
		t.Errorf("prefix area-2/sub-3/: %d of %d, %v", len(out.Documents), out.Total, paths(out))
	}
	if out := list(map[string]any{"prefix": "area-0/sub-0"}); out.Total != 11 {
		t.Errorf("prefix area-0/sub-0: %d documents, want 11 (sub-0/ and sub-0-x.md)", out.Total)
	}
	// glob: path.Match over the whole path; * stays in one folder.
	out = list(map[string]any{"glob": "area-*/sub-[12]/doc-0[05].md"})
	if want := count(func(p string) bool { ok, _ := path.Match("area-*/sub-[12]/doc-0[05].md", p); return ok }); out.Total != want || want != 20 {
		t.Errorf("glob: %d documents, want %d (20)", out.Total, want)
	}
	if out := list(map[string]any{"glob": "*.md"}); out.Total != 3 {
		t.Errorf("glob *.md: %d documents, want the 3 at the top (* never matches /)", out.Total)
	}
	if out := list(map[string]any{"prefix": "area-1/", "glob": "*/*/doc-09.md"}); out.Total != 8 {
		t.Errorf("prefix and glob: %d documents, want 8", out.Total)
	}
	// Nothing matches: a note with the top folders.
	out = list(map[string]any{"prefix": "docs/"})
	if out.Total != 0 || !strings.Contains(out.Note, "area-0/") || !strings.Contains(out.Note, "no document") {
		t.Errorf("no match: %+v", out)
	}
	wantError(t, call(t, cs, "list_contexts", map[string]any{"package": "deep", "glob": "area-[/x"}, nil), "not a valid pattern")
	wantError(t, call(t, cs, "list_contexts", map[string]any{"glob": "*.md"}, nil), "give package")
	wantError(t, call(t, cs, "list_contexts", map[string]any{"package": "deep", "depth": 11}, nil), "depth 11")

	// tree: the top, then each folder with its counts.
	out = list(map[string]any{"tree": true})
	want := []FolderInfo{{"", 407, 3}}
	for a := range 5 {
		f := FolderInfo{fmt.Sprintf("area-%d", a), 80, 0}
		if a == 0 {
			f = FolderInfo{"area-0", 84, 3}
		}
		want = append(want, f)
	}
	if !slices.Equal(out.Folders, want) || out.Total != 407 || out.TotalFolders != 6 || len(out.Documents) != 0 {
		t.Errorf("tree =\n%+v\nwant\n%+v", out.Folders, want)
	}
	// depth 2 under a prefix.
	out = list(map[string]any{"prefix": "area-0/", "depth": 2})
	if len(out.Folders) != 10 || out.Folders[0] != (FolderInfo{"area-0", 84, 3}) || out.Folders[1] != (FolderInfo{"area-0/guide", 1, 1}) ||
		out.Folders[2] != (FolderInfo{"area-0/sub-0", 10, 10}) || out.TotalFolders != 10 {
		t.Errorf("tree of area-0/, depth 2: %+v", out.Folders)
	}
	// A tree's counts add up to its documents at every level.
	out = list(map[string]any{"depth": 3})
	sum := 0
	for _, f := range out.Folders {
		sum += f.Files
	}
	if sum != 407 || out.TotalFolders != 1+5+41 {
		t.Errorf("depth 3: files add up to %d (want 407), %d folders (want 47)", sum, out.TotalFolders)
	}
	// The tree pages too, each folder once.
	pages := pageAll(t, cs, "list_contexts", map[string]any{"package": "deep", "depth": 3, "maxTokens": 300},
		func(o ListContextsOut) string { return o.NextCursor })
	var fs []string
	for _, p := range pages {
		for _, f := range p.Folders {
			fs = append(fs, f.Path)
		}
	}
	if len(pages) < 3 || len(fs) != 47 || len(slices.Compact(slices.Sorted(slices.Values(fs)))) != 47 {
		t.Errorf("tree pages: %d pages, %d folders", len(pages), len(fs))
	}
}

// TestNavAtScale: 300 packages of one document, and one package of 1,200
// in 12 folders of 100: 1,500 documents. Every page of list_contexts,
// ctx://manifest and resources/list stays within the default budget, and
// the pages list every item once. The sizes are past every cap (20 packages
// a tag, 100 completions, several pages of each list, a folder of 100 in
// one page of 20,000 tokens); the run at 1,000 packages and 5,000 documents
// that the scale goal names is BenchmarkNavAtScale, with the same checks
// (go test -run '^$' -bench NavAtScale -benchtime 1x ./mcpserver).
func TestNavAtScale(t *testing.T) {
	t.Parallel()
	testNavAtScale(t, 300, 12)
}

// BenchmarkNavAtScale runs TestNavAtScale's checks at full size: 1,000
// packages, and one of 4,000 documents in 40 folders (5,000 documents).
// Each sub-benchmark times one whole run of its check (all pages of a list).
func BenchmarkNavAtScale(b *testing.B) {
	testNavAtScale(b, 1000, 40)
}

// testNavAtScale builds n packages of one document and a package "big" of
// parts folders of 100 documents, and checks the paging of every list over
// them.
func testNavAtScale(t testing.TB, n, parts int) {
	t.Helper()
	run := func(name string, f func(t testing.TB)) {
		switch t := t.(type) {
		case *testing.T:
			t.Run(name, func(t *testing.T) { f(t) })
		case *testing.B:
			t.Run(name, func(b *testing.B) {
				for b.Loop() {
					f(b)
				}
			})
		}
	}
	bigDocs := parts * 100
	pkgs := map[string]map[string]string{}
	for i := range n {
		pkgs[fmt.Sprintf("pkg-%04d", i)] = map[string]string{
			"docs/page.md": fmt.Sprintf("---\ntitle: Package %d\ntags: [t%d, common]\n---\n# Page\n\nText.\n", i, i%7),
		}
	}
	big := map[string]string{}
	for i := range bigDocs {
		big[fmt.Sprintf("part-%02d/doc-%04d.md", i%parts, i)] = fmt.Sprintf("---\ntags: [common]\n---\n# Document %d of the big package\n\nText.\n", i)
	}
	pkgs["big"] = big
	dir := navProject(t, pkgs)
	cs := connect(t, dir)
	ctx := context.Background()

	run("list_contexts", func(t testing.TB) {
		pages := pageAll(t, cs, "list_contexts", map[string]any{}, func(o ListContextsOut) string { return o.NextCursor })
		seen := map[string]int{}
		for _, p := range pages {
			for _, pk := range p.Packages {
				seen[pk.Alias]++
				if want := map[bool]int{true: bigDocs, false: 1}[pk.Alias == "big"]; pk.Documents != want {
					t.Errorf("%s: %d documents, want %d", pk.Alias, pk.Documents, want)
				}
			}
		}
		if len(seen) != n+1 || len(pages) < 2 {
			t.Errorf("%d pages listed %d packages, want %d", len(pages), len(seen), n+1)
		}
		for a, n := range seen {
			if n != 1 {
				t.Errorf("%s listed %d times", a, n)
			}
		}
	})
	run("list_contexts big", func(t testing.TB) {
		pages := pageAll(t, cs, "list_contexts", map[string]any{"package": "big"}, func(o ListContextsOut) string { return o.NextCursor })
		seen := map[string]int{}
		for _, p := range pages {
			for _, d := range p.Documents {
				seen[d.Path]++
			}
		}
		if len(seen) != bigDocs || len(pages) < parts/4 {
			t.Errorf("%d pages listed %d documents of big, want %d", len(pages), len(seen), bigDocs)
		}
		for p, n := range seen {
			if n != 1 {
				t.Errorf("%s listed %d times", p, n)
			}
		}
		var out ListContextsOut
		res := call(t, cs, "list_contexts", map[string]any{"package": "big", "tree": true}, &out)
		withinBudget(t, "tree of big", res, 0)
		if len(out.Folders) != parts+1 || out.Folders[0].Documents != bigDocs || out.Folders[1] != (FolderInfo{"part-00", 100, 100}) || out.NextCursor != "" {
			t.Errorf("tree of big: %d folders, %+v", len(out.Folders), out.Folders[:min(2, len(out.Folders))])
		}
		out = ListContextsOut{}
		res = call(t, cs, "list_contexts", map[string]any{"package": "big", "prefix": "part-07/", "maxTokens": MaxMaxTokens}, &out)
		withinBudget(t, "part-07 of big", res, MaxMaxTokens)
		if out.Total != 100 || len(out.Documents) != 100 {
			t.Errorf("part-07/ in one page of 20,000 tokens: %d of %d", len(out.Documents), out.Total)
		}
	})
	run("manifest", func(t testing.TB) {
		budget, _ := tokenBudget(0)
		seen := map[string]int{}
		uri := manifestURI
		for pages := 0; uri != ""; pages++ {
			r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil {
				t.Fatalf("%s: %v", uri, err)
			}
			txt := r.Contents[0].Text
			if n, _ := o200k.Count(txt); n > budget {
				t.Errorf("%s: %d tokens, over %d", uri, n, budget)
			}
			var m Manifest
			if err := json.Unmarshal([]byte(txt), &m); err != nil {
				t.Fatal(err)
			}
			for _, p := range m.Packages {
				seen[p.Alias]++
			}
			if m.Total != n+1 || (m.Next != "" && (m.Next != manifestURI+"?cursor="+m.NextCursor || !strings.Contains(m.Note, "read the resource named by next"))) {
				t.Errorf("manifest page: total %d, next %q, cursor %q", m.Total, m.Next, m.NextCursor)
			}
			uri = m.Next
			if pages > 200 {
				t.Fatal("too many pages")
			}
		}
		if len(seen) != n+1 {
			t.Errorf("manifest pages listed %d packages, want %d", len(seen), n+1)
		}
		for a, n := range seen {
			if n != 1 {
				t.Errorf("%s listed %d times", a, n)
			}
		}
	})
	run("resources/list", func(t testing.TB) {
		budget, _ := tokenBudget(0)
		seen := map[string]int{}
		cur := ""
		for pages := 0; ; pages++ {
			r, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cur})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := marshalJSON(r)
			if n, _ := o200k.Count(string(b)); n > budget {
				t.Errorf("resources/list page %d: %d tokens, over %d", pages, n, budget)
			}
			for _, x := range r.Resources {
				seen[x.URI]++
			}
			if cur = r.NextCursor; cur == "" {
				break
			}
			if pages > 1000 {
				t.Fatal("too many pages")
			}
		}
		lastPkg := fmt.Sprintf("ctx://packages/pkg-%04d/docs/page.md", n-1)
		lastDoc := fmt.Sprintf("ctx://packages/big/part-%02d/doc-%04d.md", parts-1, bigDocs-1)
		if want := n + bigDocs + 2; len(seen) != want || seen[manifestURI] != 1 || seen["ctx://index"] != 1 || seen[lastPkg] != 1 || seen[lastDoc] != 1 {
			t.Errorf("resources/list listed %d resources, want %d", len(seen), want)
		}
		for u, n := range seen {
			if n != 1 {
				t.Errorf("%s listed %d times", u, n)
			}
		}
	})
	run("list_tags", func(t testing.TB) {
		var out ListTagsOut
		res := call(t, cs, "list_tags", nil, &out)
		withinBudget(t, "list_tags", res, 0)
		if len(out.Tags) != 8 || out.Tags[0].Tag != "common" || out.Tags[0].Count != n+bigDocs || len(out.Tags[0].Packages) != maxTagPackages ||
			out.Tags[0].MorePackages != n+1-maxTagPackages || out.Tags[0].Packages["big"] != bigDocs || out.Tags[0].Packages["pkg-0000"] != 1 {
			t.Errorf("list_tags at %d packages: %+v", n, out.Tags[:min(2, len(out.Tags))])
		}
	})
	run("complete", func(t testing.TB) {
		c, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: docTemplate},
			Argument: mcp.CompleteParamsArgument{Name: "alias", Value: "PKG-0"}})
		if err != nil {
			t.Fatal(err)
		}
		if v := c.Completion.Values; len(v) != maxCompletions || !c.Completion.HasMore || c.Completion.Total != n || v[0] != "pkg-0000" {
			t.Errorf("complete alias PKG-0: %d values (total %d, more %v)", len(v), c.Completion.Total, c.Completion.HasMore)
		}
	})
}

// TestGetOutline: each heading's line and endLine are what get_section
// serves for it, its tokens about the count of that text, and the pages
// of a long outline join up.
func TestGetOutline(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	var out GetOutlineOut
	res := call(t, cs, "get_outline", map[string]any{"package": "guide", "path": "docs/setup.md"}, &out)
	if res.IsError {
		t.Fatal(text(res))
	}
	withinBudget(t, "get_outline", res, 0)
	var names []string
	for _, h := range out.Headings {
		names = append(names, fmt.Sprintf("%d %s", h.Level, h.Heading))
	}
	if want := []string{"1 Setup", "2 Install", "3 Linux", "2 Configure", "1 Appendix"}; !slices.Equal(names, want) {
		t.Fatalf("outline %v, want %v", names, want)
	}
	if out.TotalLines != strings.Count(setupDoc, "\n") || out.Total != 5 || out.NextCursor != "" {
		t.Errorf("outline header: %+v", out)
	}
	whole, _ := o200k.Count(setupDoc)
	if out.Tokens < whole*9/10 || out.Tokens > whole*11/10 {
		t.Errorf("document tokens %d, counted as one text %d", out.Tokens, whole)
	}
	for _, h := range out.Headings {
		var d DocumentOut
		r := call(t, cs, "get_section", map[string]any{"package": "guide", "path": "docs/setup.md", "heading": h.Heading}, &d)
		if r.IsError {
			t.Fatal(text(r))
		}
		if d.StartLine != h.Line || d.EndLine != h.EndLine {
			t.Errorf("%s: outline lines %d-%d, get_section %d-%d", h.Heading, h.Line, h.EndLine, d.StartLine, d.EndLine)
		}
		n, _ := o200k.Count(d.Text)
		if h.Tokens < n*8/10-2 || h.Tokens > n*12/10+2 {
			t.Errorf("%s: outline says %d tokens, the section's text has %d", h.Heading, h.Tokens, n)
		}
		if !strings.Contains(text(res), fmt.Sprintf(`"line":%d,"endLine":%d,"tokens":%d`, h.Line, h.EndLine, h.Tokens)) {
			t.Errorf("%s: not in the text:\n%s", h.Heading, text(res))
		}
	}
	// depth keeps the upper levels; a reference works as path.
	out = GetOutlineOut{}
	call(t, cs, "get_outline", map[string]any{"path": "@ctx/guide/docs/setup.md", "depth": 1}, &out)
	if len(out.Headings) != 2 || out.Headings[1].Heading != "Appendix" || out.Headings[0].EndLine != 19 {
		t.Errorf("depth 1: %+v", out.Headings)
	}
	// A long outline pages; every heading once.
	pages := pageAll(t, cs, "get_outline", map[string]any{"package": "big", "path": "long.md", "maxTokens": 400},
		func(o GetOutlineOut) string { return o.NextCursor })
	var lines []int
	for _, pg := range pages {
		for _, h := range pg.Headings {
			lines = append(lines, h.Line)
		}
	}
	if len(pages) < 3 || len(lines) != 30 || !slices.IsSorted(lines) || len(slices.Compact(slices.Clone(lines))) != 30 {
		t.Errorf("long.md outline: %d pages, %d headings", len(pages), len(lines))
	}
	// No headings, bad input.
	out = GetOutlineOut{}
	call(t, cs, "get_outline", map[string]any{"package": "big", "path": "digits.md"}, &out)
	if len(out.Headings) != 0 || !strings.Contains(out.Note, "no headings") || out.Tokens == 0 {
		t.Errorf("no headings: %+v", out)
	}
	wantError(t, call(t, cs, "get_outline", map[string]any{"package": "guide", "path": "docs/setpu.md"}, nil), "not found", "docs/setup.md")
	wantError(t, call(t, cs, "get_outline", map[string]any{"package": "guide", "path": "../../secret.md"}, nil), "refused")
	wantError(t, call(t, cs, "get_outline", map[string]any{"package": "guide", "path": "docs/setup.md", "depth": 7}, nil), "depth 7")
	wantError(t, call(t, cs, "get_outline", map[string]any{"package": "guide", "path": "docs/setup.md", "maxTokens": 10}, nil), "too small")
}

func TestListTags(t *testing.T) {
	t.Parallel()
	files := func(pkg string, n int) map[string]string {
		f := map[string]string{}
		for i := range n {
			f[fmt.Sprintf("d%03d.md", i)] = fmt.Sprintf("---\ntags: [shared, %s-%03d]\n---\n# D\n", pkg, i%40)
		}
		return f
	}
	dir := navProject(t, map[string]map[string]string{"a": files("a", 80), "b": files("b", 10), "c": {"x.md": "# X\n"}})
	cs := connect(t, dir)
	var out ListTagsOut
	res := call(t, cs, "list_tags", nil, &out)
	if res.IsError {
		t.Fatal(text(res))
	}
	if out.Total != 51 || out.Tags[0].Tag != "shared" || out.Tags[0].Count != 90 || !maps.Equal(out.Tags[0].Packages, map[string]int{"a": 80, "b": 10}) {
		t.Errorf("list_tags: %d tags, first %+v", out.Total, out.Tags[0])
	}
	if out.Tags[1].Tag != "a-000" || out.Tags[1].Count != 2 || !strings.Contains(text(res), `{"tag":"shared","count":90,"packages":{"a":80,"b":10}}`) {
		t.Errorf("list_tags second %+v; text:\n%.300s", out.Tags[1], text(res))
	}
	out = ListTagsOut{}
	call(t, cs, "list_tags", map[string]any{"package": "b"}, &out)
	if out.Total != 11 || out.Tags[0].Count != 10 || !maps.Equal(out.Tags[0].Packages, map[string]int{"b": 10}) {
		t.Errorf("list_tags of b: %+v", out)
	}
	out = ListTagsOut{}
	call(t, cs, "list_tags", map[string]any{"package": "c"}, &out)
	if out.Total != 0 || !strings.Contains(out.Note, "no document has tags") {
		t.Errorf("list_tags of c: %+v", out)
	}
	pages := pageAll(t, cs, "list_tags", map[string]any{"maxTokens": 300}, func(o ListTagsOut) string { return o.NextCursor })
	seen := map[string]int{}
	for _, p := range pages {
		for _, tg := range p.Tags {
			seen[tg.Tag]++
		}
	}
	if len(pages) < 3 || len(seen) != 51 {
		t.Errorf("list_tags pages: %d pages, %d tags", len(pages), len(seen))
	}
	for tg, n := range seen {
		if n != 1 {
			t.Errorf("tag %s listed %d times", tg, n)
		}
	}
	wantError(t, call(t, cs, "list_tags", map[string]any{"package": "nope"}, nil), "unknown package")

	// A "tag" longer than the indexer's bound is not a tag: two of 351
	// bytes are not listed (the list_tags paging by a tag's whole text
	// still serves an index built before the bound).
	long := strings.Repeat("x", 350)
	dir = navProject(t, map[string]map[string]string{"l": {
		"a.md": "---\ntags: [" + long + "a, short]\n---\n# A\n",
		"b.md": "---\ntags: [" + long + "b]\n---\n# B\n",
	}})
	cs = connect(t, dir)
	pages = pageAll(t, cs, "list_tags", map[string]any{"limit": 1}, func(o ListTagsOut) string { return o.NextCursor })
	if n := len(pages); n != 1 || len(pages[0].Tags) != 1 || pages[0].Tags[0].Tag != "short" {
		t.Errorf("tags over the bound: %d pages %+v, want only the tag short", n, pages)
	}
}

func TestCompleteDocumentTemplate(t *testing.T) {
	t.Parallel()
	dir := navProject(t, map[string]map[string]string{"deep": deepFiles(), "docs": {"README.md": "# R\n"}, "design": {"a.md": "# A\n"}})
	cs := connect(t, dir)
	ctx := context.Background()
	if cs.InitializeResult().Capabilities.Completions == nil {
		t.Error("the server does not announce completions")
	}
	complete := func(arg, value string, context map[string]string) mcp.CompletionResultDetails {
		t.Helper()
		p := &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: docTemplate},
			Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}}
		if context != nil {
			p.Context = &mcp.CompleteContext{Arguments: context}
		}
		r, err := cs.Complete(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return r.Completion
	}
	if c := complete("alias", "de", nil); !slices.Equal(c.Values, []string{"deep", "design"}) || c.Total != 2 || c.HasMore {
		t.Errorf("alias de: %+v", c)
	}
	if c := complete("alias", "s", nil); !slices.Equal(c.Values, []string{"design", "docs"}) {
		t.Errorf("alias s (contained): %+v", c)
	}
	c := complete("path", "area-2/sub-3/", map[string]string{"alias": "deep"})
	if len(c.Values) != 10 || c.Values[0] != "area-2/sub-3/doc-00.md" || c.HasMore {
		t.Errorf("path area-2/sub-3/: %+v", c)
	}
	c = complete("path", "", map[string]string{"alias": "deep"})
	if len(c.Values) != maxCompletions || !c.HasMore || c.Total != 407 || slices.Contains(c.Values, ".hidden/secret.md") {
		t.Errorf("path with nothing typed: %d values, total %d, more %v", len(c.Values), c.Total, c.HasMore)
	}
	if c := complete("path", "DOC-09", map[string]string{"alias": "deep"}); c.Total != 40 || !strings.HasSuffix(c.Values[0], "/doc-09.md") {
		t.Errorf("path containing DOC-09: %+v", c)
	}
	for _, ctxArgs := range []map[string]string{nil, {"alias": "nope"}, {"alias": "../x"}} {
		if c := complete("path", "", ctxArgs); len(c.Values) != 0 {
			t.Errorf("path without a known alias %v: %+v", ctxArgs, c)
		}
	}
	r, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "x"}, Argument: mcp.CompleteParamsArgument{Name: "q", Value: "a"}})
	if err != nil || len(r.Completion.Values) != 0 {
		t.Errorf("prompt completion: %+v, %v", r, err)
	}
}

// TestResourcesListDocuments: resources/list lists the documents of the
// installed packages with their URIs and titles, pages by cursor, and
// follows the live index.
func TestResourcesListDocuments(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	cs := connect(t, p.dir)
	ctx := context.Background()
	var all []*mcp.Resource
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
	}
	byURI := map[string]*mcp.Resource{}
	for _, r := range all {
		if byURI[r.URI] != nil {
			t.Errorf("%s listed twice", r.URI)
		}
		byURI[r.URI] = r
	}
	setup := byURI["ctx://packages/guide/docs/setup.md"]
	if setup == nil || setup.Title != "Setup guide" || setup.Name != "guide/docs/setup.md" || setup.MIMEType != "text/markdown" || setup.Size != int64(len(setupDoc)) {
		t.Errorf("setup.md resource: %+v", setup)
	}
	if byURI["ctx://index"] == nil || byURI[manifestURI] == nil || byURI["ctx://packages/many/doc59.md"] == nil {
		t.Errorf("resources/list lacks index, manifest or many/doc59.md: %d resources", len(all))
	}
	for u := range byURI {
		if strings.Contains(u, "/.") || strings.Contains(u, "notes.html") {
			t.Errorf("listed what is never served: %s", u)
		}
	}
	// Every listed document can be read.
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ctx://packages/many/doc07.md"}); err != nil {
		t.Error(err)
	}
	// A new document is listed after the next re-index.
	writeFile(t, filepath.Join(p.ctxDir, "packages", "api", "new.md"), "# New page\n")
	l, _ := lockfiletest.Read(filepath.Join(p.ctxDir, project.LockName))
	if _, err := indexer.Sync(ctx, p.ctxDir, lockPackages(p.ctxDir, l), indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	found := false
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		found = found || r.URI == "ctx://packages/api/new.md" && r.Title == "New page"
	}
	if !found {
		t.Error("a new document is not listed")
	}
	if _, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: "bogus"}); err == nil || !strings.Contains(err.Error(), "cursor") {
		t.Errorf("a bad cursor: %v", err)
	}
}

func TestManifestURIs(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	ctx := context.Background()
	tl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var templates []string
	for _, rt := range tl.ResourceTemplates {
		templates = append(templates, rt.URITemplate)
		if rt.URITemplate == manifestTemplate && !strings.Contains(rt.Description, "ctx://manifest?cursor=") {
			t.Errorf("the manifest template does not say how to page: %q", rt.Description)
		}
	}
	if !slices.Contains(templates, manifestTemplate) || !slices.Contains(templates, docTemplate) {
		t.Errorf("templates %v", templates)
	}
	for _, uri := range []string{"ctx://manifest?cursor=bogus", "ctx://manifest?page=2", "ctx://manifest?cursor=a&cursor=b"} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("%s: no error", uri)
		}
	}
	r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ctx://manifest?cursor="})
	if err != nil || !strings.Contains(r.Contents[0].Text, `"alias":"api"`) {
		t.Errorf("an empty cursor is the first page: %v", err)
	}
}

// TestNavDescriptions: the descriptions of the navigation tools and of the
// resources fit 2 KB each.
func TestNavDescriptions(t *testing.T) {
	t.Parallel()
	for name, d := range map[string]string{"list_contexts": listContextsDescription, "get_outline": getOutlineDescription,
		"list_tags": listTagsDescription, "manifest": manifestDescription} {
		if len(d) > 2048 {
			t.Errorf("%s: description of %d bytes, over 2 KB", name, len(d))
		}
	}
}
