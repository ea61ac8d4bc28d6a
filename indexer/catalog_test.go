package indexer

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// partFiles lists the files in the index's catalog/ folder, sorted.
func partFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, "index", catalogDir))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// topParts reads the top of the catalogue: alias → part.
func topParts(t *testing.T, dir string) map[string]catalogPart {
	t.Helper()
	c, err := readCatalog(filepath.Join(dir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	return c.Parts
}

// checkPartsLive fails unless catalog/ holds exactly the parts the top
// names, each readable.
func checkPartsLive(t *testing.T, dir string) {
	t.Helper()
	parts := topParts(t, dir)
	want := []string{}
	for alias, p := range parts {
		want = append(want, p.File)
		if _, err := readPart(filepath.Join(dir, "index"), alias, p, false); err != nil {
			t.Errorf("part of %s: %v", alias, err)
		}
	}
	slices.Sort(want)
	got := []string{}
	for _, name := range partFiles(t, dir) {
		if partFileRE().MatchString(name) {
			got = append(got, name)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("catalog/ holds %v, the top names %v", got, want)
	}
}

func documentTitles(t *testing.T, dir string) []string {
	t.Helper()
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	docs, err := r.Documents("")
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, d := range docs {
		titles = append(titles, d.Package+"/"+d.Path+": "+d.Title)
	}
	return titles
}

// An index written before the catalogue was in parts (schema 11: one
// catalog.json with every record) is rebuilt, into parts.
func TestCatalogOldSingleFileRebuilds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	c, err := readCatalog(filepath.Join(dir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.loadAllCtx(context.Background(), filepath.Join(dir, "index")); err != nil {
		t.Fatal(err)
	}
	old := map[string]any{"schema": 11, "packages": c.Packages, "files": c.Files, "indexMD": c.IndexMD}
	b, _ := json.Marshal(old)
	if err := os.WriteFile(filepath.Join(dir, "index", catalogFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "index", catalogDir)); err != nil {
		t.Fatal(err)
	}
	p := plan(t, dir, testPackages(), false)
	if !p.rebuild || p.why != "the catalogue is missing or from another version of ctx" {
		t.Errorf("plan over a one-file catalogue: rebuild %v (%q)", p.rebuild, p.why)
	}
	rep, err := Sync(ctx, dir, testPackages(), Options{})
	if err != nil || !rep.Rebuilt || rep.Added != 6 {
		t.Fatalf("Sync over a one-file catalogue: %+v %v, want a rebuild of 6 documents", rep, err)
	}
	if parts := topParts(t, dir); len(parts) != 2 || parts["guides"].Records != 4 || parts["ops"].Records != 2 {
		t.Errorf("parts after the rebuild: %+v", parts)
	}
	checkPartsLive(t, dir)
	if got := documentTitles(t, dir); len(got) != 5 {
		t.Errorf("documents after the rebuild: %q", got)
	}
}

// A Sync whose files changed in one package reads and writes that
// package's part only: another package's part, even unreadable, is left
// alone.
func TestCatalogReadsChangedPartsOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	before := topParts(t, dir)
	opsPart := filepath.Join(dir, "index", catalogDir, before["ops"].File)
	if err := os.WriteFile(opsPart, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A section is added; the title and summary INDEX.md shows stay.
	goMD := filepath.Join(dir, "packages", "guides", "style", "go.md")
	f, err := os.OpenFile(goMD, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\n## Tests\n\nTable tests.\n")
	f.Close()
	var warns []string
	rep, err := Sync(ctx, dir, testPackages(), Options{Warn: func(s string) { warns = append(warns, s) }})
	if err != nil || rep.Rebuilt || rep.Updated != 1 || rep.Unchanged != 5 {
		t.Fatalf("Sync of one changed file: %+v %v (%q)", rep, err, warns)
	}
	after := topParts(t, dir)
	if after["ops"] != before["ops"] || after["guides"].File == before["guides"].File {
		t.Errorf("parts: before %+v, after %+v; want ops kept, guides new", before, after)
	}
	if b, _ := os.ReadFile(opsPart); string(b) != "not json" {
		t.Errorf("the unchanged package's part was rewritten")
	}

	// A change in ops reads its part: unreadable, so the index is rebuilt.
	writeFiles(t, dir, "ops", map[string]string{"x.md": "# X\n\nwombat\n"})
	warns = nil
	rep, err = Sync(ctx, dir, testPackages(), Options{Warn: func(s string) { warns = append(warns, s) }})
	if err != nil || !rep.Rebuilt || rep.Added != 7 {
		t.Fatalf("Sync over an unreadable part: %+v %v, want a rebuild of 7 documents", rep, err)
	}
	if j := strings.Join(warns, "\n"); !strings.Contains(j, before["ops"].File) || !strings.Contains(j, "rebuilding the index") ||
		strings.Count(j, "broken.md:2: invalid YAML") != 1 {
		t.Errorf("warnings %q: want the part named, the rebuild said, and the walk's notes once", warns)
	}
	checkPartsLive(t, dir)
}

// A Sync killed between writing one package's new part and the next
// leaves the old top (which names the old parts, still there), a new part
// no top names, and meta.json marked dirty: readers see the old
// catalogue whole, and the next Sync rebuilds and deletes the stray part.
func TestCatalogCrashBetweenPartWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	idx := filepath.Join(dir, "index")
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	oldTitles := documentTitles(t, dir)
	save := map[string][]byte{}
	for _, name := range append([]string{catalogFile, metaFile}, partFiles(t, dir)...) {
		p := filepath.Join(idx, name)
		if name != catalogFile && name != metaFile {
			p = filepath.Join(idx, catalogDir, name)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		save[p] = b
	}
	oldParts := topParts(t, dir)

	// The update: a new title in each package.
	writeFiles(t, dir, "guides", map[string]string{"style/go.md": "# Go style, revised\n\nShort.\n"})
	writeFiles(t, dir, "ops", map[string]string{"oncall.markdown": "# On-call, revised\n\nWeekly.\n"})
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	newParts := topParts(t, dir)
	wantTitles := documentTitles(t, dir)

	// Put the disk back as a crash after the first new part would leave it.
	for p, b := range save {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(idx, catalogDir, newParts["ops"].File)); err != nil {
		t.Fatal(err)
	}
	var m meta
	if err := readJSON(filepath.Join(idx, metaFile), &m); err != nil {
		t.Fatal(err)
	}
	m.Dirty = true
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(idx, metaFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := documentTitles(t, dir); !slices.Equal(got, oldTitles) {
		t.Errorf("a reader after the crash sees %q, want the old catalogue %q", got, oldTitles)
	}
	if got := partFiles(t, dir); len(got) != len(oldParts)+1 {
		t.Fatalf("catalog/ after the crash: %v", got)
	}

	rep, err := Sync(ctx, dir, testPackages(), Options{})
	if err != nil || !rep.Rebuilt {
		t.Fatalf("Sync after the crash: %+v %v, want a rebuild", rep, err)
	}
	checkPartsLive(t, dir)
	if got := documentTitles(t, dir); !slices.Equal(got, wantTitles) {
		t.Errorf("documents after recovery: %q, want %q", got, wantTitles)
	}
}

// A catalogue top that names another bleve directory than meta.json (a
// crash between writing the two) is rebuilt; a part file nothing names is
// deleted by the next Sync, one ctx did not make is left alone.
func TestCatalogStrayState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	idx := filepath.Join(dir, "index")
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(idx, catalogDir, strings.Repeat("ab", 16)+".json")
	other := filepath.Join(idx, catalogDir, "README")
	for _, p := range []string{stray, other} {
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Sync(ctx, dir, testPackages(), Options{})
	if err != nil || rep.Rebuilt || rep.Unchanged != 6 {
		t.Fatalf("no-change Sync: %+v %v", rep, err)
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Errorf("a stray part file is left: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a file ctx did not make was deleted: %v", err)
	}

	var top map[string]any
	if err := readJSON(filepath.Join(idx, catalogFile), &top); err != nil {
		t.Fatal(err)
	}
	top["bleve"] = "bleve-999"
	b, _ := json.Marshal(top)
	if err := os.WriteFile(filepath.Join(idx, catalogFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if p := plan(t, dir, testPackages(), false); !p.rebuild || p.why != "the catalogue does not describe the search index" {
		t.Errorf("plan with the top naming another directory: rebuild %v (%q)", p.rebuild, p.why)
	}

	// A top naming a part file ctx does not make is not read.
	top["parts"].(map[string]any)["ops"].(map[string]any)["file"] = "../../x.json"
	b, _ = json.Marshal(top)
	if err := os.WriteFile(filepath.Join(idx, catalogFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	var warns []string
	rep, err = Sync(ctx, dir, testPackages(), Options{Warn: func(s string) { warns = append(warns, s) }})
	if err != nil || !rep.Rebuilt || !strings.Contains(strings.Join(warns, "\n"), "not a part file ctx makes") {
		t.Errorf("Sync over a top naming ../../x.json: %+v %v %q", rep, err, warns)
	}
	checkPartsLive(t, dir)
}

// A file name that is not UTF-8 survives the part (fileRecord.PathBytes;
// red23: JSON's U+FFFD for its bytes made the record another file's, so
// the package's stamp was left empty and it was read again on every plan,
// and every search re-indexed the file): its package is kept unread while
// unchanged, and INDEX.md shows the name, escaped.
func TestCatalogNameNotUTF8(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	writeFiles(t, dir, "ops", map[string]string{"bad\xff.md": "# Bad name\n\nWords.\n"})
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	if parts := topParts(t, dir); parts["ops"].Stamp == "" || parts["guides"].Stamp == "" {
		t.Errorf("stamps: ops %q (a name not UTF-8), guides %q", parts["ops"].Stamp, parts["guides"].Stamp)
	}
	p := plan(t, dir, testPackages(), false)
	if _, ok := p.keep["ops"]; !ok {
		t.Error("the unchanged package with a name not UTF-8 is read again")
	}
	if _, ok := p.keep["guides"]; !ok {
		t.Error("the unchanged package is read")
	}
	// INDEX.md rendered again for a change elsewhere.
	writeFiles(t, dir, "guides", map[string]string{"more.md": "# More\n\nText.\n"})
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "INDEX.md"))
	if err != nil || !strings.Contains(string(md), `bad\xff.md`) || !strings.Contains(string(md), "more.md") {
		t.Errorf("INDEX.md does not show the name escaped: %v\n%s", err, md)
	}
}

// BenchmarkMakePart500: encoding and describing a 500-record part, as a
// one-file update of a 500-file package does (issue 31).
func BenchmarkMakePart500(b *testing.B) {
	recs := make([]fileRecord, 500)
	for i := range recs {
		recs[i] = fileRecord{Path: fmt.Sprintf("docs/part%d/page%03d.md", i%10, i), Size: 2000, ModNS: int64(i) << 30, CNS: int64(i) << 31, Ino: uint64(i),
			Hash: strings.Repeat("ab", 32), Chunks: 1, Lines: 3, Title: fmt.Sprintf("Page %d", i), Summary: strings.Repeat("Some documentation text. ", 6) + "…"} // a summary cut short ends with "…"
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := makePart("docs", recs); err != nil {
			b.Fatal(err)
		}
	}
}
