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
	"time"

	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/ctx-dev/ctx/internal/gittest"
)

// treeHash fingerprints everything under root (names, modes, contents, link
// targets), never following a link; skip names a subtree left out.
func treeHash(t *testing.T, root, skip string) string {
	t.Helper()
	h, _ := hashTree(t, root, skip, nil, nil)
	return h
}

// knownSums are the sums of the regular files a treeHash read, by path,
// each with the file's stamp when it was read (internal/fileid), and at, a
// time on the file system's clock after every one of those stamps: a later
// hash of the same tree takes a file whose stamp proves it unchanged since
// (fileid.Stamp.Proves) for the sum it had, without reading it again. The
// fingerprint is still of the contents: a file written, replaced or
// touched since has another ctime and is read.
type knownSums struct {
	at   int64
	sums map[string]knownSum
}

type knownSum struct {
	stamp fileid.Stamp
	sum   [sha256.Size]byte
}

// recordTree is treeHash that also returns the knownSums of root's files;
// it writes a marker file into markerDir (which must not be under root, or
// be under skip) to read the file system's clock after the last stamp.
func recordTree(t *testing.T, root, skip, markerDir string) (string, *knownSums) {
	t.Helper()
	k := &knownSums{sums: map[string]knownSum{}}
	h, _ := hashTree(t, root, skip, nil, k.sums)
	var last int64
	for _, s := range k.sums {
		last = max(last, s.stamp.CTime, s.stamp.MTime)
	}
	if err := os.MkdirAll(markerDir, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(markerDir, ".known-sums-at")
	// The file system's clock may be coarse (a tick of some milliseconds,
	// a second or two on some file systems): the marker is written until
	// its time is past the last stamp, for at most 5 s, so that every file
	// recorded can be proven unchanged (a file whose stamp is not before at
	// is only read again, never taken on trust: past the bound the hashes
	// are only slower).
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
		if err := os.WriteFile(marker, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(marker)
		if err != nil {
			t.Fatal(err)
		}
		if k.at = fi.ModTime().UnixNano(); k.at > last {
			break
		}
	}
	return h, k
}

// treeHash is treeHash(t, root, skip), reading only the files whose stamps
// do not prove them unchanged since k was recorded; it also returns how
// many files it read.
func (k *knownSums) treeHash(t *testing.T, root, skip string) (string, int) {
	t.Helper()
	return hashTree(t, root, skip, k, nil)
}

// hashTree is treeHash's walk: known, when set, spares reading the files
// it proves unchanged; record, when set, gets every regular file's sum and
// stamp. It returns the fingerprint and how many files it read.
func hashTree(t *testing.T, root, skip string, known *knownSums, record map[string]knownSum) (string, int) {
	t.Helper()
	h := sha256.New()
	fi, err := os.Lstat(root)
	if err != nil {
		return "missing", 0
	}
	if !fi.IsDir() {
		data, _ := os.ReadFile(root)
		fmt.Fprintf(h, "%v %x", fi.Mode(), data)
		return hex.EncodeToString(h.Sum(nil)), 1
	}
	reads := 0
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
			stamp := fileid.Of(fi)
			if known != nil {
				if k, ok := known.sums[p]; ok && k.stamp.Proves(stamp, known.at) {
					fmt.Fprintf(h, "%x\n", k.sum)
					return nil
				}
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			reads++
			sum := sha256.Sum256(data)
			if record != nil {
				record[p] = knownSum{stamp: stamp, sum: sum}
			}
			fmt.Fprintf(h, "%x\n", sum)
		default:
			fmt.Fprintln(h)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil)), reads
}

// TestKnownSumsReadOnlyChangedFiles: a tree hashed with its recorded sums
// is the same fingerprint as treeHash's, reads none of the files left
// alone, and reads (and sees) a file rewritten since, even one of the same
// size; the same content written back is the same fingerprint again.
func TestKnownSumsReadOnlyChangedFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	tree := filepath.Join(root, "tree")
	gittest.WriteFiles(t, tree, map[string]string{"a.md": "alpha\n", "sub/b.md": "beta\n", "sub/c.md": "gamma\n"})
	if err := os.Symlink("a.md", filepath.Join(tree, "link")); err != nil {
		t.Fatal(err)
	}
	want, k := recordTree(t, tree, "", filepath.Join(root, "marker"))
	for p, s := range k.sums {
		if s.stamp.CTime == 0 {
			t.Skip("no inode change time on this system: no stamp proves a file unchanged (fileid)")
		}
		if s.stamp.CTime >= k.at {
			t.Fatalf("%s: stamp %+v, clock after the record %d: the file system's clock did not pass the stamps in 5 s", p, s.stamp, k.at)
		}
	}
	if plain := treeHash(t, tree, ""); plain != want {
		t.Fatalf("recordTree %s, treeHash %s", want, plain)
	}
	if got, reads := k.treeHash(t, tree, ""); got != want || reads != 0 {
		t.Fatalf("unchanged tree: %s after %d reads, want %s after 0", got, reads, want)
	}
	a := filepath.Join(tree, "a.md")
	if err := os.WriteFile(a, []byte("ALPHA\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, reads := k.treeHash(t, tree, "")
	if got == want || got != treeHash(t, tree, "") || reads != 1 {
		t.Fatalf("a.md rewritten (same size): %s after %d reads, want treeHash's %s, not %s, after 1", got, reads, treeHash(t, tree, ""), want)
	}
	if err := os.WriteFile(a, []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, reads := k.treeHash(t, tree, ""); got != want || reads != 1 {
		t.Fatalf("a.md written back: %s after %d reads, want %s after 1", got, reads, want)
	}
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
	// Its files' sums are kept (knownSums): after each case only a file
	// whose stamp no longer proves it unchanged is read again.
	// It is checked once each entry's cases have all run (a walk of the
	// base folder after every case was a sixth of this test's CPU; the
	// cases run at once, so one case's check could see another's change
	// anyway).
	baseBefore, baseKnown := recordTree(t, base, filepath.Join(base, "cases"), filepath.Join(base, "cases"))
	baseNow := func(t *testing.T) string {
		t.Helper()
		h, _ := baseKnown.treeHash(t, base, filepath.Join(base, "cases"))
		return h
	}

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
		// The entry's cases are parallel subtests of this one: its cleanup
		// runs once they are all done.
		t.Run(entry, func(t *testing.T) {
			t.Cleanup(func() {
				if baseNow(t) != baseBefore {
					t.Errorf("%s: the base folder (the repository and the template, outside the cases' folders) changed during this entry's cases", entry)
				}
			})
			for _, kind := range []string{"relative", "dotdot", "absolute"} {
				for _, cmd := range commands {
					name := fmt.Sprintf("%s/%s/%s", entry, kind, strings.Join(cmd, "_"))
					// Each case is a parallel subtest in a folder of its own
					// (-test.parallel bounds how many run at once).
					t.Run(kind+"/"+strings.Join(cmd, "_"), func(t *testing.T) {
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
		})
	}
}
