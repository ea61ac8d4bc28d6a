package mcpserver

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A fenced block indented inside a list item (note22's Left: read as
// indented code) is a block to read_relevant: a passage cut inside it
// closes it, and one that starts inside it opens it with its language.
func TestReadRelevantListItemFence(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("# Walrus\n\n## Install\n\n1.  Install the walrus tools:\n\n    ```sh\n")
	for i := range 400 {
		fmt.Fprintf(&b, "    walrus-install --key walrus_key_%d\n", i)
		if i%50 == 49 {
			b.WriteString("\n")
		}
	}
	b.WriteString("    ```\n\n2.  Done.\n")
	writeFile(t, filepath.Join(dir, "notes", "walrus.md"), b.String())
	cs := indexedNotes(t, dir)
	a := readRelevant(t, cs, map[string]any{"query": "walrus install key", "maxTokens": 1500})
	opened := 0
	for i, text := range a.texts {
		lines := strings.Split(text, "\n")
		if !strings.HasPrefix(lines[0], "[") {
			continue // the note's text
		}
		fences := 0
		for _, l := range lines[1:] {
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				fences++
			}
		}
		if fences%2 != 0 {
			t.Errorf("text %d has %d fences, an open block:\n%.300s\n…\n%s", i+1, fences, text, text[max(0, len(text)-300):])
		}
		if len(lines) > 1 && strings.HasPrefix(lines[1], "```") {
			opened++
			if lines[1] != "```sh" {
				t.Errorf("text %d reopens the block as %q, want its language: ```sh", i+1, lines[1])
			}
		}
	}
	if opened == 0 {
		t.Errorf("no passage starts inside the block: the test tests nothing (%d texts)", len(a.texts))
	}
}
