//go:build unix

package gitengine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// own20: the index readers read the index and a split index's
// sharedindex.* whole, whatever it was: a link to /dev/zero (read to the
// end of memory), a fifo (an open that waits forever), a sparse file of
// gigabytes (read into memory). Both are read through readIndexFile now:
// a regular file of at most MaxIndexSize, else an error naming it.
func TestIndexFilesAreBounded(t *testing.T) {
	t.Parallel()
	split := func(t *testing.T) (dir, shared string) {
		dir = review18eRepo(t)
		gittest.MustGit(t, dir, "config", "core.splitIndex", "true")
		gittest.MustGit(t, dir, "update-index", "--split-index")
		m, _ := filepath.Glob(filepath.Join(dir, ".git", "sharedindex.*"))
		if len(m) != 1 {
			t.Fatalf("shared index files: %q", m)
		}
		return dir, m[0]
	}
	for _, c := range []struct {
		name  string
		plant func(t *testing.T, p string)
		say   string
	}{
		{"a sparse file over the bound", func(t *testing.T, p string) {
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, MaxIndexSize+1); err != nil {
				t.Fatal(err)
			}
		}, "over the 1073741824 bytes ctx reads of a git index"},
		{"a link to /dev/zero", func(t *testing.T, p string) {
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"a fifo", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip("no fifo:", err)
			}
		}, "not a regular file"},
	} {
		for _, which := range []string{"sharedindex", "index"} {
			t.Run(c.name+" as "+which, func(t *testing.T) {
				t.Parallel()
				dir, p := split(t)
				if which == "index" {
					p = filepath.Join(dir, ".git", "index")
				}
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
				c.plant(t, p)
				_, names, err := TrackedUnder(dir, filepath.Join(dir, "docs"))
				if err == nil || !errors.Is(err, errIndex) || !strings.Contains(err.Error(), c.say) || !strings.Contains(err.Error(), filepath.Base(p)) {
					t.Fatalf("TrackedUnder = %q, %v; want an error naming %s and saying %q", names, err, filepath.Base(p), c.say)
				}
			})
		}
	}
}
