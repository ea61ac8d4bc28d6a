package indexer

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestProcessFileKeepsNotTheContent: the record processFile returns (kept
// for the whole build: the catalogue, INDEX.md, the link graph) holds its
// own copies of the title, summary, tags, links and labels, not substrings
// of the file's content, which would keep every file of the build in
// memory until it ends (17 MB of the shared corpus' peak heap).
func TestProcessFileKeepsNotTheContent(t *testing.T) {
	dir := t.TempDir()
	const files, size = 8, 1 << 20
	var body strings.Builder
	body.WriteString("---\ntitle: A title from the front matter\nsummary: What the page is about.\ntags: [alpha, beta]\n---\n\n# The heading\n\nSee [the other](other.md) and (label)=\n\n")
	for body.Len() < size {
		body.WriteString("A line of prose about nothing in particular, long enough to fill the file.\n")
	}
	for i := range files {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.md", i)), []byte(body.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	recs := make([]fileRecord, 0, files)
	for i := range files {
		name := fmt.Sprintf("f%d.md", i)
		rec, docs, _, _, err := processFile("p", "p", name, filepath.Join(dir, name), int64(body.Len()), 1, nil, nil, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Title == "" || len(rec.Tags) != 2 || len(rec.Links) == 0 || len(docs) == 0 {
			t.Fatalf("record %+v: want a title, two tags and a link", rec)
		}
		recs = append(recs, rec)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if held > files*size/2 {
		t.Errorf("the %d records hold %d MB of heap: they keep the files' content (%d MB)", files, held>>20, files*size>>20)
	}
	runtime.KeepAlive(recs)
}
