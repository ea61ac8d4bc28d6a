package indexer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/fileid"
)

// TestMakePartListing: a part's listing hash is the one fmt's %q lines
// gave (catalogues written before keep their listing), for titles and
// paths with quotes, controls, non-ASCII and bytes that are not UTF-8.
func TestMakePartListing(t *testing.T) {
	recs := []fileRecord{
		{Path: "a.md", Title: "Plain", Summary: "A summary.", Chunks: 1},
		{Path: "b \"quoted\" ñ.md", Title: "Tabs\tand\nnewlines é", Summary: "Ünïcödé — ✓ \u200b", Skipped: "too big: ✗ «x»"},
		{Path: "c\xff\xfe.md", Title: "bad \xc3 utf-8", Summary: "\x00\x7f\\"},
		{Path: "d.md"},
	}
	for i := range recs {
		part, _, err := makePart("docs", recs[:i+1])
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		for _, r := range recs[:i+1] {
			fmt.Fprintf(h, "%q %q %q %q\n", r.Path, r.Title, r.Summary, r.Skipped)
		}
		if want := hex.EncodeToString(h.Sum(nil)[:16]); part.Listing != want {
			t.Errorf("%d records: listing %s; want %s", i+1, part.Listing, want)
		}
	}
}

// TestStatDocsPaths: the walk record's documents are stat'ed under the
// package folder however it is spelled, each with the stamp Lstat gives
// its joined path, and one removed is not there.
func TestStatDocsPaths(t *testing.T) {
	dir := t.TempDir()
	rels := []string{"a.md", "sub/b.md", "sub/deeper/c d.md"}
	for i, rel := range rels {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat("x", i+1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "y"), 0o755); err != nil {
		t.Fatal(err)
	}
	rec := &pkgWalk{docs: append(slices.Clone(rels), "sub/gone.md")}
	for _, base := range []string{dir, dir + "/", dir + "/./sub/..", dir + "//y/../"} {
		stats := rec.docStamps(fileid.NewBatch(base, rec.docs))
		if stats[len(rels)].Err == nil {
			t.Fatalf("folder %q: the gone document there", base)
		}
		for i, got := range stats[:len(rels)] {
			want, _, err := fileid.Lstat(filepath.Join(dir, filepath.FromSlash(rels[i])))
			if err != nil {
				t.Fatal(err)
			}
			if got.Err != nil || !got.Regular || got.St != want || got.St.Size != int64(i+1) {
				t.Errorf("folder %q, %q: stat'ed %+v; want %+v", base, rels[i], got, want)
			}
		}
	}
}

// TestStatDocsManyRuns: a record of enough documents to be stat'ed in
// several runs at once (more than twice statDocs' least a run) gives
// every present document once, in the record's order, with its stamp,
// whatever run holds it, and skips the missing ones at the runs' edges
// and inside them.
func TestStatDocsManyRuns(t *testing.T) {
	dir := t.TempDir()
	var docs, present []string
	for i := range 1201 {
		rel := fmt.Sprintf("d%02d/%04d.md", i%7, i)
		docs = append(docs, rel)
		if i%97 == 0 || i == 1200 || i == 600 || i == 601 {
			continue // missing
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat("x", i%13)), 0o644); err != nil {
			t.Fatal(err)
		}
		present = append(present, rel)
	}
	stats := (&pkgWalk{docs: docs}).docStamps(fileid.NewBatch(dir, docs))
	var got []string
	for i, d := range docs {
		if stats[i].Err != nil || !stats[i].Regular {
			continue
		}
		got = append(got, d)
		want, _, err := fileid.Lstat(filepath.Join(dir, filepath.FromSlash(d)))
		if err != nil {
			t.Fatal(err)
		}
		if stats[i].St != want {
			t.Fatalf("document %d, %q: stat'ed %+v; want %+v", i, d, stats[i].St, want)
		}
	}
	if !slices.Equal(got, present) {
		t.Fatalf("documents there: %d; want %d (%q…)", len(got), len(present), present[:3])
	}
}

