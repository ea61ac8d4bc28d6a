package webdoc

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRed17ArchiveDepthAmplification (red17 finding 1): one archive entry
// whose path is thousands of folders deep makes thousands of folders, and
// a path longer than gitengine's maxPathLen (1,024 bytes) or Linux's
// PATH_MAX, which the rest of ctx then cannot open. The git kind refuses
// such a path ("path too long", gitengine/pathsafe.go); an archive must
// too, before it writes anything.
func TestRed17ArchiveDepthAmplification(t *testing.T) {
	for _, format := range []string{FormatTarGz, FormatZip} {
		t.Run(format, func(t *testing.T) {
			deep := strings.Repeat("a/", 600) + "x.md" // 1,204 bytes, 600 folders
			data := makeArchive(t, format, []member{file("ok.md", "# ok\n"), file(deep, "# x\n")})
			dir := t.TempDir()
			_, _, skipped, err := Extract(bytes.NewReader(data), int64(len(data)), format, "", dir, ArchiveLimits{})
			dirs := 0
			_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
				if err == nil && d.IsDir() {
					dirs++
				}
				return nil
			})
			if dirs > 100 {
				t.Errorf("one entry made %d folders (err %v, skipped %v): a path over 1,024 bytes must be refused or skipped before any folder is made", dirs, err, skipped)
			}
		})
	}
}

// TestArchivePathBounds: an entry whose path passes naming.PathProblem's
// bounds (1,024 bytes, 256 folders) is skipped with the reason before
// anything is written, the rest extracted; the folders the files make
// count against MaxFiles with the files.
func TestArchivePathBounds(t *testing.T) {
	for _, format := range []string{FormatTarGz, FormatZip} {
		t.Run(format, func(t *testing.T) {
			deep := strings.Repeat("a/", 300) + "x.md" // 604 bytes, 300 folders
			ok := strings.Repeat("b/", 256) + "y.md"   // 256 folders: written
			data := makeArchive(t, format, []member{file("ok.md", "# ok\n"), file(deep, "# x\n"), file(ok, "# y\n")})
			dir := t.TempDir()
			files, _, skipped, err := Extract(bytes.NewReader(data), int64(len(data)), format, "", dir, ArchiveLimits{})
			if err != nil || files != 2 {
				t.Fatalf("Extract = %d files, %v", files, err)
			}
			if len(skipped) != 1 || skipped[0].Path != deep || !strings.Contains(skipped[0].Reason, "folders nested too deep (over 256)") {
				t.Fatalf("skipped = %+v", skipped)
			}
			if _, err := os.Stat(filepath.Join(dir, "a")); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("a folder of the skipped entry was made: %v", err)
			}

			// 5 entries 101 folders deep: 510 files and folders.
			var ms []member
			for i := range 5 {
				ms = append(ms, file(fmt.Sprintf("d%d/", i)+strings.Repeat("c/", 100)+"z.md", "# z\n"))
			}
			data = makeArchive(t, format, ms)
			dir = t.TempDir()
			_, _, _, err = Extract(bytes.NewReader(data), int64(len(data)), format, "", dir, ArchiveLimits{MaxFiles: 509})
			if err == nil || !strings.Contains(err.Error(), "more than 509 files and folders") {
				t.Fatalf("Extract of 510 files and folders with MaxFiles 509: %v", err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("something was written before the limit was known: %v", entries)
			}
			if _, _, _, err = Extract(bytes.NewReader(data), int64(len(data)), format, "", t.TempDir(), ArchiveLimits{MaxFiles: 510}); err != nil {
				t.Fatalf("Extract of 510 files and folders with MaxFiles 510: %v", err)
			}
		})
	}
}

// TestPagePathBounds: an llms.txt page's URL path over naming.PathProblem's
// bounds gets its path from PagePath (one that quotes at most 200 bytes of
// any one value when it is refused otherwise), and the Layout the pages are
// planned in skips it with the reason, as an archive's entry is; a path
// 256 folders deep is written. The pages and their folders count against
// the Layout's limit.
func TestPagePathBounds(t *testing.T) {
	l := NewLayout(0)
	for _, p := range []string{"/" + strings.Repeat("a/", 300) + "p.md", "/" + strings.Repeat("long", 300) + ".md", "/" + strings.Repeat("x/", 2000) + "p.md"} {
		u, _ := url.Parse("https://docs.example" + p)
		rel, err := PagePath(u)
		if err != nil {
			if len(err.Error()) > 900 {
				t.Errorf("the error quotes too much (%d bytes): %.300s…", len(err.Error()), err)
			}
			continue // an element longer than naming.MaxName: refused as before
		}
		if skip, _ := l.Add(rel); skip == "" {
			t.Fatalf("Layout.Add(%d bytes, %d folders) accepted", len(rel), strings.Count(rel, "/"))
		}
	}
	if l.Has("a/p.md") || len(l.files)+len(l.folders) != 0 {
		t.Fatalf("a skipped page was recorded: %d files, %d folders", len(l.files), len(l.folders))
	}
	u, _ := url.Parse("https://docs.example/" + strings.Repeat("b/", 256) + "p.md")
	rel, err := PagePath(u)
	if err != nil {
		t.Fatalf("256 folders deep: %v", err)
	}
	if skip, over := l.Add(rel); skip != "" || over {
		t.Fatalf("256 folders deep: skip %q, over %t", skip, over)
	}
	small := NewLayout(4)
	for i, p := range []string{"a/b/one.md", "a/two.md", "c/three.md"} {
		skip, over := small.Add(p)
		if skip != "" || over != (i == 2) { // 1+2, 2+2, then 3 files and 3 folders
			t.Fatalf("Add(%q) = %q, %t", p, skip, over)
		}
	}
}
