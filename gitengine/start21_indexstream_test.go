package gitengine

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// start21: FileStatus (every command's check that git does not track
// context.local.json) read the whole index into memory through
// io.ReadAll, whose growing chunks and final copy allocated about twice
// the index, and made a string of every name it compared: 4.9 MB for the
// 1.8 MB index below (~1,000 page faults in a work tree of 20,000 files).
// It now reads the index front to back through one buffer
// (eachIndexNameFrom) and compares bytes: 72 KB, whatever the index. The bytes are counted, not timed: the same code allocates
// the same. Not parallel: no other test allocates meanwhile.
func TestFileStatusDoesNotHoldTheIndex(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	// An index of 20,000 names (every other field zero, as unsplit makes
	// one), the file asked about after them all: the whole index is read.
	var names [][]byte
	for i := range 20000 {
		names = append(names, fmt.Appendf(nil, "src/d%03d/file%05d.go", i/100, i))
	}
	data := namesIndex(names, 20)
	if err := os.WriteFile(filepath.Join(dir, ".git", "index"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	last := filepath.Join(dir, filepath.FromSlash(string(names[len(names)-1])))
	for _, d := range []string{filepath.Join(dir, "zz"), filepath.Dir(last)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "zz", "context.local.json")
	var least uint64
	for i := range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		st, err := FileStatus(dir, file)
		runtime.ReadMemStats(&after)
		if err != nil || !st.InRepository || st.Tracked {
			t.Fatalf("FileStatus = %+v, %v; want in the repository, untracked", st, err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; i == 0 || n < least {
			least = n
		}
	}
	t.Logf("FileStatus allocated %d bytes (index %d bytes)", least, len(data))
	if limit := uint64(len(data)) / 4; least > limit {
		t.Errorf("FileStatus allocated %d bytes for an index of %d bytes, more than %d: it holds the index in memory (each page a fault in every command)", least, len(data), limit)
	}
	// The names are still all read: the last one is found.
	st, err := FileStatus(dir, last)
	if err != nil || !st.Tracked {
		t.Fatalf("FileStatus of the last name = %+v, %v; want tracked", st, err)
	}
}

// The streamed index (readIndex's file) reads as the index held whole:
// TestIndexHasAgreesWithGoGit's versions 2 to 4, long and extended
// entries, read here from the file.
func TestStreamedIndexAgreesWithWhole(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := t.TempDir()
	mustGit := func(args ...string) string {
		t.Helper()
		return strings.TrimSpace(gittest.MustGit(t, dir, args...))
	}
	mustGit("init", "-q", "-b", "main")
	var segs []string // a name longer than the 12-bit length field (4,095 bytes)
	for i := range 21 {
		segs = append(segs, fmt.Sprintf("s%02d", i)+strings.Repeat("m", 197))
	}
	long := strings.Join(segs, "/")
	if err := os.WriteFile(filepath.Join(dir, "a0"), []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "later.md"), []byte("2"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustGit("add", "a0")
	mustGit("add", "-N", "later.md") // an extended entry: version 3
	blob := mustGit("hash-object", "-w", "a0")
	mustGit("update-index", "--add", "--cacheinfo", "100644,"+blob+","+long)
	for _, v := range []string{"3", "4", "2"} {
		if v == "2" {
			mustGit("rm", "-q", "--cached", "later.md")
		}
		mustGit("update-index", "--index-version", v)
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		var whole, streamed []string
		if err := eachIndexName(data, 20, func(n []byte) bool { whole = append(whole, string(n)); return true }); err != nil {
			t.Fatalf("v%s: whole: %v", v, err)
		}
		_, idx, err := readIndex(dir, dir)
		if err != nil || idx == nil || idx.f == nil {
			t.Fatalf("v%s: readIndex = %v, %v; want the index file to stream", v, idx, err)
		}
		err = idx.each(func(n []byte) bool { streamed = append(streamed, string(n)); return true })
		idx.close()
		if err != nil {
			t.Fatalf("v%s: streamed: %v", v, err)
		}
		if fmt.Sprint(whole) != fmt.Sprint(streamed) || len(whole) < 2 {
			t.Errorf("v%s: streamed names %.200q, whole %.200q", v, streamed, whole)
		}
	}
}

// indexHas is hasName of the index held whole in data: the tests' form
// (TestIndexHasAgreesWithGoGit).
func indexHas(data []byte, rel string, idLen int) (bool, error) {
	return hasName(func(f func([]byte) bool) error { return eachIndexName(data, idLen, f) }, rel)
}
