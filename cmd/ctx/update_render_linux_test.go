package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// renames counts, with inotify, the files renamed into each of dirs (an
// atomic write's last step) since it started: the kernel queues the event
// in the rename itself, so once the command under test has returned every
// rename it made is in the queue, and reading it then is exact.
type renames struct {
	fd   int
	dirs map[int32]string
}

func watchRenames(t *testing.T, dirs ...string) *renames {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	r := &renames{fd: fd, dirs: map[int32]string{}}
	for _, d := range dirs {
		wd, err := syscall.InotifyAddWatch(fd, d, syscall.IN_MOVED_TO)
		if err != nil {
			t.Fatal(err)
		}
		r.dirs[int32(wd)] = d
	}
	return r
}

// count returns how many times each file (folder/name) was renamed into place.
func (r *renames) count(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(r.fd, buf)
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
			out[filepath.Base(r.dirs[ev.Wd])+"/"+name]++
		}
	}
}

// TestUpdateRendersIndexMDOnce: `ctx update` of a package whose documents
// changed writes INDEX.md, and the catalogue's top, once: the changes
// summary is worked out while the index is brought up to date and goes
// into INDEX.md's "Recently changed" in the same render (issue 31: it was
// rendered and written twice, once by the index, again by the summary).
func TestUpdateRendersIndexMDOnce(t *testing.T) {
	t.Parallel()
	if !gittest.Available() {
		t.Skip("needs git")
	}
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	gittest.NewRepo(t, repo, map[string]string{"docs/a.md": "# Alpha\n\nalpha words.\n", "docs/b.md": "# Beta\n\nbeta words.\n"})
	proj := filepath.Join(base, "p")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init"}, {"add", repo, "--path", "docs", "--alias", "docs"}} {
		if code, _, stderr := runCtx("", append([]string{"-C", proj}, args...)...); code != 0 {
			t.Fatalf("ctx %v: exit %d: %s", args, code, stderr)
		}
	}
	gittest.Commit(t, repo, "edit", map[string]string{"docs/a.md": "# Alpha\n\n## Usage\n\nnew words.\n"})
	ctxDir := filepath.Join(proj, ".context")
	r := watchRenames(t, ctxDir, filepath.Join(ctxDir, "index"))
	code, stdout, stderr := runCtx("", "-C", proj, "update")
	if code != 0 {
		t.Fatalf("ctx update: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "docs: 1 document") {
		t.Errorf("no summary of what changed:\n%s", stdout)
	}
	got := r.count(t)
	if got[".context/INDEX.md"] != 1 || got["index/catalog.json"] != 1 {
		t.Errorf("INDEX.md written %d times, catalog.json %d times; want once each (all renames: %v)", got[".context/INDEX.md"], got["index/catalog.json"], got)
	}
	t.Logf("renames: %v", got)
	md, err := os.ReadFile(filepath.Join(ctxDir, "INDEX.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## Recently changed\n") || !strings.Contains(string(md), "`a.md: ") {
		t.Errorf("INDEX.md does not say what changed:\n%s", md)
	}
}
