package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRefSuffixOnlyInPath: SOURCE@REF is a ref only when the '@' is in a
// URL's path; an '@' in its query or fragment (an https document's
// ?from=me@example) is part of a source ctx adds as it is (review18d: it
// was refused with exit 2, and the command it gave dropped the query).
func TestRefSuffixOnlyInPath(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "handbook"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		source, base, ref string
		ok                bool
	}{
		{"https://github.com/acme/handbook@v1.2", "https://github.com/acme/handbook", "v1.2", true},
		{"handbook@main", "handbook", "main", true},
		{"https://example.com/guide.md?from=me@example", "", "", false},
		{"https://example.com/llms.txt?a=1&by=x@y", "", "", false},
		{"https://example.com/docs/guide.md#see@here", "", "", false},
		{"https://user@example.com", "", "", false},
		{"git@github.com:acme/handbook", "", "", false},
		{"npm:@scope/pkg", "", "", false},
	} {
		base, ref, ok := refSuffix(root, c.source)
		if ok != c.ok || base != c.base || ref != c.ref {
			t.Errorf("refSuffix(%q) = %q, %q, %v; want %q, %q, %v", c.source, base, ref, ok, c.base, c.ref, c.ok)
		}
	}
}
