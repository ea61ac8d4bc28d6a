package webfetch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUsage: the https cache's size, snapshots and blobs, and its newest
// file's time; a cache root without an https folder is empty.
func TestUsage(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if u, err := Usage(root); err != nil || u.Bytes != 0 || u.Snapshots != 0 || u.Blobs != 0 || !u.LastUsed.IsZero() {
		t.Fatalf("empty: %+v, %v", u, err)
	}
	blob := strings.Repeat("ab", 32)
	files := map[string]string{
		"https/blobs/" + blob:                       "hello",
		"https/blobs/.incoming-1":                   "partial",
		"https/snapshots/" + blob + ".json":         "{}",
		"https/notfound/" + strings.Repeat("c", 64): "2026-01-01T00:00:00Z\n",
		"repo-0123456789ab/objects/pack/x.pack":     "not https",
	}
	var want int64
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(p, "https/") {
			want += int64(len(c))
		}
	}
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(root, "https", "blobs", blob), at, at); err != nil {
		t.Fatal(err)
	}
	u, err := Usage(root)
	if err != nil {
		t.Fatal(err)
	}
	if u.Bytes != want || u.Snapshots != 1 || u.Blobs != 1 || u.LastUsed.Before(at) || u.Dir != filepath.Join(root, "https") {
		t.Errorf("Usage = %+v; want %d bytes, 1 snapshot, 1 blob", u, want)
	}
}
