package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/indexer/markdown"
)

// The generator draws from the corpus's words, writes documents whose
// chunks follow their headings, and the same seed writes the same files.
func TestGenerate(t *testing.T) {
	corpus := t.TempDir()
	for name, body := range map[string]string{
		"book/ch1.md": "# Ownership\n\nOwnership rules: each value has an owner. The owner drops the value.\n",
		"book/ch2.md": "# Borrowing\n\nA reference borrows a value; the borrow checker checks lifetimes of references.\n",
	} {
		p := filepath.Join(corpus, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkgs, err := cutCorpus(corpus)
	if err != nil || len(pkgs) != 1 || pkgs[0].alias != "book" || len(pkgs[0].files) != 2 {
		t.Fatalf("cutCorpus = %+v, %v; want one package book of 2 files", pkgs, err)
	}
	v, err := buildVocab(corpus, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if v.words[0] != "the" && v.words[0] != "value" && v.words[0] != "owner" {
		t.Errorf("most frequent word %q", v.words[0])
	}
	var a, b strings.Builder
	heads := v.document(newRand(7), &a)
	v.document(newRand(7), &b)
	if a.String() != b.String() {
		t.Error("the same seed wrote two different documents")
	}
	doc := markdown.Parse([]byte(a.String()))
	if got := len(doc.Chunks()); got < heads-1 || got > heads+2 {
		t.Errorf("%d headings, %d chunks:\n%s", heads, got, a.String())
	}
	for _, w := range strings.Fields(strings.ToLower(a.String())) {
		w = strings.Trim(w, "#.,`-[]:")
		if w != "" && !strings.Contains(w, "-") && !strings.Contains("title tags --- ```sh ```", w) && !slices.Contains(v.words, w) {
			t.Errorf("word %q is not from the corpus", w)
			break
		}
	}
}
