package lockfiletest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/lockfile"
)

func sample() *lockfile.Lock {
	c, tr, h := strings.Repeat("a", 40), strings.Repeat("b", 40), "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
	return &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{
		"zeta":  {Source: "https://example.com/z.git", Rev: c, Tree: tr, Hash: h},
		"alpha": {Source: "../docs", Path: "guides/api", Ref: "v1", Rev: c, Tree: tr, Hash: h},
	}}
}

// Write leaves a lock whose bytes would not change untouched, replaces one
// that changes without a temp file left, and Read reads it back.
func TestWriteAtomicUnchanged(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "context.lock")
	if err := Write(p, sample()); err != nil {
		t.Fatal(err)
	}
	old := time.Unix(1_000_000_000, 0)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, sample()); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if !fi.ModTime().Equal(old) {
		t.Fatalf("unchanged lock was rewritten (mtime %v)", fi.ModTime())
	}
	l := sample()
	delete(l.Packages, "zeta")
	if err := Write(p, l); err != nil {
		t.Fatal(err)
	}
	got, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Packages) != 1 {
		t.Fatalf("after write: %d packages", len(got.Packages))
	}
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 1 {
		t.Fatalf("temp files left: %v", ents)
	}
	if _, err := Read(filepath.Join(t.TempDir(), "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
}
