package indexer

import (
	"context"
	"testing"
)

// TestBundlePageIsTheStampedOne (review of qset24b): the page whose title
// a document takes is the bundle page bundleOf stamped, one of the
// package's documents; a file the walk does not list (here an _index.md
// the folder's .gitignore ignores) neither titles a sibling nor hides the
// listed index.md that does. Before: readBundleTitle took the first of
// _index.md, index.md that was on disk, so an ignored draft's title
// reached the index, and a change to it went unseen (its stamp was not
// the document's).
func TestBundlePageIsTheStampedOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	writeFiles(t, dir, "site", map[string]string{
		".gitignore":      "_index.md\n",
		"guide/_index.md": "---\ntitle: Ignored draft title\n---\n{{% content \"README.md\" %}}\n",
		"guide/index.md":  "---\ntitle: Leaf page\n---\n{{% content \"README.md\" %}}\n",
		"guide/README.md": "## Purpose\n\nText about walruses.\n",
		"other/_index.md": "---\ntitle: Ignored again\n---\n{{% content \"README.md\" %}}\n",
		"other/index.md":  "---\ntitle: Other leaf\n---\n{{% content \"text.md\" %}}\n",
		"other/README.md": "## Overview\n\nText about okapis.\n",
		"other/text.md":   "## First\n\nText about quokkas.\n",
	})
	pkgs := []Package{dirPackage(dir, "site")}
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	docs, err := r.Documents("site")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range docs {
		got[d.Path] = d.Title
	}
	if _, ok := got["guide/_index.md"]; ok {
		t.Fatalf("the ignored guide/_index.md is a document: %v", got)
	}
	for p, w := range map[string]string{
		"guide/README.md": "Leaf page",
		"other/README.md": "Overview",
		"other/text.md":   "Other leaf",
	} {
		if got[p] != w {
			t.Errorf("%s: title %q, want %q (the listed index.md's)", p, got[p], w)
		}
	}
}
