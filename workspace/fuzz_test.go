package workspace

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// FuzzGuard applies random edits to an installed tree, then checks that the
// check before a destructive step (diff with full) flags exactly the files
// that differ from what was installed, and that status's stat shortcut
// (mtime, ctime, inode) does too.
func FuzzGuard(f *testing.F) {
	f.Add([]byte{1, 0})
	f.Add([]byte{1, 0, 1, 0})             // the same-size edit twice: back to the original
	f.Add([]byte{0, 1, 2, 2, 3, 3, 4, 4}) // modify, delete, chmod, symlink
	f.Add([]byte{5, 0, 6, 9, 1, 3, 3, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 32 {
			ops = ops[:32]
		}
		dir := t.TempDir()
		names := []string{"a.md", "b.md", "sub/c.md", "sub/d/e.md", "f.txt"}
		orig := map[string]string{}
		for i, n := range names {
			orig[n] = fmt.Sprintf("%d0123456789\n", i)
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, n)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, n), []byte(orig[n]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		before := snapshotOf(t, dir)
		st, err := scanState(dir, "c", "t", "h")
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond) // past the clock tick of the install
		for i := 0; i+1 < len(ops); i += 2 {
			n := names[int(ops[i+1])%len(names)]
			p := filepath.Join(dir, filepath.FromSlash(n))
			fi, statErr := os.Lstat(p)
			switch ops[i] % 7 {
			case 0: // modify, other size
				os.Remove(p)
				os.WriteFile(p, []byte("edited "+n), 0o644)
			case 1: // modify keeping size and mtime (cp -p, touch -r)
				if statErr == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
					b, _ := os.ReadFile(p)
					b[0] ^= 0x20
					os.WriteFile(p, b, fi.Mode().Perm())
					os.Chtimes(p, fi.ModTime(), fi.ModTime())
				}
			case 2: // delete
				os.Remove(p)
			case 3: // chmod
				if statErr == nil && fi.Mode().IsRegular() {
					os.Chmod(p, fi.Mode().Perm()^0o111)
				}
			case 4: // replace by a symlink
				os.Remove(p)
				os.Symlink("a.md", p)
			case 5: // empty
				if statErr == nil && fi.Mode().IsRegular() {
					os.Truncate(p, 0)
				}
			case 6: // add
				os.WriteFile(p+".new", []byte("new"), 0o644)
			}
		}
		after := snapshotOf(t, dir)
		var want []string
		for p, v := range after {
			if before[p] != v {
				want = append(want, p)
			}
		}
		for p := range before {
			if _, ok := after[p]; !ok {
				want = append(want, p)
			}
		}
		sort.Strings(want)
		for _, full := range []bool{true, false} {
			changes, _, err := diff(dir, st, full)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range changes {
				got = append(got, c.Path)
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("full=%v: flagged %q, changed %q", full, got, want)
			}
		}
	})
}

// snapshotOf is each file's git mode and bytes (a link's target).
func snapshotOf(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	err := walkFiles(dir, func(rel string, fi fs.FileInfo) error {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		var b []byte
		var err error
		if fi.Mode()&fs.ModeSymlink != 0 {
			var s string
			s, err = os.Readlink(p)
			b = []byte(s)
		} else {
			b, err = os.ReadFile(p)
		}
		out[rel] = fmt.Sprintf("%v %q", gitMode(fi.Mode()), b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
