package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"
	"github.com/ctx-dev/ctx/project"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// secret is in files outside .context/packages; no answer may contain it.
const secret = "TOPSECRET-7f3a"

// fixture is a test project: <dir>/.context with packages, lock and index.
type fixture struct {
	dir     string // project root
	ctxDir  string
	outside string // a folder outside the project with secret files
}

// setupDoc has nested sections for get_section.
const setupDoc = `---
title: Setup guide
tags: [onboarding]
---
# Setup

Install the tools first.

## Install

Run the installer. The word zanzibar is only here. It downloads the toolchain, checks the signature of every archive, unpacks them into the tools folder and adds that folder to the PATH of new shells.

### Linux

Use the package manager.

## Configure

Edit the config file.

# Appendix

Extra notes.
`

// files of the fixture, by path under packages/.
func fixtureFiles() map[string]string {
	f := map[string]string{
		"guide/README.md":        "# Guide\n\nThe guide package. Start with docs/setup.md.\n",
		"guide/docs/setup.md":    setupDoc,
		"guide/docs/notes.html":  "not a document " + secret + "\n",
		"guide/.git/config":      "[core]\n\t" + secret + "\n",
		"guide/.hidden/doc.md":   "# Hidden\n" + secret + "\n",
		"guide/%2e%2e/trick.md":  "# Trick\n" + secret + "\n",
		"api/reference.md":       "---\ntitle: API reference\ntags: [api, http]\n---\n# API\n\nThe zanzibar endpoint returns widgets.\n",
		"api/errors.md":          "# Errors\n\nError codes for widgets.\n",
		"big/long.md":            longDoc(3000),
		"big/oneline.md":         "# One line\n\n" + strings.Repeat("wide ", 30000) + "\n",
		"big/binary.md":          "# bin\x00\x01\x02\n",
		"big/digits.md":          strings.Repeat(strings.Repeat("1,2,3,4,5,6,7,8,9,", 10)+"\n", 1500),
		"big/sub/dir.md/keep.md": "# Nested\n",
	}
	for i := range 60 {
		f[fmt.Sprintf("many/doc%02d.md", i)] = fmt.Sprintf("# Doc %d\n\nThe common word quokka appears in doc %d.\n", i, i)
	}
	return f
}

// longDoc is a document of n numbered lines with a heading every 100.
func longDoc(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i%100 == 1 {
			fmt.Fprintf(&b, "## Part %d\n", i/100+1)
			continue
		}
		fmt.Fprintf(&b, "line %d of the long document, with some padding text to make it wider than usual\n", i)
	}
	return b.String()
}

// newProject writes a fixture project of the test's own, which the test
// may change.
func newProject(t testing.TB) *fixture {
	t.Helper()
	return newProjectIn(t, t.TempDir())
}

// sharedFixture is a fixture the tests that only read it share: built
// once, on first use, under a folder of its own (an index costs 0.05–0.12
// s of CPU a project), and checked unchanged once every test has run
// (TestMain, checkShared). V is what the tests get of it.
type sharedFixture[V any] struct {
	name   string // for the error that names a test's change
	once   sync.Once
	root   string
	val    V
	built  bool
	digest map[string]string
	skip   string // why the tests that ask for it are skipped
}

// sharedRoots are the shared fixtures built in this process, for
// checkShared.
var sharedRoots struct {
	mu  sync.Mutex
	all []sharedCheck
}

type sharedCheck struct {
	name, root string
	digest     map[string]string // nil: not built
}

// get builds the fixture on first use (build writes it under root and
// returns what the tests get, or a reason to skip them) and returns it.
func (s *sharedFixture[V]) get(t testing.TB, build func(t testing.TB, root string) (V, string)) V {
	t.Helper()
	s.once.Do(func() {
		root, err := os.MkdirTemp("", "mcpserver-shared-")
		if err != nil {
			t.Fatal(err)
		}
		s.root = root
		c := sharedCheck{name: s.name, root: root}
		defer func() {
			sharedRoots.mu.Lock()
			sharedRoots.all = append(sharedRoots.all, c)
			sharedRoots.mu.Unlock()
		}()
		v, skip := build(t, root)
		if skip != "" {
			s.skip = skip
			return
		}
		d, err := treeDigest(root)
		if err != nil {
			t.Fatal(err)
		}
		s.val, s.built, s.digest, c.digest = v, true, d, d
	})
	if s.skip != "" {
		t.Skip(s.skip)
	}
	if !s.built {
		t.Fatalf("the shared fixture %s could not be built (see the first test that asked for it)", s.name)
	}
	return s.val
}

