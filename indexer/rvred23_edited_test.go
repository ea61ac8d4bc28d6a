package indexer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCatalogEditedNotUTF8 (review of red23): a part's Edited (the
// documents that differ from what ctx installed, joined by NUL, kept in
// catalog.json) is a list of names, which need not be UTF-8 (red23 kept
// them whole in the parts: fileRecord.PathBytes); encoding/json wrote
// each invalid byte as U+FFFD, so the top read back named no such
// document: INDEX.md lost its mark at the next render, and INDEX.md's
// input (indexInputHash) changed with no change. It is read back whole.
func TestCatalogEditedNotUTF8(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, edited := range []string{"bad\xff\xfename.md\x00ok.md", "ok.md\x00z.md", ""} {
		c := catalog{Schema: schemaVersion, Parts: map[string]catalogPart{"p": {File: strings.Repeat("a", 32) + ".json", Edited: nulNames(edited)}}}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if edited == "ok.md\x00z.md" && !strings.Contains(string(b), `"edited":"ok.md\u0000z.md"`) {
			t.Errorf("a list of UTF-8 names is not written as before: %s", b)
		}
		if err := os.WriteFile(filepath.Join(dir, catalogFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readCatalog(dir)
		if err != nil {
			t.Fatal(err)
		}
		if e := string(got.Parts["p"].Edited); e != edited {
			t.Errorf("Edited %q read back as %q", edited, e)
		}
	}
}
