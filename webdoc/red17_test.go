package webdoc

import (
	"bytes"
	"io/fs"
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
