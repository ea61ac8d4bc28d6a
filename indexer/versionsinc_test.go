package indexer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestVersionsIncrementalAsFresh: after each one-file update that changes
// a package's families (two chapters' shared page given the same title,
// a release's page added, one made a kind and back, one deleted, a release
// added and a page of another removed), the families versions.bin
// records are those of a fresh index of the same files: the per-package
// key (familyInput) leaves no stale entry.
func TestVersionsIncrementalAsFresh(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	state := map[string]string{
		"course/1.1/intro.md":     "# Getting around\n\nshell\n",
		"course/1.1/exercises.md": "# Exercises one\n\nshell\n",
		"course/1.1/extra.md":     "# Extra\n\nshell\n",
		"course/1.2/intro.md":     "# Files\n\nshell\n",
		"course/1.2/exercises.md": "# Exercises two\n\nshell\n",
		"course/1.2/extra.md":     "# Extra\n\nshell\n",
		"docs/v1.0/a.md":          "# A\n\nx\n",
		"docs/v1.0/b.md":          "# B\n\nx\n",
		"docs/v2.0/a.md":          "# A\n\nx\n",
		"docs/v2.0/b.md":          "# B\n\nx\n",
		"docs/v2.0/c.md":          "# C\n\nx\n",
		"docs/v2.0/d.md":          "# D\n\nx\n",
	}
	steps := []map[string]string{
		{"course/1.2/intro.md": "# Getting around\n\nshell\n"},                        // title made the same: a family
		{"docs/v1.0/c.md": "# C\n\nx\n"},                                              // more copies
		{"docs/v1.0/a.md": "# Upgrading to 2.0\n\nx\n"},                               // a kind
		{"docs/v1.0/a.md": "# A\n\nx\n", "course/1.2/intro.md": "# Files\n\nshell\n"}, // back
		{"-docs/v1.0/c.md": ""},
		{"docs/v3.0/a.md": "# A\n\nx\n", "docs/v3.0/b.md": "# B\n\nx\n", "-docs/v2.0/b.md": ""},
	}
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "p", state)
	pkgs := []Package{{Alias: "p"}}
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	for i, st := range steps {
		for k, v := range st {
			if k[0] == '-' {
				delete(state, k[1:])
				os.Remove(filepath.Join(dir, "packages", "p", k[1:]))
				continue
			}
			state[k] = v
		}
		writeFiles(t, dir, "p", func() map[string]string {
			m := map[string]string{}
			for k, v := range st {
				if k[0] != '-' {
					m[k] = v
				}
			}
			return m
		}())
		if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
			t.Fatal(err)
		}
		fresh := filepath.Join(t.TempDir(), ".context")
		writeFiles(t, fresh, "p", state)
		if _, err := Sync(ctx, fresh, pkgs, Options{}); err != nil {
			t.Fatal(err)
		}
		get := func(d string) (string, bool) {
			r, err := OpenReader(d)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			read, _, derived := snapshotVersions(t, r)
			return dumpVersions(read), derived
		}
		a, da := get(dir)
		b, db := get(fresh)
		if a != b || da || db {
			t.Errorf("step %d: incremental (derived %v)\n%s\nfresh (derived %v)\n%s", i, da, a, db, b)
		}
	}
}
