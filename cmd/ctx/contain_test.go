package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// treeHash fingerprints everything under root (names, modes, contents, link
// targets), never following a link; skip names a subtree left out.
func treeHash(t *testing.T, root, skip string) string {
	t.Helper()
	h := sha256.New()
	fi, err := os.Lstat(root)
	if err != nil {
		return "missing"
	}
	if !fi.IsDir() {
		data, _ := os.ReadFile(root)
		fmt.Fprintf(h, "%v %x", fi.Mode(), data)
		return hex.EncodeToString(h.Sum(nil))
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if skip != "" && p == skip {
			return filepath.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s %v ", rel, fi.Mode())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			tgt, _ := os.Readlink(p)
			fmt.Fprintf(h, "-> %s\n", tgt)
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%x\n", sha256.Sum256(data))
		default:
			fmt.Fprintln(h)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

const mcpSession = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"alpha"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_contexts","arguments":{}}}
`

// runCtx runs ctx in-process with stdin in, in the tests' environment
// (testEnv: a HOME and a cache of their own, not the user's) and this
// process's working directory, and returns the exit code, stdout and
// stderr.
func runCtx(in string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	wd, _ := os.Getwd()
	code := run(context.Background(), args, &IOStreams{In: strings.NewReader(in), Out: &out, ErrOut: &errOut}, testEnv, wd)
	return code, out.String(), errOut.String()
}

// TestNoWriteThroughLinks: a project whose .context/ holds a symbolic link
// where ctx keeps something (a cloned repository can commit one) never makes
// ctx write or delete through it. Each entry × {a victim outside the
// project by a relative path, "..", the victim by absolute path} × every
// command: the victim and the project outside .context/ are byte for byte
// unchanged, and the command either works or names the link.
func TestNoWriteThroughLinks(t *testing.T) {
	t.Parallel()
	if !gittest.Available() {
		t.Skip("needs git")
	}
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on windows")
	}
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	gittest.NewRepo(t, repo, map[string]string{"docs/a.md": "# Alpha\n\nalpha words for the search.\n", "docs/b.md": "# Beta\n\nbeta words.\n"})
	tmpl := filepath.Join(base, "tmpl")
	if err := os.MkdirAll(tmpl, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init"}, {"add", repo, "--path", "docs", "--alias", "docs"}, {"search", "alpha"}} {
		if code, _, stderr := runCtx("", append([]string{"-C", tmpl}, args...)...); code != 0 {
			t.Fatalf("ctx %v: exit %d: %s", args, code, stderr)
		}
	}
	// The repository moves on, so update has work to do; a local edit
	// makes remove --force take a backup.
	gittest.Commit(t, repo, "v2", map[string]string{"docs/a.md": "# Alpha\n\nalpha words, second edition.\n"})
	gittest.WriteFiles(t, tmpl, map[string]string{"README.md": "the project\n"})

	// Every case starts from a copy of tmpl as `cp -a` makes it, written
	// from memory (a cp process per case was half of this test's CPU:
	// WriteAsIs keeps the index naming tmpl, as cp's copy did), and the base folder
	// (the repository and tmpl) is fingerprinted once: it must be the same
	// after each case's command as before all of them.
	tmplTree, err := gittest.ReadTree(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	baseBefore := treeHash(t, base, filepath.Join(base, "cases"))

	dirEntries := []string{".tmp", ".state", "packages", "index", "backup", "packages/docs"}
	fileEntries := []string{".lock", "INDEX.md", ".gitignore", "index/.write.lock", "index/meta.json", "context.lock", "context.config.json"}
	commands := [][]string{
		{"init"},
		{"add", repo, "--path", "docs", "--alias", "two"},
		{"install"},
		{"install", "--force"},
		{"update"},
		{"remove", "--force", "docs"},
		{"status"},
		{"list"},
		{"verify"},
		{"index"},
		{"index", "--rebuild"},
		{"search", "alpha"},
		{"mcp"},
	}
	n := 0
	for _, entry := range append(dirEntries, fileEntries...) {
		isDir := n < len(dirEntries)
		n++
		for _, kind := range []string{"relative", "dotdot", "absolute"} {
			for _, cmd := range commands {
				name := fmt.Sprintf("%s/%s/%s", entry, kind, strings.Join(cmd, "_"))
				// Each case is a parallel subtest in a folder of its own
				// (-test.parallel bounds how many run at once).
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					dir := filepath.Join(base, "cases", strings.NewReplacer("/", "_", ".", "_").Replace(name))
					proj := filepath.Join(dir, "p")
					victim := filepath.Join(dir, "victim")
					if err := os.MkdirAll(dir, 0o755); err != nil {
						t.Fatal(err)
					}
					if err := tmplTree.WriteAsIs(proj); err != nil {
						t.Fatal(err)
					}
					if isDir {
						gittest.WriteFiles(t, victim, map[string]string{"keep.txt": "victim's own file\n", "sub/x.md": "# X\n"})
					} else {
						gittest.WriteFiles(t, dir, map[string]string{"victim": "victim's own file\n"})
					}
					link := filepath.Join(proj, ".context", filepath.FromSlash(entry))
					if err := os.RemoveAll(link); err != nil {
						t.Fatal(err)
					}
					if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
						t.Fatal(err)
					}
					var to string
					switch kind {
					case "relative":
						to, _ = filepath.Rel(filepath.Dir(link), victim)
					case "dotdot":
						to = ".."
					case "absolute":
						to = victim
					}
					if err := os.Symlink(to, link); err != nil {
						t.Fatal(err)
					}
					if cmd[0] == "init" {
						// init meets the link in a .context/ without a manifest.
						os.Remove(filepath.Join(proj, ".context", "context.config.json"))
					}
					if cmd[0] == "remove" && entry != "packages" && entry != "packages/docs" {
						os.WriteFile(filepath.Join(proj, ".context", "packages", "docs", "a.md"), []byte("local edit\n"), 0o644)
					}
					ctxDir := filepath.Join(proj, ".context")
					before := map[string]string{
						"victim":                   treeHash(t, victim, ""),
						"project outside .context": treeHash(t, proj, ctxDir),
						"the base folder":          baseBefore,
					}
					args := append([]string{"-C", proj}, cmd...)
					in := ""
					if cmd[0] == "mcp" {
						in = mcpSession
					}
					code, _, stderr := runCtx(in, args...)
					var probs []string
					after := map[string]string{
						"victim":                   treeHash(t, victim, ""),
						"project outside .context": treeHash(t, proj, ctxDir),
						"the base folder":          treeHash(t, base, filepath.Join(base, "cases")),
					}
					for k, v := range before {
						if after[k] != v {
							probs = append(probs, k+" changed")
						}
					}
					if _, err := os.Lstat(filepath.Join(ctxDir, "context.config.json")); err != nil && cmd[0] != "init" {
						probs = append(probs, "the manifest is gone")
					}
					if code != 0 && code != 3 && !strings.Contains(stderr, "symbolic link") &&
						!strings.Contains(stderr, "no search index") && !strings.Contains(stderr, "do not match the lock") {
						probs = append(probs, fmt.Sprintf("exit %d without naming the link", code))
					}
					if len(probs) > 0 {
						t.Errorf("%s -> %s: ctx %s: %s\nstderr: %s", entry, to, strings.Join(cmd, " "), strings.Join(probs, "; "), stderr)
					}
				})
			}
		}
	}
}
