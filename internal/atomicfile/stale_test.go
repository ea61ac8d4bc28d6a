package atomicfile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestIsTemp: the names WriteFile gives its temp files, and only those.
func TestIsTemp(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		".context.lock.123456.tmp":       true,
		".INDEX.md.9.tmp":                true,
		".x.json.4294967295.tmp":         true,
		".tmp":                           false, // .context/.tmp/, the staging folder
		"..tmp":                          false,
		"..1.tmp":                        false,
		".x.tmp":                         false, // no digits
		".x..tmp":                        false,
		".x.12a.tmp":                     false,
		"x.123.tmp":                      false, // no leading dot
		".context.lock.123.tmp.bak":      false,
		".incoming-123":                  false,
		".bleve-20261128T1.lock":         false,
		".context.config.json.12.tmp":    true,
		"._previous-lock.json.77.tmp":    true,
		".context.lock.123456.tmp/inner": false,
	} {
		if got := IsTemp(name); got != want {
			t.Errorf("IsTemp(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestTempNameIsTemp: a temp file WriteFile really makes is one IsTemp
// names (a write that cannot rename leaves its temp for the look).
func TestTempNameIsTemp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, err := os.CreateTemp(dir, "."+"context.lock"+".*.tmp") // write's own pattern
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if !IsTemp(filepath.Base(f.Name())) {
		t.Errorf("IsTemp(%q) = false for os.CreateTemp's name", filepath.Base(f.Name()))
	}
}

// TestStale: only temps older than StaleAge, regular files, are named; a
// fresh temp (a write in flight), a folder and the files written stay.
func TestStale(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Now()
	old := now.Add(-StaleAge - time.Minute)
	for name, mtime := range map[string]time.Time{
		".context.lock.1.tmp": old,
		".INDEX.md.2.tmp":     old,
		".INDEX.md.3.tmp":     now.Add(-time.Minute), // in flight
		"context.lock":        old,
		".keep.tmp":           old,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, ".dir.4.tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Chtimes(filepath.Join(dir, ".dir.4.tmp"), old, old)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := Stale(ents, now)
	slices.Sort(got)
	if want := []string{".INDEX.md.2.tmp", ".context.lock.1.tmp"}; !slices.Equal(got, want) {
		t.Errorf("Stale = %s, want %s", strings.Join(got, " "), strings.Join(want, " "))
	}
}

// TestTempOf: the file a temp was to replace, so that a sweep of a folder
// the user shares removes only the temps of its own files (rv-polish22).
func TestTempOf(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		".context.lock.123.tmp":   "context.lock",
		".INDEX.md.9.tmp":         "INDEX.md",
		"..gitignore.5.tmp":       ".gitignore", // "." + ".gitignore"
		".context.lock.tmp.5.tmp": "context.lock.tmp",
		".notes.1.tmp":            "notes",
		".x.tmp":                  "",
		"context.lock":            "",
	} {
		got, ok := TempOf(name)
		if got != want || ok != (want != "") {
			t.Errorf("TempOf(%q) = %q, %v, want %q", name, got, ok, want)
		}
	}
}
