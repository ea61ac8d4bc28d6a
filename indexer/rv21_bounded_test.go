package indexer

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestProcessFileReadIsBounded (red21 F5): processFile read the whole
// file after the walk's stat said it was small enough, so a file that grew
// since (a sparse file of gigabytes, or a link to one put where the walk
// saw a regular file) was read whole into memory, and a fifo swapped in
// blocked the index for ever. It reads at most maxFileSize bytes of a
// regular file, never following a link, and skips the file with a
// warning.
func TestProcessFileReadIsBounded(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.md")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	const grown = 256 << 20 // sparse: no disk used
	if err := f.Truncate(grown); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Symlink(big, filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"big.md", "link.md"} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		// The walk saw 10 bytes; the file holds 256 MB now.
		_, docs, _, _, err := processFile("p", "p", name, filepath.Join(dir, name), 10, 1, nil, nil)
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > 3*maxFileSize {
			t.Errorf("%s: processFile allocated %d MB for a file the walk saw at 10 bytes", name, got>>20)
		}
		if err == nil || len(docs) != 0 {
			t.Errorf("%s: err %v, %d chunks; want an error and nothing indexed", name, err, len(docs))
			continue
		}
		if strings.Contains(err.Error(), dir) {
			t.Errorf("%s: the warning names the machine's path: %v", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
}
