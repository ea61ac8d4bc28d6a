package lockwait

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A lock file planted as a symbolic link is not opened: no empty file is
// made where it points, and taking it says ErrLinkedLock naming it
// (own21; flock.New's O_CREATE followed the link).
func TestFileRefusesLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	lock := filepath.Join(dir, "x.lock")
	if err := os.Symlink(victim, lock); err != nil {
		t.Fatal(err)
	}
	for name, take := range map[string]func(context.Context, string) (bool, error){
		"exclusive": func(ctx context.Context, p string) (bool, error) { return Exclusive(ctx, File(p), 0) },
		"shared":    func(ctx context.Context, p string) (bool, error) { return Shared(ctx, File(p), Forever) },
	} {
		ok, err := take(context.Background(), lock)
		if ok || !errors.Is(err, ErrLinkedLock) {
			t.Errorf("%s: took a linked lock: %v, %v; want ErrLinkedLock", name, ok, err)
		}
		if _, err := os.Lstat(victim); err == nil {
			t.Fatalf("%s: a file was made where the link points", name)
		}
	}
	// A real lock file is made and taken.
	fl := File(filepath.Join(dir, "y.lock"))
	if ok, err := Exclusive(context.Background(), fl, 0); !ok || err != nil {
		t.Fatalf("Exclusive = %v, %v", ok, err)
	}
	_ = fl.Unlock()
}