// shared is the fixture of sharedProject.
var shared = sharedFixture[*fixture]{name: "project (sharedProject)"}

// sharedProject is the package's one read-only fixture project, for a test
// that changes nothing in it: no file of it written, removed or renamed,
// no re-index. TestMain fails the run when its files are not what they
// were when it was built (checkShared).
func sharedProject(t testing.TB) *fixture {
	t.Helper()
	return shared.get(t, func(t testing.TB, root string) (*fixture, string) {
		// The fixture has symbolic links: where they cannot be made,
		// every test that asks for it is skipped, as newProject's are.
		if err := os.Symlink("x", filepath.Join(root, "probe")); err != nil {
			return nil, fmt.Sprintf("symlinks unavailable: %v", err)
		}
		if err := os.Remove(filepath.Join(root, "probe")); err != nil {
			t.Fatal(err)
		}
		return newProjectIn(t, root), ""
	})
}

// sharedDir is the shared fixture s, built by build, a project folder
// maker (readProjectIn, navProjectIn, ...), at <root>/proj: the tests that
// only read it get its path.
func sharedDir(t testing.TB, s *sharedFixture[string], build func(t testing.TB, dir string)) string {
	t.Helper()
	return s.get(t, func(t testing.TB, root string) (string, string) {
		dir := filepath.Join(root, "proj")
		build(t, dir)
		return dir, ""
	})
}

// checkShared removes the shared fixtures, after checking that no test
// changed them.
func checkShared() error {
	sharedRoots.mu.Lock()
	defer sharedRoots.mu.Unlock()
	var errs []string
	for _, c := range sharedRoots.all {
		if err := c.check(); err != nil {
			errs = append(errs, err.Error())
		}
		os.RemoveAll(c.root)
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}

func (c sharedCheck) check() error {
	if c.digest == nil {
		return nil
	}
	now, err := treeDigest(c.root)
	if err != nil {
		return err
	}
	var diffs []string
	for path, was := range c.digest {
		if now[path] != was {
			diffs = append(diffs, fmt.Sprintf("%s: was %s, now %q", path, was, now[path]))
		}
	}
	for path := range now {
		if _, ok := c.digest[path]; !ok {
			diffs = append(diffs, path+": new")
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		return fmt.Errorf("a test changed the shared fixture %s (a test that changes its project builds its own):\n%s", c.name, strings.Join(diffs, "\n"))
	}
	return nil
}

// treeDigest is every file, folder and link under root by path: its type
// and permissions, and a file's contents' hash or a link's target.
func treeDigest(root string) (map[string]string, error) {
	d := map[string]string{}
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			v += " -> " + target
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			v += fmt.Sprintf(" %x", sha256.Sum256(data))
		}
		rel, _ := filepath.Rel(root, path)
		if readersOwn(rel) {
			return nil
		}
		d[rel] = v
		return nil
	})
	return d, err
}

// readersOwn reports whether rel, a path in the shared fixture, is one
// of the files any index reader writes: its lock file, and the walk record
// (index/walks.bin), a cache the freshness check writes (indexer's
// walkrecord.go). A server's reading them is not a change to the project.
func readersOwn(rel string) bool {
	dir, name := path.Split(filepath.ToSlash(rel))
	return dir == "proj/.context/index/" && (name == "walks.bin" || strings.HasPrefix(name, ".bleve-") && strings.HasSuffix(name, ".lock"))
}

