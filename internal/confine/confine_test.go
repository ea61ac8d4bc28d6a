package confine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDirRefusesLinks(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, ".context")
	victim := filepath.Join(base, "victim")
	for _, d := range []string{root, victim} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(victim, "f"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(root, "index")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(victim, "f"), filepath.Join(root, ".lock")); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(filepath.Join(victim, "f"))
	if err != nil {
		t.Fatal(err)
	}
	d := New(root)
	for name, err := range map[string]error{
		"write under":   d.WriteFileAtomic("index/meta.json", []byte("x"), 0o644),
		"cache under":   d.WriteCacheAtomic("index/walks.bin", []byte("x"), 0o644),
		"mkdir under":   d.MkdirAll("index/bleve-1", 0o755),
		"remove under":  d.RemoveAll("index/f"),
		"rename under":  d.Rename("index/f", "g"),
		"rename onto":   d.Rename("g", "index/f"),
		"write a link":  d.WriteFile(".lock", nil, 0o644),
		"truncate link": d.Truncate(".lock"),
		"chmod a link":  d.Chmod(".lock", 0o755),
		"chmod under":   d.Chmod("index/f", 0o755),
		"absolute":      d.Remove(filepath.Join(root, "index", "f")),
	} {
		var le *LinkError
		if !errors.As(err, &le) || !errors.Is(err, ErrLink) || !strings.Contains(err.Error(), "remove it") {
			t.Errorf("%s: got %v, want a LinkError", name, err)
		}
	}
	if err := d.Remove("../victim/f"); err == nil {
		t.Error("a path leaving the directory was accepted")
	}
	if data, err := os.ReadFile(filepath.Join(victim, "f")); err != nil || string(data) != "mine" {
		t.Fatalf("victim changed: %q %v", data, err)
	}
	if fi, err := os.Stat(filepath.Join(victim, "f")); err != nil || fi.Mode() != before.Mode() {
		t.Fatalf("victim's mode changed: %v %v", fi.Mode(), err)
	}
	// A link as the last element of a delete is deleted itself.
	if err := d.RemoveAll("index"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(victim, "f")); err != nil {
		t.Fatalf("victim gone: %v", err)
	}
	// .context itself a link.
	if err := os.Symlink(victim, filepath.Join(base, "ctx2")); err != nil {
		t.Fatal(err)
	}
	if err := New(filepath.Join(base, "ctx2")).MkdirAll("packages", 0o755); !errors.Is(err, ErrLink) {
		t.Errorf("root a link: got %v", err)
	}
	// Read-only refuses every change.
	if err := d.ReadOnly().WriteFileAtomic("x", nil, 0o644); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only write: got %v", err)
	}
	if err := d.ReadOnly().WriteCacheAtomic("x", nil, 0o644); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only cache write: got %v", err)
	}
	// Both atomic writes make the parent folders.
	if err := d.WriteFileAtomic("sub/x", []byte("ok"), 0o644); err != nil {
		t.Errorf("plain write: %v", err)
	}
	if err := d.WriteCacheAtomic("sub2/y", []byte("ok"), 0o644); err != nil {
		t.Errorf("plain cache write: %v", err)
	}
	for _, p := range []string{"sub/x", "sub2/y"} {
		if data, err := os.ReadFile(filepath.Join(root, p)); err != nil || string(data) != "ok" {
			t.Errorf("%s: %q %v", p, data, err)
		}
	}
}
