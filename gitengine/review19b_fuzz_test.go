package gitengine

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// review19b: unsplit reads two files a repository controls (its index and
// the shared index the index's link extension names); whatever they hold,
// it answers an index eachIndexName reads or an error, never a panic, and
// never an index with more names than the two files hold. The seeds are
// a split index git wrote (a change and a removal past the 128th entry).
func FuzzUnsplit(f *testing.F) {
	if gittest.Available() {
		dir := f.TempDir()
		files := map[string]string{}
		for i := range 200 {
			files[fmt.Sprintf("d/f%03d.md", i)] = "x"
		}
		gittest.NewRepo(f, dir, files)
		gittest.MustGit(f, dir, "config", "core.splitIndex", "true")
		gittest.MustGit(f, dir, "update-index", "--split-index")
		gittest.WriteFiles(f, dir, map[string]string{"d/f150.md": "y", "d/new.md": "n"})
		gittest.MustGit(f, dir, "add", "-A")
		gittest.MustGit(f, dir, "rm", "-q", "d/f170.md")
		index, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			f.Fatal(err)
		}
		m, _ := filepath.Glob(filepath.Join(dir, ".git", "sharedindex.*"))
		if len(m) != 1 {
			f.Fatalf("%d shared indexes", len(m))
		}
		shared, err := os.ReadFile(m[0])
		if err != nil {
			f.Fatal(err)
		}
		f.Add(index, shared)
	}
	f.Fuzz(func(t *testing.T, index, shared []byte) {
		gitDir := t.TempDir()
		var se *splitError
		name := "sharedindex.0000000000000000000000000000000000000000"
		if err := eachIndexName(index, 20, func([]byte) bool { return true }); errors.As(err, &se) && len(se.link) >= 20 {
			name = "sharedindex." + hex.EncodeToString(se.link[:20])
		}
		if err := os.WriteFile(filepath.Join(gitDir, name), shared, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := unsplit(gitDir, index, 20)
		if err != nil {
			return
		}
		n := 0
		if err := eachIndexName(out, 20, func([]byte) bool { n++; return true }); err != nil {
			t.Fatalf("unsplit answered an index eachIndexName does not read: %v", err)
		}
		if n > len(index)+len(shared) {
			t.Fatalf("%d names from %d + %d bytes", n, len(index), len(shared))
		}
	})
}

// review19b: hostile EWAH bitmaps (the link extension is the repository's
// to write) are errors, allocate by the shared index's size and not by
// the counts they claim, and a bitmap git writes reads as git reads it.
func TestEWAHHostile(t *testing.T) {
	t.Parallel()
	word := func(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }
	bitmap := func(bits, words uint32, ws ...[]byte) []byte {
		b := binary.BigEndian.AppendUint32(nil, bits)
		b = binary.BigEndian.AppendUint32(b, words)
		for _, w := range ws {
			b = append(b, w...)
		}
		return binary.BigEndian.AppendUint32(b, 0)
	}
	rlw := func(running bool, run, lit uint64) []byte {
		v := run<<1 | lit<<33
		if running {
			v |= 1
		}
		return word(v)
	}
	// ewah_set(300) on an empty bitmap: a run of 4 zero words, a literal
	// with bit 44 set; 301 bits in two words.
	bits, _, err := ewahBits(bitmap(301, 2, rlw(false, 4, 1), word(1<<44)), 400)
	if err != nil || !bits[300] || slices.Index(bits, true) != 300 {
		t.Fatalf("git's bitmap of bit 300: %v", err)
	}
	for name, b := range map[string][]byte{
		"short":                     {0, 0, 0},
		"words past the end":        bitmap(64, 0xffffffff, rlw(false, 0, 0)),
		"4G bits, one word":         bitmap(0xffffffff, 1, rlw(false, 0, 0)),
		"literals past the end":     bitmap(64, 1, rlw(false, 0, 0xffffffff>>1)),
		"a set bit past entries":    bitmap(301, 2, rlw(false, 4, 1), word(1<<44)),
		"a run of ones, 2^32 words": bitmap(64, 1, rlw(true, 0xffffffff, 0)),
		"a zero run then a bit":     bitmap(64, 2, rlw(false, 0xffffffff, 1), word(1)),
	} {
		bits, _, err := ewahBits(b, 100)
		if name == "4G bits, one word" {
			if err != nil || len(bits) != 100 {
				t.Errorf("%s: %d bits, %v; want 100 and no error (the count is not used)", name, len(bits), err)
			}
			continue
		}
		if err == nil || !errors.Is(err, errIndex) {
			t.Errorf("%s: %v; want errIndex", name, err)
		}
	}
}
