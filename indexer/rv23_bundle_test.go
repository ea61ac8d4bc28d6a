package indexer

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
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

// TestBundleOfAllocatesNothing (review of qset24b): bundleOf is asked for
// every document of every freshness check (statDocs) and walk; on a
// package with no bundle pages it allocates nothing. Before: three
// allocations a document (two path.Join, markdown.IsDocument's Split),
// 12,000 for a package of 4,000 documents at each check.
func TestBundleOfAllocatesNothing(t *testing.T) {
	var docs []string
	for d := range 50 {
		for f := range 20 {
			docs = append(docs, fmt.Sprintf("dir%03d/sub/page%02d.md", d, f))
		}
	}
	rel := func(k int) string { return docs[k] }
	listed := func(k int) (*sideStamp, bool) { return &sideStamp{Size: 1}, true }
	if a := testing.AllocsPerRun(5, func() {
		for i := range docs {
			if s, p := bundleOf(i, len(docs), rel, listed); s != nil || p != "" {
				t.Fatalf("%s: bundle page %q", docs[i], p)
			}
		}
	}); a != 0 {
		t.Errorf("bundleOf over %d documents with no bundle page: %.0f allocations, want 0", len(docs), a)
	}
}

// TestCmpInDir: cmpInDir orders as strings.Compare with the joined path,
// for the names around a bundle page's in a sorted listing.
func TestCmpInDir(t *testing.T) {
	t.Parallel()
	names := []string{"", "a", "a.md", "a-b", "a/b", "a/_index.md", "a/_index.mdx", "a/index.md", "a/_", "a/z", "a0",
		"a/b/_index.md", "_index.md", "index.md", "ab/_index.md", "a.b/_index.md", "a!/x", "Z", "a/"}
	for _, dir := range []string{".", "a", "a/b", "ab"} {
		for _, name := range []string{"_index.md", "index.md"} {
			joined := path.Join(dir, name)
			for _, s := range names {
				if got, want := cmpInDir(s, dir, name), strings.Compare(s, joined); got != want {
					t.Errorf("cmpInDir(%q, %q, %q) = %d; strings.Compare(%q, %q) = %d", s, dir, name, got, s, joined, want)
				}
			}
		}
	}
}

// TestBundleLandingCarried (review of qset24b): a landing that touches a
// bundle page is carried (Stream.carriedWalk), not walked: the carried
// walk gives every document its bundle page's stamp again
// (bundleStamps over the merged list), so a README whose page changed,
// came or went is read again and titled as a walk would. Before: any
// touched _index.md or index.md, in a Hugo site most landings, walked
// the whole package.
func TestBundleLandingCarried(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "vm", map[string]string{
		"guide/_index.md": "---\ntitle: Deleting series\n---\n{{% content \"README.md\" %}}\n",
		"guide/README.md": "## Purpose\n\nRemove series through the walrus endpoint.\n",
		"other.md":        "# Other\n\nText.\n",
	})
	pkgs := []Package{{Alias: "vm", Rev: strings.Repeat("1", 40)}}
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	land := func(step string, touched []string, files map[string]string, remove string, want string) {
		t.Helper()
		writeFiles(t, dir, "vm", files)
		if remove != "" {
			if err := os.Remove(filepath.Join(dir, "packages", "vm", filepath.FromSlash(remove))); err != nil {
				t.Fatal(err)
			}
		}
		s, err := StartSync(ctx, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.LandedFiles(Package{Alias: "vm"}, touched)
		if _, err := s.drain(); err != nil {
			t.Fatal(err)
		}
		if _, ok := s.carriedWalk(withDirs(dir, pkgs)[0]); !ok {
			t.Errorf("%s: not carried", step)
		}
		s.dropWriter()
		s.lock.Unlock()
		s.cancel()
		s, err = StartSync(ctx, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.LandedFiles(Package{Alias: "vm"}, touched)
		if _, err := s.Finish(ctx, pkgs); err != nil {
			t.Fatal(err)
		}
		if got := bundleTitles(t, dir)["guide/README.md"]; got != want {
			t.Errorf("%s: README titled %q, want %q", step, got, want)
		}
		r, err := OpenReader(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if f, err := r.Freshness(pkgs); err != nil || !f.Fresh {
			t.Errorf("%s: freshness %+v %v, want fresh", step, f, err)
		}
	}
	land("bundle page retitled", []string{"guide/_index.md"},
		map[string]string{"guide/_index.md": "---\ntitle: Removing series\n---\n{{% content \"README.md\" %}}\n"}, "", "Removing series")
	land("bundle page removed", []string{"guide/_index.md"}, nil, "guide/_index.md", "Purpose")
	land("bundle page added", []string{"guide/index.md"},
		map[string]string{"guide/index.md": "---\ntitle: Leaf page\n---\n{{% content \"README.md\" %}}\n"}, "", "Leaf page")
}

// TestBundleOfMarkdownOnly (review of qset24b): only a markdown document
// can take a bundle page's title (parseMarkdown's titleFallback), so only
// one is stamped with the page and reads it: an rst, text or data file
// beside a Hugo section's _index.md was read again at every change of the
// page, and read the page at each parse, for a title it never takes.
func TestBundleOfMarkdownOnly(t *testing.T) {
	t.Parallel()
	files := []fileStat{
		{rel: "a/_index.md", size: 40},
		{rel: "a/b.rst", size: 1},
		{rel: "a/c.md", size: 1},
		{rel: "a/d.yaml", size: 1},
		{rel: "a/e.mdx", size: 1},
		{rel: "a/f.txt", size: 1},
	}
	bundleStamps(files)
	for _, f := range files {
		want := f.rel == "a/c.md" || f.rel == "a/e.mdx"
		if (f.bundle != nil) != want || (f.bundlePage == "a/_index.md") != want {
			t.Errorf("%s: bundle %v %q; want one: %v", f.rel, f.bundle, f.bundlePage, want)
		}
	}
}
