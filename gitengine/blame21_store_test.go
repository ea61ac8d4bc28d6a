package gitengine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A damaged store in the shared cache (a pack's index refused or junk, a
// pack cut short) made an update fail with "the server did not send blob
// …": go-git leaves the pack out, the haves name commits whose objects it
// cannot read, and the server rightly sends a thin pack. That blamed the
// server for the cache's damage (review of own21, "Left"). The error is
// the cache's: it names the store, what is wrong in it, and says to
// delete that folder.
func TestBlame21DamagedStoreNotTheServer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, idx, pack string)
	}{
		{"junk idx", func(t *testing.T, idx, _ string) {
			if err := os.WriteFile(idx, []byte("not an index"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"fifo idx", func(t *testing.T, idx, _ string) {
			if err := os.Remove(idx); err != nil {
				t.Fatal(err)
			}
			if err := mkfifo(idx); err != nil {
				t.Skip(err)
			}
		}},
		{"pack cut short", func(t *testing.T, _, pack string) {
			fi, err := os.Stat(pack)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(pack, fi.Size()-1); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, url, cache := own21Cached(t)
			store := storeOf(t, cache)
			m, err := filepath.Glob(filepath.Join(store, "objects", "pack", "*.idx"))
			if err != nil || len(m) == 0 {
				t.Fatalf("no pack index in the store: %v", err)
			}
			tc.damage(t, m[0], strings.TrimSuffix(m[0], ".idx")+".pack")
			dest := filepath.Join(t.TempDir(), "b")
			_, err = New(Options{CacheDir: cache}).Materialize(context.Background(), FetchRequest{URL: url, Commit: f.c2, Path: "docs/guides/deep"}, dest)
			t.Logf("Materialize: %v", err)
			if err == nil {
				return // fetched again whole: nothing blamed
			}
			var de *CacheDamagedError
			if strings.Contains(err.Error(), "server did not send") || !errors.As(err, &de) || !strings.Contains(err.Error(), store) || !strings.Contains(err.Error(), "delete that folder") {
				t.Errorf("error %q; want the cache's store %s named as damaged, and what to do", err, store)
			}
		})
	}
}

// storeDamage finds nothing in a sound store, and names a pack cut short
// (its end no longer the checksum its index names) and a junk index.
func TestBlame21StoreDamage(t *testing.T) {
	t.Parallel()
	_, _, cache := own21Cached(t)
	store := storeOf(t, cache)
	if why := storeDamage(store); why != "" {
		t.Fatalf("a sound store: %q; want nothing", why)
	}
	m, err := filepath.Glob(filepath.Join(store, "objects", "pack", "*.pack"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no pack in the store: %v", err)
	}
	fi, err := os.Stat(m[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(m[0], fi.Size()-1); err != nil {
		t.Fatal(err)
	}
	if why := storeDamage(store); !strings.Contains(why, m[0]) || !strings.Contains(why, "cut short") {
		t.Errorf("a pack cut short: %q; want it named", why)
	}
	if err := os.WriteFile(strings.TrimSuffix(m[0], ".pack")+".idx", []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if why := storeDamage(store); !strings.Contains(why, filepath.Base(m[0])) || !strings.Contains(why, "index") {
		t.Errorf("a junk index: %q; want it named", why)
	}
}
