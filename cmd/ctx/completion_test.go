package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Completion offers package aliases, --client and --kind values and config
// keys, not only command names (cobra's __complete, as the shells call it).
func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".context"), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := `{"index": {}, "packages": [{"alias": "api", "source": "https://git.example/api.git"}, {"alias": "notes", "kind": "dir", "source": "./notes"}]}`
	if err := os.WriteFile(filepath.Join(dir, ".context", "context.config.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"update", ""}, []string{"api", "notes"}},
		{[]string{"remove", "a"}, []string{"api"}},
		{[]string{"links", ""}, []string{"api/", "notes/"}},
		{[]string{"search", "--package", ""}, []string{"api", "notes"}},
		{[]string{"mcp", "config", "--client", ""}, []string{"claude", "cursor", "codex", "vscode"}},
		{[]string{"add", "--kind", ""}, []string{"git", "dir", "https"}},
		{[]string{"config", "get", ""}, []string{"registry"}},
	} {
		code, out, stderr := runCtx("", append([]string{"-C", dir, "__complete"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("complete %q: exit %d: %s", tc.args, code, stderr)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if line != "" && !strings.HasPrefix(line, ":") {
				got = append(got, strings.SplitN(line, "\t", 2)[0])
			}
		}
		for _, w := range tc.want {
			found := false
			for _, g := range got {
				found = found || g == w
			}
			if !found {
				t.Errorf("complete %q: %q lacks %q", tc.args, got, w)
			}
		}
	}
}
