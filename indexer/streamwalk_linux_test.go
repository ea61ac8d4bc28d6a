package indexer

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"path/filepath"
	"syscall"
	"testing"
)

// folderOpens counts, with inotify, the opens of a folder itself (each
// walk opens it once to read its entries).
type folderOpens struct{ fd int }

func watchFolderOpens(t *testing.T, dir string) *folderOpens {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_OPEN); err != nil {
		t.Fatal(err)
	}
	return &folderOpens{fd: fd}
}

func (w *folderOpens) count(t *testing.T) int {
	t.Helper()
	n := 0
	buf := make([]byte, 64<<10)
	for {
		m, err := syscall.Read(w.fd, buf)
		if errors.Is(err, syscall.EAGAIN) {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		for b := buf[:m]; len(b) >= syscall.SizeofInotifyEvent; {
			var ev syscall.InotifyEvent
			if err := binary.Read(bytes.NewReader(b[:syscall.SizeofInotifyEvent]), binary.NativeEndian, &ev); err != nil {
				t.Fatal(err)
			}
			if ev.Mask&syscall.IN_Q_OVERFLOW != 0 {
				t.Fatal("inotify: the event queue overflowed")
			}
			if ev.Len == 0 && ev.Mask&syscall.IN_OPEN != 0 {
				n++ // the watched folder's own open
			}
			b = b[syscall.SizeofInotifyEvent+int(ev.Len):]
		}
	}
}

// TestStreamWalksLandedOnce: Finish plans a landed package from the walk
// the Stream made of it, not from a second one (a one-file update walked
// its 500 files twice for the index), and the report and the search are
// as before.
func TestStreamWalksLandedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, "ops", map[string]string{"new.md": "# New\n\nThe word capybara is new.\n"})
	opens := watchFolderOpens(t, filepath.Join(dir, "packages", "ops"))
	s, err := StartSync(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Landed(Package{Alias: "ops"})
	rep, err := s.Finish(ctx, testPackages())
	if err != nil {
		t.Fatal(err)
	}
	if n := opens.count(t); n != 1 {
		t.Errorf("the landed package's folder was read %d times; want 1 (the Stream's walk, which Finish plans from)", n)
	}
	if rep.Rebuilt || rep.Added != 1 || rep.Updated != 0 || rep.Removed != 0 {
		t.Errorf("report = %+v, want 1 added, no rebuild", rep)
	}
	if got := searchPaths(t, dir, "capybara"); len(got) != 1 || got[0] != "ops/new.md" {
		t.Errorf("search capybara = %v", got)
	}
	// The next Sync finds nothing to do: the records are those of the walk.
	if rep, err := Sync(ctx, dir, testPackages(), Options{}); err != nil || rep.Added+rep.Updated+rep.Removed != 0 {
		t.Errorf("the Sync after: %+v, %v; want nothing changed", rep, err)
	}
}
