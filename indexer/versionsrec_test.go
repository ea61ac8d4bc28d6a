package indexer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// dumpVersions is vm's copies, one line each, in path order: the family's
// copies by label, and the copy's label and head mark.
func dumpVersions(vm *versionMap) string {
	var lines []string
	for k, c := range vm.copies {
		var fam []string
		for _, o := range vm.families[c.family] {
			fam = append(fam, fmt.Sprintf("%s%v", o.label, o.nums))
		}
		lines = append(lines, fmt.Sprintf("%q %s%v head=%v family=%s", k, c.label, c.nums, c.head, strings.Join(fam, ",")))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// versionsOfDir opens a Reader of dir's index, reads its versioned
// copies as snapshotVersions does, and closes it.
func versionsOfDir(t *testing.T, dir string) (read, found *versionMap, derived bool) {
	t.Helper()
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return snapshotVersions(t, r)
}

// snapshotVersions returns what the Reader's search reads (versionsOf)
// and what its snapshot holds (readVersions), and whether the first was
// found in the snapshot rather than read from versions.bin.
func snapshotVersions(t *testing.T, r *Reader) (read, found *versionMap, derived bool) {
	t.Helper()
	ctx := context.Background()
	open, release, err := r.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	adv, err := open.idx.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	rdr, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Close()
	before := open.cache.derived
	if read, err = open.cache.versionsOf(ctx, rdr, r.indexDir(), open.versions); err != nil {
		t.Fatal(err)
	}
	kinded, err := open.cache.kindedChunks(ctx, rdr)
	if err != nil {
		t.Fatal(err)
	}
	if found, err = readVersions(ctx, rdr, kinded); err != nil {
		t.Fatal(err)
	}
	return read, found, open.cache.derived > before
}

// TestVersionsRecordedAtIndexTime: Sync records the versioned copies in
// versions.bin, named by meta.json, and a search reads them instead of
// finding them in its snapshot (issue 31: about 5 ms of CPU a `ctx
// search`); what it reads is what the snapshot holds, after a build, a
// one-file update that adds a release, one that gives a copy a kind, and
// one that changes nothing of the families. An index without the record
// (an older ctx's), or whose meta.json names another, is read as before.
func TestVersionsRecordedAtIndexTime(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "velero", map[string]string{
		"docs/main/backup.md":       "# Backup\n\nrun a backup of the cluster\n",
		"docs/main/restore.md":      "# Restore\n\nrestore from a backup\n",
		"docs/v1.13/backup.md":      "# Backup\n\nrun a backup of the cluster\n",
		"docs/v1.13/restore.md":     "# Restore\n\nrestore from a backup\n",
		"docs/v1.10/backup.md":      "# Backup\n\nrun a backup of the cluster\n",
		"docs/v1.10/restore.md":     "# Restore\n\nrestore from a backup\n",
		"changelog/v1.2/notes.md":   "# Release 1.2\n\nthe backup fix\n",
		"changelog/v1.2/upgrade.md": "# Upgrade to 1.2\n\nsteps\n",
		"changelog/v1.3/notes.md":   "# Release 1.3\n\nthe backup fix again\n",
		"changelog/v1.3/upgrade.md": "# Upgrade to 1.3\n\nsteps\n",
	})
	writeFiles(t, dir, "plain", map[string]string{"a.md": "# A\n\nbackup words\n"})
	pkgs := []Package{{Alias: "plain"}, {Alias: "velero"}}
	ctx := context.Background()
	indexDir := filepath.Join(dir, "index")
	check := func(step string, wantCopies int) {
		t.Helper()
		if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
			t.Fatal(err)
		}
		read, found, derived := versionsOfDir(t, dir)
		if derived {
			t.Errorf("%s: the search found the copies in its snapshot, not in %s", step, versionsFile)
		}
		if got, want := dumpVersions(read), dumpVersions(found); got != want {
			t.Errorf("%s: recorded copies\n%s\nwant the snapshot's\n%s", step, got, want)
		}
		if len(found.copies) != wantCopies {
			t.Errorf("%s: %d copies, want %d:\n%s", step, len(found.copies), wantCopies, dumpVersions(found))
		}
	}
	check("build", 6)
	writeFiles(t, dir, "velero", map[string]string{
		"docs/v1.14/backup.md":  "# Backup\n\nrun a backup of the cluster\n",
		"docs/v1.14/restore.md": "# Restore\n\nrestore from a backup\n",
	})
	check("a release added", 8)
	writeFiles(t, dir, "velero", map[string]string{
		"docs/v1.10/restore.md": "# Upgrading to 1.10\n\nrestore from a backup\n",
	})
	check("a copy made a kind", 6)
	before, err := os.Stat(filepath.Join(indexDir, versionsFile))
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, "plain", map[string]string{"a.md": "# A\n\nbackup words, more of them\n"})
	check("another package edited", 6)
	writeFiles(t, dir, "velero", map[string]string{"docs/v1.13/backup.md": "# Backup\n\nrun a backup of the cluster\n\nthen read its logs\n"})
	check("a copy's text edited below its summary", 6)
	if after, err := os.Stat(filepath.Join(indexDir, versionsFile)); err != nil || !os.SameFile(before, after) {
		t.Errorf("%s written again by updates that changed no page's path, title, kind or summary (%v)", versionsFile, err)
	}
	// A summary is what tells a release's copy from a chapter's page
	// (copiedFolders): editing one finds the families again; a copy whose
	// first paragraph grew is still one.
	writeFiles(t, dir, "velero", map[string]string{"docs/v1.13/backup.md": "# Backup\n\nrun a backup of the whole cluster\n"})
	check("a copy's summary edited", 6)

	// A torn versions.bin is not read: the search finds the copies in its
	// snapshot.
	vb, err := os.ReadFile(filepath.Join(indexDir, versionsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(indexDir, versionsFile), vb[:len(vb)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	read, found, derived := versionsOfDir(t, dir)
	if !derived || dumpVersions(read) != dumpVersions(found) {
		t.Errorf("a torn %s: derived %v, copies\n%s\nwant the snapshot's\n%s", versionsFile, derived, dumpVersions(read), dumpVersions(found))
	}
	if err := os.WriteFile(filepath.Join(indexDir, versionsFile), vb, 0o644); err != nil {
		t.Fatal(err)
	}

	// An unreadable versions.bin (here a folder: reading it fails as an
	// I/O error or a permission would) is not read either: the search
	// finds the copies in its snapshot, as when there is no file.
	vp := filepath.Join(indexDir, versionsFile)
	if err := os.Remove(vp); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(vp, 0o755); err != nil {
		t.Fatal(err)
	}
	read, found, derived = versionsOfDir(t, dir)
	if !derived || dumpVersions(read) != dumpVersions(found) {
		t.Errorf("an unreadable %s: derived %v, copies\n%s\nwant the snapshot's\n%s", versionsFile, derived, dumpVersions(read), dumpVersions(found))
	}
	if err := os.Remove(vp); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vp, vb, 0o644); err != nil {
		t.Fatal(err)
	}

	// An older ctx's index: no Versions in meta.json. The search finds the
	// copies in its snapshot.
	var m meta
	if err := readJSON(filepath.Join(indexDir, metaFile), &m); err != nil {
		t.Fatal(err)
	}
	if m.Versions == "" {
		t.Fatal("meta.json names no versions")
	}
	for _, id := range []string{"", "0123"} {
		m.Versions = id
		b, _ := json.Marshal(m)
		if err := os.WriteFile(filepath.Join(indexDir, metaFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		read, found, derived := versionsOfDir(t, dir)
		if !derived || dumpVersions(read) != dumpVersions(found) {
			t.Errorf("meta.json naming %q: derived %v, copies\n%s\nwant the snapshot's\n%s", id, derived, dumpVersions(read), dumpVersions(found))
		}
	}
}

// TestVersionsOlderCatalogue: parts written by an older ctx carry no
// kinds, so their package's copies are not recorded (the search finds them
// in its snapshot) until its files are read again.
func TestVersionsOlderCatalogue(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "velero", map[string]string{
		"docs/main/backup.md":   "# Backup\n\nrun a backup of the cluster\n",
		"docs/main/restore.md":  "# Restore\n\nrestore from a backup\n",
		"docs/v1.13/backup.md":  "# Backup\n\nrun a backup of the cluster\n",
		"docs/v1.13/restore.md": "# Restore\n\nrestore from a backup\n",
	})
	pkgs := []Package{{Alias: "velero"}}
	ctx := context.Background()
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	// What an older ctx left: no kinds in the catalogue's top, no
	// versions.bin, no Versions in meta.json.
	indexDir := filepath.Join(dir, "index")
	var top map[string]any
	if err := readJSON(filepath.Join(indexDir, catalogFile), &top); err != nil {
		t.Fatal(err)
	}
	for _, p := range top["parts"].(map[string]any) {
		delete(p.(map[string]any), "kinds")
	}
	b, _ := json.Marshal(top)
	if err := os.WriteFile(filepath.Join(indexDir, catalogFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	var m meta
	if err := readJSON(filepath.Join(indexDir, metaFile), &m); err != nil {
		t.Fatal(err)
	}
	m.Versions = ""
	b, _ = json.Marshal(m)
	if err := os.WriteFile(filepath.Join(indexDir, metaFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(indexDir, versionsFile)); err != nil {
		t.Fatal(err)
	}
	// A one-file update: the other records are the older ctx's.
	writeFiles(t, dir, "velero", map[string]string{"docs/main/backup.md": "# Backup\n\nrun a backup of the whole cluster\n"})
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	read, found, derived := versionsOfDir(t, dir)
	if !derived || dumpVersions(read) != dumpVersions(found) || len(found.copies) != 4 {
		t.Errorf("older records: derived %v, copies\n%s\nwant the snapshot's\n%s", derived, dumpVersions(read), dumpVersions(found))
	}
	// Every file read again (a rebuild): recorded.
	if _, err := Sync(ctx, dir, pkgs, Options{Rebuild: true}); err != nil {
		t.Fatal(err)
	}
	if read, found, derived = versionsOfDir(t, dir); derived || dumpVersions(read) != dumpVersions(found) {
		t.Errorf("after a rebuild: derived %v, copies\n%s\nwant\n%s", derived, dumpVersions(read), dumpVersions(found))
	}
}

// TestVersionsRecordedTitles: the families recorded at index time know
// the pages' titles: two numbered chapters whose shared page names hold
// other pages are not a release family, and a search lists both.
func TestVersionsRecordedTitles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "course", map[string]string{
		"course/1.1/intro.md":     "# Getting around the shell\n\nthe shell prompt and its history\n",
		"course/1.1/exercises.md": "# Exercises: the shell\n\npractise the shell prompt\n",
		"course/1.2/intro.md":     "# Files and folders\n\nthe shell and files\n",
		"course/1.2/exercises.md": "# Exercises: files\n\npractise the shell with files\n",
	})
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "course"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hits, err := r.Search(ctx, Query{Text: "shell", BestPerDocument: true})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, h := range hits {
		paths = append(paths, h.Path)
		if len(h.Versions) > 0 {
			t.Errorf("%s: versions %v, want none", h.Path, h.Versions)
		}
	}
	if len(paths) != 4 {
		t.Errorf("hits %v, want the four pages", paths)
	}
}

// TestDecodeVersionsDamaged: versions.bin round-trips, and every cut or
// changed byte of it is an error or a record, never a panic or a large
// allocation (a count is bounded by the bytes left).
func TestDecodeVersionsDamaged(t *testing.T) {
	t.Parallel()
	data := versionsData{ID: "id", Packages: map[string]pkgVersions{
		"p": {Input: "in", Families: []recordedFamily{{Key: "docs\x00a.md", Copies: []recordedCopy{
			{Path: "docs/a.md", Label: "current", Head: true},
			{Path: "docs/v1.2/a.md", Label: "v1.2", Nums: []int{1, 2}},
		}}}},
		"q": {Unknown: true},
	}}
	b := encodeVersions(data)
	got, err := decodeVersions(bytes.Clone(b))
	if err != nil || fmt.Sprint(got) != fmt.Sprint(data) {
		t.Fatalf("round trip: %v, %v; want %v", got, err, data)
	}
	for i := range b {
		if _, err := decodeVersions(bytes.Clone(b[:i])); err == nil {
			t.Errorf("cut at %d of %d: no error", i, len(b))
		}
		c := bytes.Clone(b)
		c[i] ^= 0xff
		decodeVersions(c)
	}
}

// TestDecodeVersionsLargeNumbers: a version's numbers are not bounded by
// the file's length (a count is): a small versions.bin with CalVer
// copies (2024.1, 2023.3) or a dated version (v20240115) is read, not
// taken for a damaged one and found again in the snapshot on every
// search.
func TestDecodeVersionsLargeNumbers(t *testing.T) {
	t.Parallel()
	data := versionsData{ID: "id", Packages: map[string]pkgVersions{
		"p": {Input: "in", Families: []recordedFamily{{Key: "site\x00a.md", Copies: []recordedCopy{
			{Path: "site/2024.1/a.md", Label: "2024.1", Nums: []int{2024, 1}, Head: true},
			{Path: "site/v20240115/a.md", Label: "v20240115", Nums: []int{20240115}},
		}}}},
	}}
	b := encodeVersions(data)
	got, err := decodeVersions(bytes.Clone(b))
	if err != nil || fmt.Sprint(got) != fmt.Sprint(data) {
		t.Fatalf("%d bytes: %v, %v; want %v", len(b), got, err, data)
	}
}

// TestDecodeVersionsPlanted: a planted or damaged versions.bin whose
// counts claim as many items as it has bytes makes the decoder allocate
// no more than a few times its size. Each count was bounded by the bytes
// left only, and a family's or copy's slice is 40 or 64 bytes an item:
// a 1 MB file allocated 100 MB before failing. (Not parallel: the
// allocation figure is the process's.)
func TestDecodeVersionsPlanted(t *testing.T) {
	const size = 1 << 20
	var cases [][]byte
	for _, depth := range []int{0, 1} {
		b := []byte(versionsMagic)
		b = binary.AppendUvarint(b, 0) // ID
		b = binary.AppendUvarint(b, 1) // one package
		b = append(b, 0, 0, 0)         // alias, input, not unknown
		b = binary.AppendUvarint(b, size)
		if depth == 1 { // a family whose copies fill the file
			b = binary.AppendUvarint(b, 0)
			b = binary.AppendUvarint(b, size)
		}
		cases = append(cases, append(b, make([]byte, size)...))
	}
	for i, b := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := decodeVersions(b); err == nil {
			t.Fatalf("case %d: no error", i)
		}
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > 24*size {
			t.Errorf("case %d: %d MB allocated to decode %d MB", i, got>>20, len(b)>>20)
		}
	}
}

// TestVersionsMagicFollowsRule: versions.bin is trusted by its ID, a hash
// of what the families are found from, not of the rule that finds them
// (versionFamilies): a ctx whose rule changed would read an older ctx's
// file as its own until a package's pages change, unless versionsMagic
// changed with the rule. This pins the rule's answers on layouts that
// exercise each of its parts to the magic: when it fails, bump the magic
// and record the new figure.
func TestVersionsMagicFollowsRule(t *testing.T) {
	t.Parallel()
	layouts := []map[string]string{
		{"docs/main/a.md": "A", "docs/main/b.md": "B", "docs/v1.13/a.md": "A", "docs/v1.13/b.md": "B", "docs/v1.10/a.md": "A", "docs/v1.10/b.md": "B", "docs/v1.10/index.md": "x"},
		{"docs/a.md": "A", "docs/b.md": "B", "versioned_docs/version-v0.1/a.md": "A", "versioned_docs/version-v0.1/b.md": "B", "versioned_docs/version-3.13.x/a.md": "A", "versioned_docs/version-3.13.x/b.md": "B"},
		{"book/1.1/intro.md": "Introduction", "book/1.1/summary.md": "Summary", "book/1.1/x.md": "X", "book/1.1/y.md": "Y", "book/1.2/intro.md": "Introduction", "book/1.2/summary.md": "Summary", "book/1.2/z.md": "Z", "book/1.2/w.md": "W"},
		{"c/1.1/a.md": "One", "c/1.1/b.md": "Two", "c/1.2/a.md": "Three", "c/1.2/b.md": "Four"},
		{"m/2024.01/a.md": "a", "m/2024.01/b.md": "b", "m/2024.02/a.md": "a", "m/2024.02/b.md": "b", "s/2024.1/a.md": "A", "s/2024.1/b.md": "B", "s/2023.3/a.md": "A", "s/2023.3/b.md": "B"},
		{"d/v1/a.md": "A", "d/v1/b.md": "B", "d/v2/a.md": "A", "d/v2/b.md": "B", "d/v2/c.md": "C", "d/2/a.md": "A", "d/2/b.md": "B"},
		{"e/v1/a.md": "A", "e/v1/b.md": "B", "e/v2/a.md": "A", "e/v2/b.md": "B", "e/v2/c.md": "C", "e/v2/d.md": "D"},
		{"f/v1/a.md": "A", "f/v1/b.md": "B", "f/v1/c.md": "C", "f/v2/a.md": "A", "f/v2/b.md": "B", "f/v2/x.md": "X", "f/v2/y.md": "Y", "f/v3/a.md": "A", "f/v3/b.md": "B", "f/v3/c.md": "C", "f/v3/d.md": "D", "f/v3/e.md": "E", "f/v3/g.md": "G"},
		{"s/2024.9/a.md": "A", "s/2024.9/b.md": "B", "s/2024.10/a.md": "A", "s/2024.10/b.md": "B", "n/2024.09/a.md": "A", "n/2024.09/b.md": "B", "n/2024.10/a.md": "A", "n/2024.10/b.md": "B"},
	}
	// With summaries (keptSummaries): chapters that repeat names and
	// titles, releases whose first paragraph grew or names its version.
	summed := []map[string][2]string{
		{"b/1.1/intro.md": {"Introduction", "This chapter installs the toolchain."}, "b/1.1/summary.md": {"Summary", "You installed it."},
			"b/1.2/intro.md": {"Introduction", "This chapter covers variables."}, "b/1.2/summary.md": {"Summary", "Variables hold values."}},
		{"d/v1/a.md": {"A", "Install v1 here."}, "d/v1/b.md": {"B", "Back up the cluster."},
			"d/v2/a.md": {"A", "Install v2 here."}, "d/v2/b.md": {"B", "Back up the cluster, then read its logs."}},
		{"e/v1/a.md": {"A", ""}, "e/v1/b.md": {"B", "Back up."}, "e/v2/a.md": {"A", ""}, "e/v2/b.md": {"B", "Restore."}},
	}
	var all []string
	for i, pages := range layouts {
		for p, l := range copiesOf(pages) {
			all = append(all, fmt.Sprintf("%d %s %s", i, p, l))
		}
	}
	for i, pages := range summed {
		for p, l := range copiesWith(pages) {
			all = append(all, fmt.Sprintf("s%d %s %s", i, p, l))
		}
	}
	slices.Sort(all)
	sum := sha256.Sum256([]byte(strings.Join(all, "\n")))
	got := hex.EncodeToString(sum[:8])
	const magic, want = "ctx-versions 4\n", "6eda37e26d811b54"
	if versionsMagic == magic && got != want {
		t.Errorf("versionFamilies answers otherwise (%s, was %s) and versionsMagic is still %q: bump it, then pin the new figure here\n%s", got, want, magic, strings.Join(all, "\n"))
	}
}

// FuzzDecodeVersions: any versions.bin decodes to an error or to data
// that encodes and decodes again to the same data, never a panic.
func FuzzDecodeVersions(f *testing.F) {
	f.Add(encodeVersions(versionsData{ID: "id", Packages: map[string]pkgVersions{
		"p": {Input: "in", Families: []recordedFamily{{Key: "docs\x00a.md", Copies: []recordedCopy{
			{Path: "docs/a.md", Label: "current", Head: true},
			{Path: "docs/v1.2/a.md", Label: "v1.2", Nums: []int{1, 2024}},
		}}}},
		"q": {Unknown: true},
	}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		data, err := decodeVersions(b)
		if err != nil {
			return
		}
		again, err := decodeVersions(encodeVersions(data))
		if err != nil || fmt.Sprint(again) != fmt.Sprint(data) {
			t.Fatalf("decoded %v; encoded and decoded again: %v, %v", data, again, err)
		}
	})
}
