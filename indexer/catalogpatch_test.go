package indexer

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Every part a test of this package writes by splicing records read from
// the part before is checked against encoding/json's encoding of all its
// records (makePart fails when they differ).
func init() { checkPartSplice = true }

// patchCorpus writes a package whose records hold what JSON may spell in
// more than one way: front matter with numbers, dates, nested values and
// HTML characters, links, tags, rst labels, names that are not ASCII, a
// file too big to index and one that is not text.
func patchCorpus(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".context")
	files := map[string]string{
		"meta.md": "---\ntitle: Numbers <&> \"quotes\"\nsummary: A <b>summary</b> & more.\ntags: [a, b]\n" +
			"version: 1.50\nbig: 12345678901234567890\nsmall: 1e-7\nwhen: 2024-01-02\nnested: {x: [1, 2.5, true, null], y: \"\\u2028\"}\n---\n" +
			"# Meta\n\nSee [the guide](guide.md) and [[Wiki Page]].\n",
		"guide.md":  "# Guide ñ ✓\n\nA [link](meta.md#meta), ![img](x.png).\n",
		"ref.rst":   "Title\n=====\n\n.. _my-label:\n\nSection\n-------\n\nText :ref:`my-label`.\n",
		"big.md":    "# Big\n\n" + strings.Repeat("x", maxFileSize+1),
		"binary.md": "PNG\x00\x00binary",
		"é/ü.md":    "# Ünïcödé\n\nbody\n",
	}
	for i := range 30 {
		files[filepath.Join("many", strings.Repeat("p", i%3+1)+string(rune('a'+i%26))+".md")] = "# Page\n\nText of a page.\n"
	}
	writeFiles(t, dir, "docs", files)
	return dir
}

func patchPackages() []Package {
	return []Package{{Alias: "docs", Source: "https://git.example/docs.git", Rev: strings.Repeat("3", 40)}}
}

// partBytes reads the package's part and what encoding/json makes of its
// records: the two must be the same bytes.
func partBytes(t *testing.T, dir string) (got, want []byte, recs []fileRecord) {
	t.Helper()
	part := topParts(t, dir)["docs"]
	got, err := os.ReadFile(filepath.Join(dir, "index", catalogDir, part.File))
	if err != nil {
		t.Fatal(err)
	}
	var pf partFile
	if err := json.Unmarshal(got, &pf); err != nil {
		t.Fatal(err)
	}
	want, err = json.Marshal(pf)
	if err != nil {
		t.Fatal(err)
	}
	return got, append(want, '\n'), pf.Files
}

