package indexer

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEditedOfEmptyState (rv-trust23): a state ctx wrote that records no
// file (an empty package: every document withheld, or none at the source
// path) still tells the documents added since as edits, as ctx status
// lists them ("A") and ctx mcp labels them; only a state that records
// neither a file nor a hash (a stub, or a ctx from before files were
// recorded) has nothing to tell a file by.
func TestEditedOfEmptyState(t *testing.T) {
	dir := t.TempDir()
	recs := []fileRecord{{Path: "added.md", Hash: "00112233445566778899aabbccddeeff"}}
	for _, c := range []struct{ state, want string }{
		{`{"withheld":null,"commit":"` + hex40 + `","tree":"` + hex40 + `","hash":"h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=","files":[]}`, "added.md"},
		{`{"withheld":null,"commit":"` + hex40 + `","files":[]}`, ""},
	} {
		p := filepath.Join(dir, "s.json")
		if err := os.WriteFile(p, []byte(c.state), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := editedOf(p, recs); got != c.want {
			t.Errorf("state %s: editedOf = %q, want %q", c.state, got, c.want)
		}
	}
}

const hex40 = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"
