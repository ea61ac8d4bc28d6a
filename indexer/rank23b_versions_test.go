package indexer

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// copiesWith is copiesOf with each page's title and summary known, as the
// catalogue's records give them (pages: path → {title, summary}).
func copiesWith(pages map[string][2]string) map[string]string {
	paths := slices.Sorted(maps.Keys(pages))
	var titles, summaries []string
	for _, p := range paths {
		titles = append(titles, pages[p][0])
		summaries = append(summaries, pages[p][1])
	}
	return copiesIn(pages, paths, titles, summaries)
}

// Two chapters whose page names and titles repeat (intro.md
// "Introduction", exercises.md "Exercises", summary.md "Summary") look
// like two releases by names and titles alone; their texts differ, and a
// release's copies keep theirs. With the summaries known, the chapters
// are no family; releases whose pages name their version still are, and
// pages without a summary are judged as before.
func TestVersionFamiliesChaptersWithRepeatedTitles(t *testing.T) {
	t.Parallel()
	chapters := map[string][2]string{
		"book/1.1/intro.md":     {"Introduction", "This chapter installs the toolchain and runs a first program."},
		"book/1.1/exercises.md": {"Exercises", "Install the toolchain on a second machine."},
		"book/1.1/summary.md":   {"Summary", "You installed the toolchain."},
		"book/1.2/intro.md":     {"Introduction", "This chapter covers variables, types and constants."},
		"book/1.2/exercises.md": {"Exercises", "Declare a constant and print its type."},
		"book/1.2/summary.md":   {"Summary", "Variables hold values; constants do not change."},
		// Named as chapters, not versions: never a family.
		"book/part1/intro.md": {"Introduction", "Part one."},
		"book/part1/notes.md": {"Notes", "Notes of part one."},
		"book/part2/intro.md": {"Introduction", "Part two."},
		"book/part2/notes.md": {"Notes", "Notes of part two."},
	}
	for p, l := range copiesWith(chapters) {
		if l != "" {
			t.Errorf("%s is a copy (%q); want none: chapters, not releases", p, l)
		}
	}

	releases := map[string][2]string{
		"docs/main/install.md":  {"Install", "How to install Velero 1.14 on a cluster."},
		"docs/main/backup.md":   {"Backup", "Run a backup of the cluster."},
		"docs/main/restore.md":  {"Restore", "Restore from a backup."},
		"docs/v1.13/install.md": {"Install", "How to install Velero 1.13 on a cluster."},
		"docs/v1.13/backup.md":  {"Backup", "Run a backup of the cluster."},
		"docs/v1.13/restore.md": {"Restore", "Restore from a backup, new in 1.13."},
		"docs/v1.12/install.md": {"Install", "How to install  velero 1.12 on a cluster."},
		"docs/v1.12/backup.md":  {"Backup", "Run a backup of the  cluster."},
		"docs/v1.12/restore.md": {"Restore", "Restore from a backup of an older kind."},
		// No summaries: nothing said either way, copies as before.
		"site/v1/a.md": {"A", ""}, "site/v1/b.md": {"B", ""},
		"site/v2/a.md": {"A", ""}, "site/v2/b.md": {"B", ""},
	}
	got := copiesWith(releases)
	for p, want := range map[string]string{
		"docs/main/install.md": "main*", "docs/v1.13/install.md": "v1.13*", "docs/v1.12/restore.md": "v1.12",
		"site/v1/a.md": "v1", "site/v2/b.md": "v2*",
	} {
		if got[p] != want {
			t.Errorf("%s is %q, want %q", p, got[p], want)
		}
	}
}

func TestSummaryKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                               "",
		"  Install  Velero v1.13\n now ": "install velero v0 0 now",
		"Released 2024-10-01, build 77.": "released 0 0 0 build 0",
		"Ünïcode Text":                   "ünïcode text",
	} {
		if got := summaryKey(in); got != want {
			t.Errorf("summaryKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// The rule reaches what Sync records: a book's numbered chapters with the
// same page names and titles are recorded as no family, each chapter's
// introduction a hit of its own; a release's copies still are one.
func TestVersionsRecordedChapters(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "book", map[string]string{
		"book/1.1/intro.md":     "# Introduction\n\nThis chapter installs the toolchain and runs a first program.\n",
		"book/1.1/exercises.md": "# Exercises\n\nInstall the toolchain on a second machine.\n",
		"book/1.2/intro.md":     "# Introduction\n\nThis chapter covers the toolchain's variables and types.\n",
		"book/1.2/exercises.md": "# Exercises\n\nDeclare a constant with the toolchain.\n",
	})
	writeFiles(t, dir, "velero", map[string]string{
		"docs/main/backup.md":   "# Backup\n\nRun a backup of the cluster with the toolchain.\n",
		"docs/main/restore.md":  "# Restore\n\nRestore from a backup.\n",
		"docs/v1.13/backup.md":  "# Backup\n\nRun a backup of the cluster with the toolchain.\n\nMore in 1.13.\n",
		"docs/v1.13/restore.md": "# Restore\n\nRestore from a backup.\n",
	})
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "book"}, {Alias: "velero"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	read, _, derived := snapshotVersions(t, r)
	if derived {
		t.Fatalf("the search found the copies in its snapshot, not in %s", versionsFile)
	}
	for _, p := range []string{"book/1.1/intro.md", "book/1.2/intro.md", "book/1.1/exercises.md"} {
		if c := read.copies["book\x00"+p]; c != nil {
			t.Errorf("%s recorded as a copy (%s); want none", p, c.label)
		}
	}
	for _, p := range []string{"docs/main/backup.md", "docs/v1.13/backup.md", "docs/v1.13/restore.md"} {
		if read.copies["velero\x00"+p] == nil {
			t.Errorf("%s not recorded as a copy; want one", p)
		}
	}
	hits, err := r.Search(ctx, Query{Text: "toolchain", BestPerDocument: true})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, h := range hits {
		paths = append(paths, h.Path)
	}
	for _, want := range []string{"book/1.1/intro.md", "book/1.2/intro.md", "book/1.1/exercises.md", "book/1.2/exercises.md"} {
		if !slices.Contains(paths, want) {
			t.Errorf("hits %v; want %s among them (a chapter, not an older release)", paths, want)
		}
	}
}

// An index written by the ctx before this rule (versions.bin of magic 3,
// meta.json naming its ID) is read as before until the next Sync, which
// writes the families of this rule though no file changed.
func TestVersionsOlderRuleRecordedAgain(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "book", map[string]string{
		"book/1.1/intro.md":     "# Introduction\n\nThis chapter installs the toolchain.\n",
		"book/1.1/exercises.md": "# Exercises\n\nInstall the toolchain twice.\n",
		"book/1.2/intro.md":     "# Introduction\n\nThis chapter covers variables.\n",
		"book/1.2/exercises.md": "# Exercises\n\nDeclare a constant.\n",
	})
	ctx := context.Background()
	pkgs := []Package{{Alias: "book"}}
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	indexDir := filepath.Join(dir, "index")
	vp := filepath.Join(indexDir, versionsFile)
	b, err := os.ReadFile(vp)
	if err != nil {
		t.Fatal(err)
	}
	// What the older ctx wrote: its magic, and meta.json naming its ID.
	old := append([]byte("ctx-versions 3\n"), b[len(versionsMagic):]...)
	if err := os.WriteFile(vp, old, 0o644); err != nil {
		t.Fatal(err)
	}
	var m meta
	if err := readJSON(filepath.Join(indexDir, metaFile), &m); err != nil {
		t.Fatal(err)
	}
	m.Versions = "0123456789abcdef0123456789abcdef"
	mb, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(indexDir, metaFile), mb, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	if nb, err := os.ReadFile(vp); err != nil || !bytes.HasPrefix(nb, []byte(versionsMagic)) {
		t.Fatalf("after a Sync, %s starts %q (%v); want %q", versionsFile, nb[:min(len(nb), 16)], err, versionsMagic)
	}
	read, _, derived := versionsOfDir(t, dir)
	if derived {
		t.Errorf("after a Sync, the search found the copies in its snapshot, not in %s", versionsFile)
	}
	if len(read.copies) != 0 {
		t.Errorf("copies after a Sync:\n%s\nwant none (chapters)", dumpVersions(read))
	}
}

// inVersionFolderPath finds the version folders addVersionParents does;
// familyInput hashes the summaries only of a package that has one.
func TestFamilyInputSummaries(t *testing.T) {
	t.Parallel()
	for _, p := range []string{
		"docs/v1.13/a.md", "docs/V2/a.md", "versioned_docs/Version-3.13.x/a.md", "x/1.2/y/z.md",
		"docs/a.md", "docs/section-3/a.md", "v1.13.md", "docs/2/a.md", "docs/2024.01/a.md", "docs/vendor/a.md", "a/version-/b.md",
	} {
		parents := map[string]bool{}
		addVersionParents(p, parents)
		if got, want := inVersionFolderPath(p), len(parents) > 0; got != want {
			t.Errorf("inVersionFolderPath(%q) = %v, want %v", p, got, want)
		}
	}
	plain := []fileRecord{{Path: "docs/a.md", Chunks: 1, Title: "A", Summary: "one"}, {Path: "docs/b.md", Chunks: 1, Title: "B", Summary: "two"}}
	versioned := []fileRecord{{Path: "docs/v1/a.md", Chunks: 1, Title: "A", Summary: "one"}, {Path: "docs/v2/a.md", Chunks: 1, Title: "A", Summary: "one"}}
	for _, c := range []struct {
		name string
		recs []fileRecord
		same bool
	}{{"no version folder", plain, true}, {"a version folder", versioned, false}} {
		before := familyInput(c.recs)
		edited := slices.Clone(c.recs)
		edited[1].Summary = "another first paragraph"
		if got := familyInput(edited) == before; got != c.same {
			t.Errorf("%s: a summary edited keeps familyInput: %v, want %v", c.name, got, c.same)
		}
	}
}
