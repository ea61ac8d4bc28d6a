//go:build unix

package registry

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReview17bImportNotARegularFile: a registry on this machine is still
// someone else's text when the committed manifest names it (a file in
// the clone: "registry": ".context/hub.json"); fixT17b refuses local
// imports only from a registry read over the network. Such a registry's
// import of a FIFO or a device (/dev/stdin) is opened and read: ctx setup
// blocks until the other end writes (`sleep 30 | ctx setup` hangs with
// "imports": ["/dev/stdin"]; red17 finding 5's hang, through a pull). A
// registry location that is not a regular file should be refused before
// it is opened, whoever names it.
func TestReview17bImportNotARegularFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	hub := filepath.Join(dir, "hub.json")
	writeFile(t, hub, reg("hub", []string{fifo}, "a=https://example.com/a.git"))
	// The other end of the pipe: what a terminal's user would type.
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		_, _ = f.WriteString(reg("typed", nil, "fromfifo=https://example.com/typed.git"))
		_ = f.Close()
	}()
	t.Cleanup(func() {
		// Unblock the writer if Load never opened the pipe.
		if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			<-wrote
			_ = f.Close()
		}
	})
	var rec recorder
	res, err := rec.loader().Load(context.Background(), hub)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	for _, c := range res.Contexts {
		if c.Name == "fromfifo" {
			t.Errorf("the import of a FIFO was read (it blocks until the other end writes): contexts %v", res.Contexts)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if !strings.Contains(strings.Join(rec.warnings, "\n"), "regular file") {
		t.Errorf("warnings %q: want the import skipped as not a regular file", rec.warnings)
	}
}
