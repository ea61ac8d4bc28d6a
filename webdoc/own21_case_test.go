package webdoc

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An archive's entries that differ only in case (or Unicode form) are one
// file on macOS and Windows: the first is written, the later skipped with
// the reason, on every system (own21; an llms.txt's pages go through the
// same Layout).
func TestOwn21ArchiveCaseCollision(t *testing.T) {
	data := makeArchive(t, FormatTarGz, []member{
		file("README.md", "# first\n"), file("readme.md", "# second\n"),
		file("Docs/a.md", "# a\n"), file("docs/b.md", "# b\n"),
		file("caf\u00e9.md", "# composed\n"), file("cafe\u0301.md", "# decomposed\n"),
	})
	dir := t.TempDir()
	files, _, skipped, err := Extract(bytes.NewReader(data), int64(len(data)), FormatTarGz, "", dir, ArchiveLimits{})
	if err != nil || files != 3 {
		t.Fatalf("Extract = %d files, %v (skipped %+v)", files, err, skipped)
	}
	want := map[string]string{"readme.md": `"README.md"`, "docs/b.md": `"Docs"`, "cafe\u0301.md": "caf"}
	for _, s := range skipped {
		if w, ok := want[s.Path]; !ok || !strings.Contains(s.Reason, w) || !strings.Contains(s.Reason, "macOS and Windows") {
			t.Errorf("skipped %q: %s", s.Path, s.Reason)
		}
		delete(want, s.Path)
	}
	if len(want) != 0 {
		t.Errorf("not skipped: %v", want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "README.md")); string(b) != "# first\n" {
		t.Errorf("README.md = %q; want the first entry", b)
	}
}