// newProjectIn writes the fixture project under root.
func newProjectIn(t testing.TB, root string) *fixture {
	t.Helper()
	p := &fixture{dir: filepath.Join(root, "proj"), outside: filepath.Join(root, "outside")}
	p.ctxDir = filepath.Join(p.dir, ".context")
	pk := filepath.Join(p.ctxDir, "packages")
	for rel, content := range fixtureFiles() {
		writeFile(t, filepath.Join(pk, filepath.FromSlash(rel)), content)
	}
	writeFile(t, filepath.Join(p.outside, "secret.md"), "# Secret\n"+secret+"\n")
	writeFile(t, filepath.Join(p.ctxDir, "secret.md"), "# Secret in .context\n"+secret+"\n")
	// Symlinks that leave the package root.
	mustSymlink(t, filepath.Join(p.outside, "secret.md"), filepath.Join(pk, "guide", "escape.md"))
	mustSymlink(t, p.outside, filepath.Join(pk, "guide", "outdir"))
	mustSymlink(t, "../../secret.md", filepath.Join(pk, "guide", "up.md"))
	mustSymlink(t, "/etc/passwd", filepath.Join(pk, "guide", "passwd.md"))
	// A symlink inside the package is fine.
	mustSymlink(t, "docs/setup.md", filepath.Join(pk, "guide", "alias.md"))

	lock := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{}}
	for _, a := range []string{"guide", "api", "big", "many"} {
		lock.Packages[a] = lockfile.Entry{
			Source: "https://example.com/" + a + ".git", Path: "docs", Ref: "main",
			Rev: strings.Repeat("a1", 20), Tree: strings.Repeat("b2", 20),
			Hash: "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", Updated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		}
	}
	if err := lockfiletest.WriteInstalled(p.ctxDir, lock); err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Sync(context.Background(), p.ctxDir, lockPackages(p.ctxDir, lock), indexer.Options{}); err != nil {
		t.Fatalf("indexer.Sync: %v", err)
	}
	return p
}

// lockPackages is what the server indexes for ctxDir's project
// (project.Installed).
func lockPackages(ctxDir string, l *lockfile.Lock) []indexer.Package {
	proj, err := project.At(filepath.Dir(ctxDir))
	if err != nil {
		panic(err)
	}
	return proj.Installed(nil, l)
}

func writeFile(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustSymlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

// connect starts a server for dir and returns a connected client session.
func connect(t testing.TB, dir string, setup ...func(*Server)) *mcp.ClientSession {
	t.Helper()
	s, err := New(Options{ProjectDir: dir, Log: testLog{t}, Changes: fixtureChanges(dir)})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range setup {
		f(s)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		s.Close()
	})
	return cs
}

type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Logf("server: %s", strings.TrimSpace(string(p)))
	return len(p), nil
}

// call calls a tool and decodes its structured output into out (when not
// nil and the call succeeded). A document tool and read_relevant have
// none: their _meta is decoded into out (a *DocumentOut or
// *ReadRelevantOut), and a document tool's first content is the Text.
func call(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", name, args, err)
	}
	if out != nil && !res.IsError {
		decodeResult(t, res, out)
	}
	return res
}

// decodeResult decodes a successful answer into out, as call does.
func decodeResult(t testing.TB, res *mcp.CallToolResult, out any) {
	t.Helper()
	v := res.StructuredContent
	if _, ok := out.(*ReadRelevantOut); ok {
		if v != nil {
			t.Fatalf("read_relevant sent structuredContent: %v", v)
		}
		v = res.Meta
	}
	if d, ok := out.(*DocumentOut); ok {
		if v != nil {
			t.Fatalf("a document tool sent structuredContent: %v", v)
		}
		*d = DocumentOut{}
		v = res.Meta
		if len(res.Content) > 0 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				d.Text = tc.Text
			}
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
}

// text joins a result's text contents.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// wantError asserts an isError result whose text contains all of subs.
func wantError(t testing.TB, res *mcp.CallToolResult, subs ...string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want isError, got success: %.300s", text(res))
	}
	got := text(res)
	for _, s := range subs {
		if !strings.Contains(got, s) {
			t.Errorf("error %q does not contain %q", got, s)
		}
	}
	if strings.Contains(got, secret) {
		t.Errorf("error leaks the secret: %q", got)
	}
}

// indexedNotes indexes dir's project of one dir package, notes (./notes),
// and connects a client to its server.
func indexedNotes(t *testing.T, dir string) *mcp.ClientSession {
	t.Helper()
	ctxDir := filepath.Join(dir, ".context")
	writeFile(t, filepath.Join(ctxDir, project.ManifestName), `{"index":{},"packages":[{"alias":"notes","kind":"dir","source":"./notes"}]}`)
	proj, err := project.At(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := proj.ReadManifest()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Sync(context.Background(), ctxDir, proj.Installed(m, &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{}}), indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	return connect(t, dir)
}