// TestStatDocsStampIsTheWalks: the stamp statDocs gives from the walk
// record is partStamp of what a full walk finds, kep.yaml files beside
// README.md included (sideStamps' rule), for the record as it was made
// and after each kind of change: one that keeps the stamps equal (none)
// and those that move it (an edit, a kep.yaml edited, a document gone, a
// kep.yaml gone, a kep.yaml replaced by a link).
func TestStatDocsStampIsTheWalks(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range []string{"README.md", "kep.yaml", "a/README.md", "a/kep.yaml", "a/b/x.md", "b/README.md", "c/Readme.md", "c/kep.yaml", "c/z.md", ".gitignore", "d/README.md", "d/kep.yaml"} {
		write(rel, rel)
	}
	write(".gitignore", "d/kep.yaml\n") // d's kep.yaml is no document: statDocs stats it itself
	walk := func() ([]fileStat, string) {
		t.Helper()
		found, err := walkMarkdown(dir, markdown.WalkOptions{Gitignore: true}, func(s string) { t.Fatal(s) })
		if err != nil {
			t.Fatal(err)
		}
		return found, partStamp(found)
	}
	found, _ := walk()
	rec := &pkgWalk{}
	for _, f := range found {
		rec.docs = append(rec.docs, f.rel)
	}
	check := func(step string) {
		t.Helper()
		tr := fileid.NewTree(dir)
		defer tr.Close()
		_, want := walk()
		if got := rec.statDocs(dir, tr, nil); got != want {
			t.Errorf("%s: statDocs' stamp %s; the walk's %s", step, got, want)
		}
	}
	check("as recorded")
	tr0 := fileid.NewTree(dir)
	prev := rec.statDocs(dir, tr0, nil)
	tr0.Close()
	moved := func(step string) {
		t.Helper()
		check(step)
		tr := fileid.NewTree(dir)
		defer tr.Close()
		now := rec.statDocs(dir, tr, nil)
		if now == prev {
			t.Errorf("%s: the stamp did not move", step)
		}
		prev = now
	}
	write("a/kep.yaml", "edited kep")
	moved("a kep.yaml edited")
	write("d/kep.yaml", "edited kep, not a document")
	moved("a kep.yaml that is no document edited")
	write("a/b/x.md", "edited document")
	moved("a document edited")
	if err := os.Remove(filepath.Join(dir, "c", "z.md")); err != nil {
		t.Fatal(err)
	}
	moved("a document gone")
	if err := os.Remove(filepath.Join(dir, "kep.yaml")); err != nil {
		t.Fatal(err)
	}
	moved("a kep.yaml gone")
	if err := os.Symlink("README.md", filepath.Join(dir, "c", "kep.yaml.new")); err != nil {
		t.Skip(err)
	}
	if err := os.Rename(filepath.Join(dir, "c", "kep.yaml.new"), filepath.Join(dir, "c", "kep.yaml")); err != nil {
		t.Fatal(err)
	}
	moved("a kep.yaml replaced by a link")
}

// TestTokensCacheLost: the INDEX.md token counts are a cache written
// without fsync; an empty or torn file (what a power cut may leave) is
// counted again: the same INDEX.md as with the file intact, and the file
// is whole again after.
func TestTokensCacheLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	render := func(lose string) string {
		dir := setupCorpus(t)
		if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
			t.Fatal(err)
		}
		if lose != "keep" {
			if err := os.WriteFile(filepath.Join(dir, "index", tokensFile), []byte(lose), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		writeFiles(t, dir, "ops", map[string]string{"new.md": "# Pangolin procedures\n\nA new page.\n"})
		if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
			t.Fatal(err)
		}
		if memo := readCostMemo(filepath.Join(dir, "index")); len(memo.old) == 0 {
			t.Errorf("%q: the token cache was not written again", lose)
		}
		b, err := os.ReadFile(filepath.Join(dir, "INDEX.md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := render("keep")
	if !strings.Contains(want, "Pangolin") {
		t.Fatalf("INDEX.md lacks the new page:\n%s", want)
	}
	for _, lose := range []string{"", "{\"schema\":", "\x00\x00\x00\x00"} {
		if got := render(lose); got != want {
			t.Errorf("with the token cache %q: INDEX.md\n%s\nwant\n%s", lose, got, want)
		}
	}
}

// TestAppendQuote: appendQuote is strconv.AppendQuote, byte for byte.
func TestAppendQuote(t *testing.T) {
	for _, s := range []string{"", "plain", "docs/part3/page003.md", "a \"q\" b", `back\slash`, "tab\t", "del\x7f", "~ and space ", "ñ", "bad \xc3", "\x00", "\u200b",
		"Some text. Some text.…", "é, ü and ß", "\ufffd", "\xef\xbf\xbd", "a\u00a0b", "line\u2028sep", "\U0001F600 ok", "\xed\xa0\x80 surrogate", "\xc0\xaf overlong", "end \xe2\x80", "\u0085", "\ufeffbom",
		// rv-upd22: combining marks (printable), a soft hyphen and a private
		// use, unassigned or last code point (not), a space other than ' '.
		"e\u0301", "\u0301 alone", "soft\u00adhyphen", "\ue000", "\u0378", "\U0010ffff", "\U0001f3fb", "a\u2009b", "\u3000"} {
		if got, want := string(appendQuote([]byte("x"), s)), string(strconv.AppendQuote([]byte("x"), s)); got != want {
			t.Errorf("%q: %s; want %s", s, got, want)
		}
	}
}

// FuzzAppendQuote: appendQuote is strconv.AppendQuote byte for byte, for
// any string (the listing hash of catalogues already written depends on
// it).
func FuzzAppendQuote(f *testing.F) {
	for _, s := range []string{"plain", "text.…", "ñ \"q\"", "bad \xc3", "\u00a0", "\xef\xbf\xbd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendQuote(nil, s)), string(strconv.AppendQuote(nil, s)); got != want {
			t.Errorf("%q: %s; want %s", s, got, want)
		}
	})
}