// TestPartPatchEncodesChangedRecords: a part read back and written again
// with one record changed encodes that record only; the others are the
// bytes read, and the part is byte for byte what encoding the records
// whole gives (so its name, the hash of its content, too).
func TestPartPatchEncodesChangedRecords(t *testing.T) {
	t.Parallel()
	dir := patchCorpus(t)
	if _, err := Sync(context.Background(), dir, patchPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	// A Reader's catalogue keeps the records only (the part's bytes would
	// stay in memory as long as they do); a Sync's plan keeps the bytes.
	cat, err := readCatalog(filepath.Join(dir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	read, err := cat.records(filepath.Join(dir, "index"), "docs")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range read {
		if r.raw != nil {
			t.Fatalf("%s: a catalogue read for reading kept the record's bytes", r.Path)
		}
	}
	plan := readPlanState(filepath.Join(dir, "index"), false, func(string) {})
	recs, err := plan.cat.records(filepath.Join(dir, "index"), "docs")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.raw == nil {
			t.Fatalf("%s: read for writing without its bytes", r.Path)
		}
	}
	data, encoded, err := encodePart("docs", recs)
	if err != nil || encoded != 0 {
		t.Fatalf("the part as read: %d records encoded (%v); want 0", encoded, err)
	}
	if got, _, _ := partBytes(t, dir); !bytes.Equal(data, got) {
		t.Fatalf("the part as read, written again:\n%s\nwant\n%s", data, got)
	}
	for i := range recs {
		if recs[i].Path != "meta.md" {
			continue
		}
		r := recs[i]
		r.raw = nil
		r.Title, r.Tokens = "Changed </script>", r.Tokens+1
		recs[i] = r
	}
	data, encoded, err = encodePart("docs", recs)
	if err != nil || encoded != 1 {
		t.Fatalf("one record changed: %d records encoded (%v); want 1", encoded, err)
	}
	if cap(data) != len(data) {
		t.Errorf("one record changed: the part is %d bytes in a buffer of %d; want one of its size", len(data), cap(data))
	}
	want, err := json.Marshal(partFile{Schema: schemaVersion, Alias: "docs", Files: recs})
	if err != nil {
		t.Fatal(err)
	}
	if want = append(want, '\n'); !bytes.Equal(data, want) {
		t.Errorf("one record changed:\n%s\nwant\n%s", data, want)
	}
	p, pdata, err := makePart("docs", recs)
	if err != nil || !bytes.Equal(pdata, want) || p.Records != len(recs) {
		t.Errorf("makePart: %+v, %v; want the same bytes", p, err)
	}
}

// TestPartPatchSync: one-file Syncs of a package (its content changed; a
// file touched with its content the same; a file added and one removed)
// write parts that are byte for byte encoding/json's of their records, and
// each record holds the file's stat data as it is now.
func TestPartPatchSync(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := patchCorpus(t)
	if _, err := Sync(ctx, dir, patchPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	pkgDir := filepath.Join(dir, "packages", "docs")
	steps := []struct {
		name string
		do   func()
	}{
		{"content changed", func() {
			writeFiles(t, dir, "docs", map[string]string{"guide.md": "# Guide, second edition\n\nNew text.\n"})
		}},
		{"touched, same content", func() {
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(filepath.Join(pkgDir, "ref.rst"), later, later); err != nil {
				t.Fatal(err)
			}
		}},
		{"added and removed", func() {
			writeFiles(t, dir, "docs", map[string]string{"new.md": "# New\n\nA new page.\n"})
			if err := os.Remove(filepath.Join(pkgDir, "many", "pa.md")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, s := range steps {
		s.do()
		if _, err := Sync(ctx, dir, patchPackages(), Options{}); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		got, want, recs := partBytes(t, dir)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the part\n%s\nwant encoding/json's\n%s", s.name, got, want)
		}
		for _, r := range recs {
			fi, err := os.Stat(filepath.Join(pkgDir, filepath.FromSlash(r.Path)))
			if err != nil {
				t.Errorf("%s: %s recorded: %v", s.name, r.Path, err)
				continue
			}
			if r.Size != fi.Size() || r.ModNS != fi.ModTime().UnixNano() {
				t.Errorf("%s: %s recorded with size %d, mtime %d; the file has %d, %d", s.name, r.Path, r.Size, r.ModNS, fi.Size(), fi.ModTime().UnixNano())
			}
		}
		checkPartsLive(t, dir)
	}
}

// TestRecordSpans: the spans of a part's records are found past strings
// holding braces, brackets, quotes and backslashes; a part whose records
// are not what its data holds gives none.
func TestRecordSpans(t *testing.T) {
	recs := []fileRecord{
		{Path: `a{[".md`, Title: `}]\"\\`, Meta: map[string]any{"k": []any{"{", map[string]any{"]": "["}}}},
		{Path: "b.md", Links: []rawLink{{Type: "link", Target: "x}"}}},
		{Path: "c.md"},
	}
	data, err := json.Marshal(partFile{Schema: schemaVersion, Alias: `al"ias{`, Files: recs})
	if err != nil {
		t.Fatal(err)
	}
	spans := recordSpans(data, len(recs))
	if len(spans) != len(recs) {
		t.Fatalf("%d spans; want %d", len(spans), len(recs))
	}
	for i, r := range recs {
		want, _ := json.Marshal(r)
		if !bytes.Equal(spans[i], want) {
			t.Errorf("span %d: %s; want %s", i, spans[i], want)
		}
	}
	if spans := recordSpans(data, 2); spans != nil {
		t.Errorf("3 records for 2: %d spans; want none", len(spans))
	}
	empty, _ := json.Marshal(partFile{Schema: schemaVersion, Alias: "x"})
	if spans := recordSpans(empty, 0); len(spans) != 0 {
		t.Errorf("no records: %d spans", len(spans))
	}
}

// TestReadPartKeepsBytesOfItsOwnLayoutOnly: a part keeps its records'
// bytes only when it is laid out as encodePart writes it; one that decodes
// to the same count of records but is laid out otherwise (a null record and
// another array of objects, as a hand-edited or hostile part may be;
// spaces) keeps none, so the next write encodes it whole rather than
// copying bytes that are not its records'.
func TestReadPartKeepsBytesOfItsOwnLayoutOnly(t *testing.T) {
	indexDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(indexDir, catalogDir), 0o755); err != nil {
		t.Fatal(err)
	}
	canonical, err := json.Marshal(partFile{Schema: schemaVersion, Alias: "docs", Files: []fileRecord{{Path: "a.md"}, {Path: "b.md", Title: "B"}}})
	if err != nil {
		t.Fatal(err)
	}
	indented, err := json.MarshalIndent(partFile{Schema: schemaVersion, Alias: "docs", Files: []fileRecord{{Path: "a.md"}, {Path: "b.md"}}}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	head, err := partHead("docs")
	if err != nil {
		t.Fatal(err)
	}
	hostile := string(head) + `null,{"path":"b.md"}],"x":[{"path":"b.md","title":"INJECTED"}]}` + "\n"
	for _, c := range []struct {
		name string
		data string
		kept bool
	}{
		{"its own layout", string(canonical) + "\n", true},
		{"a null record and another array", hostile, false},
		{"indented", string(indented) + "\n", false},
		{"no newline at the end", string(canonical), false},
	} {
		if err := os.WriteFile(filepath.Join(indexDir, catalogDir, "p.json"), []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		recs, err := readPart(indexDir, "docs", catalogPart{File: "p.json", Records: 2}, true)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, r := range recs {
			if kept := r.raw != nil; kept != c.kept {
				t.Errorf("%s: record %q kept bytes %v, want %v (%s)", c.name, r.Path, kept, c.kept, r.raw)
			}
			if r.raw != nil {
				if want, _ := json.Marshal(r); !bytes.Equal(r.raw, want) {
					t.Errorf("%s: record %q kept %s, its encoding is %s", c.name, r.Path, r.raw, want)
				}
			}
		}
	}
}
