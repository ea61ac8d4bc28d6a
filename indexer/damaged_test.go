package indexer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDamagedIndexFileMessages (polish22b): an index file cut short gives
// one clear message in each place. A reader's error names the file, what
// is wrong and what to run, and is a *DamagedFileError (so `ctx search`
// adds no second hint); Sync, which rebuilds such an index itself, names
// the file and what is wrong and says it rebuilds: no hint to run what is
// already running.
func TestDamagedIndexFileMessages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	part := func() string {
		var c catalog
		if err := readJSON(filepath.Join(dir, "index", catalogFile), &c); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, "index", catalogDir, c.Parts["ops"].File)
	}
	for _, name := range []string{metaFile, catalogFile, "part"} {
		p := filepath.Join(dir, "index", name)
		if name == "part" {
			p = part()
		}
		good, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, good[:len(good)/2], 0o644); err != nil {
			t.Fatal(err)
		}
		if name == catalogFile {
			r, err := OpenReader(dir)
			if err == nil {
				_, err = r.Freshness(testPackages())
				r.Close()
			}
			var d *DamagedFileError
			if !errors.As(err, &d) || d.Path != p || !strings.Contains(err.Error(), p+": unexpected end of JSON input (run `ctx index --rebuild` to recreate it)") {
				t.Errorf("%s: a reader's error %v: want a *DamagedFileError naming the file, what is wrong and what to run", name, err)
			}
		}
		// The part is read when its package changed.
		writeFiles(t, dir, "ops", map[string]string{"x.md": "# X\n\n" + name + "\n"})
		var warns []string
		rep, err := Sync(ctx, dir, testPackages(), Options{Warn: func(s string) { warns = append(warns, s) }})
		if err != nil || !rep.Rebuilt {
			t.Fatalf("%s: Sync over it: %+v %v, want a rebuild", name, rep, err)
		}
		want := p + ": unexpected end of JSON input; rebuilding the index"
		if j := strings.Join(warns, "\n"); !strings.Contains(j, want) || strings.Contains(j, "ctx index") {
			t.Errorf("%s: Sync's warnings %q: want %q and no hint to run `ctx index`", name, warns, want)
		}
	}
}
