package project

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadStateHead: "withheld" first is read without the rest of the file
// (here the rest is not even JSON: it is never decoded); a file written
// by an older ctx, "withheld" after the records or absent, is read in
// full; a file that is not a JSON object is an error naming it.
func TestReadStateHead(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, data string
		want       []string
		bad        bool
	}{
		{"first", `{"withheld":["a.md","b/c.md"],"commit":"c","files":[{"path":` + "\x00not json", []string{"a.md", "b/c.md"}, false},
		{"null", `{"withheld":null,"commit":"c","files":[]}`, nil, false},
		{"older", `{"commit":"c","files":[{"path":"x.md"}],"audience":"p","withheld":["w.md"]}`, []string{"w.md"}, false},
		{"older-none", `{"commit":"c","files":[{"path":"x.md"}]}`, nil, false},
		{"empty", `{}`, nil, false},
		{"array", `["withheld"]`, nil, true},
		{"broken", `{"commit":"c","files":[`, nil, true},
	} {
		p := filepath.Join(dir, c.name+".json")
		if err := os.WriteFile(p, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		h, err := ReadStateHead(p)
		if (err != nil) != c.bad || !slices.Equal(h.Withheld, c.want) {
			t.Errorf("%s: ReadStateHead = %q, %v; want %q (error: %v)", c.name, h.Withheld, err, c.want, c.bad)
		}
	}
	if _, err := ReadStateHead(filepath.Join(dir, "missing.json")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v, want not-exist", err)
	}
}
