//go:build linux

package gittest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"path"
	"syscall"
	"testing"
)

// FileEvents counts, with inotify, the events of one kind (opens, renames
// into place…) on the files of some folders since it started. The kernel
// queues an event in the system call itself, so once the command under
// test has returned, every event it caused is in the queue: reading the
// queue then is exact, with no waiting. Test-only: ctx's code has no hook.
type FileEvents struct {
	fd     int
	labels map[int32]string // watch descriptor → the folder's label
}

// WatchFiles starts counting the events in mask (syscall.IN_OPEN,
// syscall.IN_MOVED_TO…) on the files of each folder of labels (folder path
// → the label that names it in Count's keys). It skips the test where
// inotify is not available or no watch is left (max_user_watches), and
// closes its descriptor at the test's end.
func WatchFiles(t testing.TB, mask uint32, labels map[string]string) *FileEvents {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	w := &FileEvents{fd: fd, labels: map[int32]string{}}
	for dir, label := range labels {
		wd, err := syscall.InotifyAddWatch(fd, dir, mask)
		if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.ENOMEM) {
			// fs.inotify.max_user_watches reached (an editor or a file
			// syncer on the same account holds the rest): no count here.
			t.Skipf("inotify: no watch left for %s: %v (fs.inotify.max_user_watches)", dir, err)
		}
		if err != nil {
			t.Fatal(err)
		}
		w.labels[int32(wd)] = label
	}
	return w
}

// Count returns how many events each file had since the last call, keyed
// by its folder's label and its name ("label/name"; the name alone under
// an empty or "." label). A folder's own events are not counted.
func (w *FileEvents) Count(t testing.TB) map[string]int {
	t.Helper()
	return w.count(t, false)
}

// CountWithFolders is Count with the folders' own events as well, each
// keyed by its label and a slash ("d3/"; "./" for an empty or "." label):
// an IN_OPEN of a folder is a read of its entries (or an open of it as a
// root to stat below).
func (w *FileEvents) CountWithFolders(t testing.TB) map[string]int {
	t.Helper()
	return w.count(t, true)
}

func (w *FileEvents) count(t testing.TB, folders bool) map[string]int {
	t.Helper()
	out := map[string]int{}
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(w.fd, buf)
		if errors.Is(err, syscall.EAGAIN) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		overflow := false
		eachInotifyEvent(buf[:n], func(wd int32, mask uint32, name string) {
			switch {
			case mask&syscall.IN_Q_OVERFLOW != 0:
				overflow = true
			case name == "" && folders:
				out[path.Clean(w.labels[wd])+"/"]++
			case mask&syscall.IN_ISDIR != 0 || name == "":
				// a folder's own event, not a file's
			default:
				out[path.Join(w.labels[wd], name)]++
			}
		})
		if overflow {
			t.Fatal("inotify: the event queue overflowed")
		}
	}
}

// eachInotifyEvent calls fn with each event of buf, as read(2) gave them
// from an inotify descriptor: its watch, its mask and the file's name in
// the watched folder ("" for the folder's own).
func eachInotifyEvent(buf []byte, fn func(wd int32, mask uint32, name string)) {
	for b := buf; len(b) >= syscall.SizeofInotifyEvent; {
		var ev syscall.InotifyEvent
		_ = binary.Read(bytes.NewReader(b[:syscall.SizeofInotifyEvent]), binary.NativeEndian, &ev)
		end := min(len(b), syscall.SizeofInotifyEvent+int(ev.Len))
		name := string(bytes.TrimRight(b[syscall.SizeofInotifyEvent:end], "\x00"))
		b = b[end:]
		fn(ev.Wd, ev.Mask, name)
	}
}
