package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// completionProject is a project whose manifest has a git package "api",
// a dir package "notes" and an https package "page", nothing installed.
func completionProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".context"), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := `{"index": {}, "packages": [{"alias": "api", "source": "https://git.example/api.git"}, {"alias": "notes", "kind": "dir", "source": "./notes"}, {"alias": "page", "kind": "https", "source": "https://docs.example/page.md"}]}`
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
		want []string // exactly, in any order
	}{
		// cli18 finding 16: only what the command can act on: update,
		// outdated and changes not a dir source (live, never locked),
		// push only a git package, and not an alias already typed.
		{[]string{"update", ""}, []string{"api", "page"}},
		{[]string{"update", "api", ""}, []string{"page"}},
		{[]string{"outdated", ""}, []string{"api", "page"}},
		{[]string{"changes", ""}, []string{"api", "page"}},
		{[]string{"push", ""}, []string{"api"}},
		{[]string{"push", "api", ""}, nil},
		{[]string{"remove", ""}, []string{"api", "notes", "page"}},
		{[]string{"remove", "notes", ""}, []string{"api", "page"}},
		{[]string{"remove", "a"}, []string{"api"}},
		// None of them needs an allowance (TestCompletionAllowOutside).
		{[]string{"install", "--allow-outside", ""}, nil},
		{[]string{"links", ""}, []string{"api/", "notes/", "page/"}},
		{[]string{"search", "--package", ""}, []string{"api", "notes", "page"}},
		{[]string{"mcp", "config", "--client", ""}, []string{"claude", "cursor", "codex", "vscode"}},
		{[]string{"add", "--kind", ""}, []string{"git", "dir", "https"}},
		{[]string{"config", "get", ""}, []string{"registry", "embeddings.url", "embeddings.model", "embeddings.hybrid"}},
	} {
		code, out, stderr := runCtx("", append([]string{"-C", dir, "__complete"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("complete %q: exit %d: %s", tc.args, code, stderr)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			// The shell keeps what starts with the word typed.
			if w := strings.SplitN(line, "\t", 2)[0]; line != "" && !strings.HasPrefix(line, ":") && strings.HasPrefix(w, tc.args[len(tc.args)-1]) {
				got = append(got, w)
			}
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(tc.want))
		if !slices.Equal(got, want) {
			t.Errorf("complete %q: got %q, want %q", tc.args, got, want)
		}
	}
}

// cli19 left: install --allow-outside completed every alias. It offers
// only the packages that need an allowance not given yet (what
// AllowOutside would record), each once: a committed local source
// outside the project, an https source with tokenEnv, a git source on a
// private address as written; not a public git or https source, a dir
// source inside, nor one already allowed in context.local.json.
func TestCompletionAllowOutside(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "proj")
	for _, d := range []string{filepath.Join(dir, ".context"), filepath.Join(dir, "notes"), filepath.Join(base, "out"), filepath.Join(base, "out2")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	manifest := `{"index": {}, "packages": [
  {"alias": "api", "source": "https://git.example/api.git"},
  {"alias": "lan", "source": "http://10.0.0.5/lan.git"},
  {"alias": "notes", "kind": "dir", "source": "./notes"},
  {"alias": "page", "kind": "https", "source": "https://docs.example/page.md"},
  {"alias": "tok", "kind": "https", "source": "https://docs.example/tok.md", "tokenEnv": "DOCS_TOKEN"},
  {"alias": "out", "kind": "dir", "source": "../out"},
  {"alias": "out2", "kind": "dir", "source": "../out2"}]}`
	real, err := filepath.EvalSymlinks(filepath.Join(base, "out2"))
	if err != nil {
		t.Fatal(err)
	}
	local := `{"allow": [` + strconv.Quote(real) + `]}`
	for name, data := range map[string]string{"context.config.json": manifest, "context.local.json": local} {
		if err := os.WriteFile(filepath.Join(dir, ".context", name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"install", "--allow-outside", ""}, "lan out tok"},
		{[]string{"install", "--allow-outside", "out", "--allow-outside", ""}, "lan tok"},
		{[]string{"install", "--allow-outside", "out,"}, "out,lan out,tok"},
	} {
		got := completeWords(t, dir, tc.args)
		slices.Sort(got)
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("complete %q: got %q, want %q", tc.args, g, tc.want)
		}
	}
}

// completeWords is what `ctx -C dir __complete args...` offers, in order:
// each line's word, without the directive line (":4").
func completeWords(t *testing.T, dir string, args []string) []string {
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
		return completeWords(t, dir, args)
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
		{[]string{"search", "foo", "--package", ""}, "api notes page"},
		{[]string{"search", "foo", "bar", "--package="}, "api notes page"},
		{[]string{"search", "foo", "--package=n"}, "api notes page"}, // the shell filters by the prefix
		{[]string{"search", "foo", "--package=api,"}, "api,notes api,page"},
		{[]string{"search", "foo", "--kind="}, "git dir https"},
		{[]string{"search", "--package="}, "api notes page"},
		{[]string{"search", "foo", "-p", ""}, ""},
		{[]string{"search", "foo", "-t", ""}, ""},
		{[]string{"search", "foo", "--", "--package="}, ""},
		{[]string{"search", "foo", "--", "--package", ""}, ""},
		{[]string{"search", "foo", "--limit="}, ""},
	} {
		got := completeWords(t, dir, tc.args)
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("complete %q = %q, want %q", tc.args, g, tc.want)
		}
	}
}

// note22's Left: a help flag on the line being completed made ctx read
// the request as `ctx __complete --help`, exit 2 with "unknown command
// __complete", and the shell fall back to file names. Now the line
// completes as the help it would print: the sub-commands of the command
// named (`ctx -h <TAB>` like `ctx help <TAB>`), and for a command without
// them cobra's own answer, nothing and no file names.
func TestCompletionAfterHelp(t *testing.T) {
	dir := completionProject(t)
	for _, tc := range []struct {
		args []string
		want string // sorted words
	}{
		{[]string{"search", "-h", ""}, ""},
		{[]string{"search", "--help", ""}, ""},
		{[]string{"-h", "ca"}, "cache"},
		{[]string{"--help", "cache", ""}, "gc info"},
		{[]string{"cache", "-h", ""}, "gc info"},
		{[]string{"cache", "-h", "gc", ""}, ""},
		// rv-polish23: the help flag being completed is the word typed,
		// no help asked for: cobra offers the flag, as for "--he".
		{[]string{"search", "--help"}, "--help"},
		{[]string{"cache", "-h"}, "-h"},
		{[]string{"--help"}, "--help"},
		{[]string{"help", "ca"}, "cache"},
		{[]string{"help", "cache", ""}, "gc info"},
	} {
		code, out, stderr := runCtx("", append([]string{"-C", dir, "__complete"}, tc.args...)...)
		if code != 0 {
			t.Errorf("complete %q: exit %d: %s", tc.args, code, stderr)
			continue
		}
		if !strings.Contains(out, fmt.Sprintf(":%d\n", cobra.ShellCompDirectiveNoFileComp)) {
			t.Errorf("complete %q: not without file names: %q", tc.args, out)
		}
		got := completeWords(t, dir, tc.args)
		slices.Sort(got)
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("complete %q: got %q, want %q", tc.args, g, tc.want)
		}
	}
}
