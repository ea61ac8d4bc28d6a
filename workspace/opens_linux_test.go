package workspace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"
)

// openCounter counts, with inotify, the opens of the files (not the
// folders) under a folder tree that exists when it starts. The kernel
// queues an event in the open call itself, so once the command under test
// has returned every open it made is in the queue: reading the queue then
// is exact, with no waiting. Test-only: ctx's own code has no hook.
type openCounter struct {
	fd   int
	dirs map[int32]string // watch descriptor → folder, relative to the root
}

func newOpenCounter(t *testing.T, root string) *openCounter {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	c := &openCounter{fd: fd, dirs: map[int32]string{}}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		wd, err := syscall.InotifyAddWatch(fd, p, syscall.IN_OPEN)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		c.dirs[int32(wd)] = filepath.ToSlash(rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// opens returns how many times each file was opened since the last call.
func (c *openCounter) opens(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(c.fd, buf)
		if errors.Is(err, syscall.EAGAIN) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		for b := buf[:n]; len(b) >= syscall.SizeofInotifyEvent; {
			var ev syscall.InotifyEvent
			if err := binary.Read(bytes.NewReader(b[:syscall.SizeofInotifyEvent]), binary.NativeEndian, &ev); err != nil {
				t.Fatal(err)
			}
			name := string(bytes.TrimRight(b[syscall.SizeofInotifyEvent:syscall.SizeofInotifyEvent+int(ev.Len)], "\x00"))
			b = b[syscall.SizeofInotifyEvent+int(ev.Len):]
			if ev.Mask&syscall.IN_Q_OVERFLOW != 0 {
				t.Fatal("inotify: the event queue overflowed")
			}
			if ev.Mask&syscall.IN_ISDIR != 0 || name == "" {
				continue // a folder read, not a file
			}
			out[filepath.ToSlash(filepath.Join(c.dirs[ev.Wd], name))]++
		}
	}
}

// TestUpdateOneOf500Opens: an update in which 1 of a package's 500 files
// changed upstream opens, of the package's files, the changed one only:
// the guard, the audience rules, the h1: hash and the index trust the
// stamps the state recorded for the other 499 (internal/fileid's Proves)
// and the sums it keeps of them. (What it must read besides: the new
// version in the stage, which the fetch writes and the audience rules,
// the hash and the indexer read; the index; the state; the lock.)
func TestUpdateOneOf500Opens(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.add500(t)
	// The install's last files may share the clock tick in which the
	// state was written, and are then read (racily clean): as when the
	// update runs later than one tick after the install, the state is
	// dated after them.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(w.statePath("docs"), later, later); err != nil {
		t.Fatal(err)
	}
	const changed = "d3/f123.md"
	f.commit("one file", map[string]string{"docs/" + changed: "# File 123, second edition\n"})
	c := newOpenCounter(t, w.pkgDir("docs"))
	r := f.must(w.Update(bg, nil, UpdateOptions{}))
	if got := actions(r); got != "docs:updated" {
		t.Fatalf("update: %s", got)
	}
	if r.Index == nil || r.Index.Updated != 1 || r.Index.Added != 0 || r.Index.Removed != 0 {
		t.Fatalf("index: %+v", r.Index)
	}
	opened := c.opens(t)
	var others []string
	for p, n := range opened {
		if p != changed {
			others = append(others, fmt.Sprintf("%s ×%d", p, n))
		}
	}
	sort.Strings(others)
	if len(others) > 0 {
		t.Errorf("the update opened %d files it did not change: %v", len(others), others)
	}
	t.Logf("opens of the package's files: %v", opened)
	if got := readFile(t, filepath.Join(w.pkgDir("docs"), changed)); got != "# File 123, second edition\n" {
		t.Errorf("%s = %q", changed, got)
	}
	checkClean(t, w)
}
