package gitengine

import (
	"context"
	"math/rand"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	for name, url := range urls(t, f) {
		t.Run(name, func(t *testing.T) {
			e := New(Options{CacheDir: t.TempDir()})
			got, err := e.ReadFile(ctx, FetchRequest{URL: url, Commit: f.c2, Path: "docs/guides/deep/a.md"})
			if err != nil || string(got) != "# A\n\nalpha, revised\n" {
				t.Errorf("at c2: %q, %v", got, err)
			}
			got, err = e.ReadFile(ctx, FetchRequest{URL: url, Commit: f.c1, Path: "docs/guides/deep/a.md"})
			if err != nil || string(got) != "# A\n\nalpha\n" {
				t.Errorf("at c1: %q, %v", got, err)
			}
			for _, bad := range []string{"docs/guides", "docs/nope.md", "README.md/x", "../README.md", ""} {
				_, err := e.ReadFile(ctx, FetchRequest{URL: url, Commit: f.c2, Path: bad})
				if KindOf(err) != KindPathNotFound {
					t.Errorf("%q: %v, want path not found", bad, err)
				}
			}
			if _, err := e.ReadFile(ctx, FetchRequest{URL: url, Commit: f.c2, Path: "docs/guides/deep/link.md"}); KindOf(err) != KindPathNotFound {
				t.Errorf("a symlink is not read as a file: %v", err)
			}
		})
	}
}

// Reading one file moves the trees and that blob, not the folder around it.
func TestReadFileMovesOneBlob(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	// 256 KB that does not compress, beside the file we read.
	noise := make([]byte, 256<<10)
	rand.New(rand.NewSource(1)).Read(noise)
	c3 := gittest.Commit(t, f.src, "noise", map[string]string{"noise.bin": string(noise)})
	gittest.MustGit(t, f.bare, "fetch", "-q", f.src, "+master:master")
	s := f.serve(gittest.ServeOptions{})
	url := s.URL + "/repo.git"

	e := New(Options{CacheDir: t.TempDir()})
	if _, err := e.ReadFile(ctx, FetchRequest{URL: url, Commit: c3, Path: "README.md"}); err != nil {
		t.Fatal(err)
	}
	if one := s.BytesSent(); one > 64<<10 {
		t.Errorf("reading README.md sent %d bytes: more than the trees and one blob", one)
	}
	// A second read comes from the cache.
	s.ResetCounters()
	if got, err := e.ReadFile(ctx, FetchRequest{URL: url, Commit: c3, Path: "README.md"}); err != nil || !strings.HasPrefix(string(got), "# repo") {
		t.Fatalf("cached read: %q, %v", got, err)
	}
	if n := s.Requests(); n != 0 {
		t.Errorf("cached read made %d requests", n)
	}
}
