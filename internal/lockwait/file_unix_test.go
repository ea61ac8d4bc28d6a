//go:build unix

package lockwait

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ctx-dev/ctx/internal/boundedfile"
)

// A fifo planted where a shared cache's lock goes (review of own21): the
// lock's open (O_RDONLY, no writer) waited forever, so every install,
// update and gc using that cache hung. File opens without waiting
// (boundedfile.NonBlock) and taking a lock that is not a regular file is
// refused, naming it; the fifo is left as it is.
func TestFileRefusesFifo(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "x.lock")
	if err := syscall.Mkfifo(lock, 0o644); err != nil {
		t.Skip(err)
	}
	for name, take := range map[string]func(context.Context, string) (bool, error){
		"exclusive, no wait": func(ctx context.Context, p string) (bool, error) { return Exclusive(ctx, File(p), 0) },
		"shared, forever":    func(ctx context.Context, p string) (bool, error) { return Shared(ctx, File(p), Forever) },
	} {
		ok, err := take(context.Background(), lock)
		if ok || !errors.Is(err, boundedfile.ErrNotRegular) {
			t.Errorf("%s: a fifo for the lock: %v, %v; want ErrNotRegular", name, ok, err)
		} else if msg := err.Error(); !contains(msg, lock) || !contains(msg, "a fifo") || !contains(msg, "remove it") {
			t.Errorf("%s: %q; want it to name the file, what it is and what to do", name, msg)
		}
		if fi, err := os.Lstat(lock); err != nil || fi.Mode().Type() != os.ModeNamedPipe {
			t.Errorf("%s: the fifo was changed: %v, %v", name, fi, err)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
