package mcpserver

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"
)

// linkProject is a project of two packages whose documents link to each
// other: a book (mdBook .html links, a reference link) and KEPs (kep.yaml
// metadata, a see-also, a GitHub URL into the book's repository).
func linkProject(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "proj")
	ctxDir := filepath.Join(dir, ".context")
	pk := filepath.Join(ctxDir, "packages")
	for rel, content := range map[string]string{
		"book/ch04-01-what-is-ownership.md": "# What Is Ownership?\n\nOwnership is a set of rules about memory.\n",
		"book/ch03-02-data-types.md":        "# Data Types\n\nSee [the stack][stack].\n\n[stack]: ch04-01-what-is-ownership.html#the-stack\n",
		"book/ch05-01-structs.md":           "# Structs\n\nStructs hold fields; a [move](ch03-02-data-types.html) copies nothing.\n",
		"keps/sig-node/1-a/README.md":       "# KEP-1: Alpha\n\nCites the [book](https://github.com/rust-lang/book/blob/main/src/ch04-01-what-is-ownership.md).\n",
		"keps/sig-node/1-a/kep.yaml":        "title: Alpha\nkep-number: 1\nstatus: implementable\ncreation-date: 2020-05-01\nsee-also:\n  - /keps/sig-node/2-b\n",
		"keps/sig-node/2-b/README.md":       "# KEP-2: Beta\n\nNothing to cite. [gone](../3-c/README.md)\n",
		"keps/sig-node/2-b/kep.yaml":        "title: Beta\nkep-number: 2\nstatus: implemented\ncreation-date: 2022-01-01\n",
	} {
		writeFile(t, filepath.Join(pk, filepath.FromSlash(rel)), content)
	}
	lock := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{}}
	for a, src := range map[string][2]string{"book": {"https://github.com/rust-lang/book.git", "src"}, "keps": {"https://github.com/kubernetes/enhancements", "keps"}} {
		lock.Packages[a] = lockfile.Entry{Source: src[0], Path: src[1], Ref: "main",
			Rev: strings.Repeat("a1", 20), Tree: strings.Repeat("b2", 20),
			Hash: "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", Updated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	}
	if err := lockfiletest.WriteInstalled(ctxDir, lock); err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Sync(context.Background(), ctxDir, lockPackages(ctxDir, lock), indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestLinkTools: get_links (with backlinks across packages), get_metadata
// (kep.yaml fields, dates), find_documents (operators, pages) and related
// (by path and by query, within the budget), and their errors.
func TestLinkTools(t *testing.T) {
	t.Parallel()
	cs := connect(t, linkProject(t))

	var links GetLinksOut
	res := call(t, cs, "get_links", map[string]any{"package": "book", "path": "ch04-01-what-is-ownership.md"}, &links)
	if res.IsError || len(links.Backlinks) != 2 || links.Backlinks[0].From.Path != "ch03-02-data-types.md" ||
		links.Backlinks[1].From.Package != "keps" || links.Backlinks[1].Line != 3 {
		t.Fatalf("get_links: %s", text(res))
	}
	call(t, cs, "get_links", map[string]any{"package": "keps", "path": "sig-node/2-b/README.md"}, &links)
	if len(links.Links) != 1 || links.Links[0].Status != indexer.LinkBroken || len(links.Backlinks) != 1 || links.Backlinks[0].Type != "see-also" {
		t.Errorf("get_links 2-b: %+v", links)
	}
	wantError(t, call(t, cs, "get_links", map[string]any{"package": "book", "path": "nope.md"}, nil), `document "nope.md" not found in package "book"`)
	wantError(t, call(t, cs, "get_links", map[string]any{"package": "book", "path": "../x.md"}, nil))

	var meta GetMetadataOut
	res = call(t, cs, "get_metadata", map[string]any{"package": "keps", "path": "sig-node/1-a/README.md"}, &meta)
	if res.IsError || meta.Meta["status"] != "implementable" || meta.Meta["creation-date"] != "2020-05-01" || meta.Meta["kep-number"] != 1.0 ||
		meta.Links != 2 || meta.Commit == "" || meta.Title != "KEP-1: Alpha" {
		t.Errorf("get_metadata: %s", text(res))
	}

	var found FindDocumentsOut
	res = call(t, cs, "find_documents", map[string]any{"where": map[string]any{"creation-date": map[string]any{"$gt": "2021-01-01"}}}, &found)
	if res.IsError || len(found.Documents) != 1 || found.Documents[0].Path != "sig-node/2-b/README.md" {
		t.Errorf("find_documents $gt date: %s", text(res))
	}
	res = call(t, cs, "find_documents", map[string]any{"where": map[string]any{"kep-number": map[string]any{"$exists": true}}, "limit": 1}, &found)
	if res.IsError || len(found.Documents) != 1 || found.NextCursor != "1" || found.Total != 2 {
		t.Errorf("find_documents page: %s", text(res))
	}
	wantError(t, call(t, cs, "find_documents", map[string]any{"where": map[string]any{"a": map[string]any{"$near": 1}}}, nil), `unknown operator "$near"`)
	wantError(t, call(t, cs, "find_documents", map[string]any{}, nil), "give a filter")

	var rel RelatedOut
	res = call(t, cs, "related", map[string]any{"package": "book", "path": "ch05-01-structs.md"}, &rel)
	if res.IsError || len(rel.Documents) != 2 || rel.Documents[0].Path != "ch03-02-data-types.md" || rel.Documents[0].Distance != 1 ||
		rel.Documents[1].Path != "ch04-01-what-is-ownership.md" || rel.Documents[1].Distance != 2 {
		t.Errorf("related by path: %s", text(res))
	}
	res = call(t, cs, "related", map[string]any{"query": "ownership rules memory", "hops": 1}, &rel)
	if res.IsError || rel.Start.Path != "ch04-01-what-is-ownership.md" || rel.Total != 2 {
		t.Errorf("related by query: %s", text(res))
	}
	res = call(t, cs, "related", map[string]any{"package": "book", "path": "ch05-01-structs.md", "maxTokens": 140}, &rel)
	if res.IsError || !rel.Truncated || len(rel.Documents) != 1 {
		t.Errorf("related within 140 tokens: %s", text(res))
	}
	// A budget too small for one document is an error saying what is needed.
	wantError(t, call(t, cs, "related", map[string]any{"package": "book", "path": "ch05-01-structs.md", "maxTokens": 80}, nil), "too small", "give maxTokens")
	wantError(t, call(t, cs, "related", map[string]any{"query": "x", "package": "book", "path": "a.md"}, nil), "either query, or package and path")
	wantError(t, call(t, cs, "related", map[string]any{"package": "book", "path": "ch05-01-structs.md", "hops": 3}, nil), "hops", "2")
}
