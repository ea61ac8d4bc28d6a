package project

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadStateHead: "withheld" and "commit" first are read without the rest of the file
// (here the rest is not even JSON: it is never decoded); a file written
// by an older ctx, "withheld" after the records or absent, is read in
// full; a file that is not a JSON object is an error naming it.
func TestReadStateHead(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, data string
		want       []string
		commit     string
		bad        bool
	}{
		{"first", `{"withheld":["a.md","b/c.md"],"commit":"c","files":[{"path":` + "\x00not json", []string{"a.md", "b/c.md"}, "c", false},
		{"null", `{"withheld":null,"commit":"c","files":[]}`, nil, "c", false},
		{"older", `{"commit":"c","files":[{"path":"x.md"}],"audience":"p","withheld":["w.md"]}`, []string{"w.md"}, "c", false},
		{"commit-later", `{"withheld":["w.md"],"tree":"t","commit":"c","files":[]}`, []string{"w.md"}, "c", false},
		{"older-none", `{"commit":"c","files":[{"path":"x.md"}]}`, nil, "c", false},
		{"empty", `{}`, nil, "", false},
		{"array", `["withheld"]`, nil, "", true},
		{"broken", `{"commit":"c","files":[`, nil, "", true},
	} {
		p := filepath.Join(dir, c.name+".json")
		if err := os.WriteFile(p, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		h, err := ReadStateHead(p)
		if (err != nil) != c.bad || !slices.Equal(h.Withheld, c.want) || h.Commit != c.commit {
			t.Errorf("%s: ReadStateHead = %q %q, %v; want %q %q (error: %v)", c.name, h.Withheld, h.Commit, err, c.want, c.commit, c.bad)
		}
	}
	if _, err := ReadStateHead(filepath.Join(dir, "missing.json")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v, want not-exist", err)
	}
}
