package workspace

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx-dev/ctx/gitengine"
)

// TestStatusHashesIntoOneBuffer: when no stamp proves a package's files
// unchanged (a copied project: every inode and ctime moved), status hashes
// them all, into one buffer: it allocates a small part of what it reads
// (status21; each file was read into its own allocation, 50 MB and 19
// collections for start21's copied project). The answer is unchanged:
// no edits, and an edit keeping the size is still found.
func TestStatusHashesIntoOneBuffer(t *testing.T) {
	w, st := installedTeam(t)
	dir := w.pkgDir("team")
	total := 0
	for i := range 60 {
		rel := fmt.Sprintf("big/f%02d.md", i)
		data := bytes.Repeat([]byte{byte('a' + i%26)}, 64<<10)
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		st.Files = append(st.Files, recordFile(rel, gitengine.HashBlob(data), fi))
		total += len(data)
	}
	for i := range st.Files {
		st.Files[i].Ino++ // another inode: nothing proves the file unchanged
	}
	if err := w.writeState(w.statePath("team"), st); err != nil {
		t.Fatal(err)
	}
	least := leastAllocated(func() {
		out, err := w.Status()
		if err != nil || len(out) != 0 {
			t.Fatalf("status: %+v, %v; want no edits", out, err)
		}
	})
	t.Logf("Status allocated %d bytes, reading %d", least, total)
	if limit := uint64(total) / 4; least > limit {
		t.Errorf("Status allocated %d bytes to hash %d bytes of files, more than %d: each file read into its own allocation", least, total, limit)
	}
	// An edit keeping the size is found.
	p := filepath.Join(dir, "big", "f07.md")
	if err := os.WriteFile(p, bytes.Repeat([]byte{'z'}, 64<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := w.Status()
	if err != nil || len(out) != 1 || len(out[0].Files) != 1 || out[0].Files[0].Path != "big/f07.md" || out[0].Files[0].Change != changeModified {
		t.Fatalf("status after an edit keeping the size: %+v, %v", out, err)
	}
}

// BenchmarkDiffUnproven is status's check of a 500-file package that no
// stamp proves unchanged (a copied project): every file is read and
// hashed (its allocations are the ones TestStatusHashesIntoOneBuffer
// bounds).
func BenchmarkDiffUnproven(b *testing.B) {
	dir := b.TempDir()
	st := &pkgState{Rev: "c", at: 1}
	for i := range 500 {
		rel := fmt.Sprintf("d%02d/f%03d.md", i/50, i)
		data := bytes.Repeat([]byte{byte('a' + i%26)}, 4096)
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
		fi, err := os.Lstat(p)
		if err != nil {
			b.Fatal(err)
		}
		f := recordFile(rel, gitengine.HashBlob(data), fi)
		f.Ino++
		st.Files = append(st.Files, f)
	}
	b.ReportAllocs()
	for b.Loop() {
		if out, _, err := diff(dir, st, false); err != nil || len(out) != 0 {
			b.Fatalf("diff: %v, %v", out, err)
		}
	}
}
