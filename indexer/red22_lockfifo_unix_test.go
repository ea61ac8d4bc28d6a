//go:build unix

package indexer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRed22ReaderLockFifo (red22, note21's Left: "locks under .context/
// still follow links"): a Reader takes its shared locks on lock files it
// finds in index/ (the live bleve folder's open lock, the writer's lock)
// by opening them read-only as they are. A fifo there (a project copied
// from a tar archive, which keeps fifos and links, or another user of a
// shared folder) made every search wait for a writer for ever: this test
// hung. A link there is not followed. Either is refused, naming the file.
func TestRed22ReaderLockFifo(t *testing.T) {
	t.Parallel()
	for _, planted := range []string{"fifo", "link"} {
		dir := setupCorpus(t)
		if _, err := Sync(context.Background(), dir, testPackages(), Options{}); err != nil {
			t.Fatal(err)
		}
		r0, err := OpenReader(dir)
		if err != nil {
			t.Fatal(err)
		}
		r0.mu.Lock()
		err = r0.loadMetaLocked()
		name := r0.meta.Bleve
		r0.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		lp := dirLockPath(filepath.Join(dir, "index"), name)
		_ = os.Remove(lp)
		switch planted {
		case "fifo":
			if err := syscall.Mkfifo(lp, 0o644); err != nil {
				t.Skip("no fifo:", err)
			}
		case "link":
			target := filepath.Join(t.TempDir(), "elsewhere")
			if err := os.Symlink(target, lp); err != nil {
				t.Fatal(err)
			}
			defer func() {
				if _, err := os.Lstat(target); err == nil {
					t.Errorf("%s: opening the lock made a file where the link points", planted)
				}
			}()
		}
		r, err := OpenReader(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Search(context.Background(), Query{Text: "install", Limit: 5})
		r.Close()
		if err == nil || !strings.Contains(err.Error(), lp) {
			t.Errorf("%s at %s: search gave %v, want a refusal naming it", planted, lp, err)
		}
	}
}
