package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// completionProject is a project whose manifest has a git package "api"
// and a dir package "notes", nothing installed.
func completionProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".context"), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := `{"index": {}, "packages": [{"alias": "api", "source": "https://git.example/api.git"}, {"alias": "notes", "kind": "dir", "source": "./notes"}]}`
	if err := os.WriteFile(filepath.Join(dir, ".context", "context.config.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Completion offers package aliases, --client and --kind values and config
// keys, not only command names (cobra's __complete, as the shells call it).
func TestCompletion(t *testing.T) {
	dir := completionProject(t)
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

// setup's --select completes the registry's context names (one item of the
// comma-separated list at a time) and --tags its tags, from the registry
// setup would read: --registry on the line, else the manifest's. A registry
// that cannot be read completes nothing, quietly.
func TestCompletionRegistry(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".context/context.config.json", `{"registry": "hub.json", "index": {}, "packages": []}`)
	write("hub.json", `{"name": "acme", "contexts": [
  {"name": "api", "description": "API", "repo": "https://git.example/api.git", "tags": ["backend", "http"]},
  {"name": "runbooks", "description": "Runbooks", "repo": "https://git.example/ops.git", "tags": ["ops", "backend"]}
]}`)
	write("other.json", `{"name": "other", "contexts": [{"name": "design", "description": "Design", "repo": "https://git.example/design.git"}]}`)
	complete := func(args ...string) []string {
		t.Helper()
		code, out, stderr := runCtx("", append([]string{"-C", dir, "__complete"}, args...)...)
		if code != 0 {
			t.Fatalf("complete %q: exit %d: %s", args, code, stderr)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if line != "" && !strings.HasPrefix(line, ":") {
				got = append(got, strings.SplitN(line, "\t", 2)[0])
			}
		}
		return got
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"setup", "--select", ""}, "api runbooks"},
		{[]string{"setup", "--select", "api,"}, "api,runbooks"},
		{[]string{"setup", "--tags", ""}, "backend http ops"},
		{[]string{"setup", "--registry", "other.json", "--select", ""}, "design"},
		{[]string{"setup", "--registry", "missing.json", "--select", ""}, ""},
	} {
		if got := strings.Join(complete(tc.args...), " "); got != tc.want {
			t.Errorf("complete %q = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// After search's first query word, a long flag's value is completed in
// both forms queryArgs reads (--package VALUE, --package=VALUE: cobra
// hands over the value alone, and bash and zsh put "--package=" back);
// a short flag there (-p, -t) is query syntax (NOT p), and every word
// after "--" is query, so nothing is offered for them.
func TestCompletionAfterQuery(t *testing.T) {
	dir := completionProject(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "foo", "--package", ""}, "api notes"},
		{[]string{"search", "foo", "bar", "--package="}, "api notes"},
		{[]string{"search", "foo", "--package=n"}, "api notes"}, // the shell filters by the prefix
		{[]string{"search", "foo", "--package=api,"}, "api,notes"},
		{[]string{"search", "foo", "--kind="}, "git dir https"},
		{[]string{"search", "--package="}, "api notes"},
		{[]string{"search", "foo", "-p", ""}, ""},
		{[]string{"search", "foo", "-t", ""}, ""},
		{[]string{"search", "foo", "--", "--package="}, ""},
		{[]string{"search", "foo", "--", "--package", ""}, ""},
		{[]string{"search", "foo", "--limit="}, ""},
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
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("complete %q = %q, want %q", tc.args, g, tc.want)
		}
	}
}
