package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// A manifest another user planted in a folder above the one ctx starts in
// (/tmp, say) is not taken for the project (git's safe.directory): every
// command says whose it is and how to use it anyway (-C to it), and writes
// nothing; -C to the folder itself uses it; ctx init still makes a project
// of its own below it. The other user is simulated (project.FindOptions:
// the test cannot chown).
func TestPlantedManifestAbove(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	if err := os.Mkdir(filepath.Join(base, ".git"), 0o755); err != nil { // nothing above base is looked at
		t.Fatal(err)
	}
	planted := filepath.Join(base, "tmp")
	work := filepath.Join(planted, "me", "work")
	for _, d := range []string{filepath.Join(planted, project.DirName), filepath.Join(work, "docs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	manifest := filepath.Join(planted, project.DirName, project.ManifestName)
	if err := os.WriteFile(manifest, []byte(`{"packages": []}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "docs", "a.md"), []byte("# A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var plantedFiles []fs.FileInfo
	for _, p := range []string{planted, filepath.Dir(manifest), manifest} { // the folder, .context/ and the manifest
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		plantedFiles = append(plantedFiles, fi)
	}
	planter := func(fi fs.FileInfo) (int, bool) { // the planted project is user 1001's, the rest the user's
		for _, p := range plantedFiles {
			if os.SameFile(p, fi) {
				return 1001, true
			}
		}
		return 1000, true
	}
	ctxIn := func(wd string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		io := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
		g := &globalOptions{IO: io, Env: testEnv, Wd: wd, args: args,
			find: project.FindOptions{Owner: planter, UID: func() int { return 1000 }}}
		code := execute(context.Background(), newRootCmd(g), args, g)
		return code, out.String(), errOut.String()
	}
	for _, args := range [][]string{{"list"}, {"add", "./docs"}, {"install"}, {"search", "a"}, {"mcp"}} {
		code, out, errOut := ctxIn(work, args...)
		if code == ExitOK || out != "" || !strings.Contains(errOut, "the project above it, at "+planted+", is owned by another user") || !strings.Contains(errOut, "-C "+planted) {
			t.Errorf("ctx %s below a planted manifest: exit %d, stdout %q, stderr %q; want a failure naming it, its owner and -C", strings.Join(args, " "), code, out, errOut)
		}
	}
	if data, err := os.ReadFile(manifest); err != nil || string(data) != `{"packages": []}`+"\n" {
		t.Errorf("the planted manifest was written: %q, %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(work, project.DirName)); err == nil {
		t.Errorf("a project was made in %s", work)
	}
	// `sudo ctx` by the project's owner (SUDO_UID=1001, running as root):
	// taken, as git does; SUDO_UID from a user who is not root: refused.
	sudoIn := func(uid int, sudoUID string) (int, string) {
		var out, errOut bytes.Buffer
		io := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
		g := &globalOptions{IO: io, Env: append(slices.Clone(testEnv), "SUDO_UID="+sudoUID), Wd: work,
			find: project.FindOptions{Owner: planter, UID: func() int { return uid }}}
		return execute(context.Background(), newRootCmd(g), []string{"list"}, g), errOut.String()
	}
	if code, errOut := sudoIn(0, "1001"); code != ExitOK {
		t.Errorf("sudo ctx list by the project's owner: exit %d, stderr %q; want it to work", code, errOut)
	}
	if code, errOut := sudoIn(0, "1002"); code == ExitOK || !strings.Contains(errOut, "owned by another user") {
		t.Errorf("sudo ctx list by another user: exit %d, stderr %q; want the refusal", code, errOut)
	}
	if code, errOut := sudoIn(1000, "1001"); code == ExitOK || !strings.Contains(errOut, "owned by another user") {
		t.Errorf("SUDO_UID set by a user who is not root: exit %d, stderr %q; want the refusal", code, errOut)
	}
	// -C to the project itself: the user chose it.
	if code, _, errOut := ctxIn(work, "-C", planted, "list"); code != ExitOK {
		t.Errorf("ctx -C %s list: exit %d, stderr %q; want it to work", planted, code, errOut)
	}
	// ctx init makes a project of its own, which then wins.
	if code, _, errOut := ctxIn(work, "init", "--project", "mine"); code != ExitOK || strings.Contains(errOut, "inside the project") {
		t.Errorf("ctx init below a planted manifest: exit %d, stderr %q; want a project here, the planted one not named", code, errOut)
	}
	if code, _, errOut := ctxIn(filepath.Join(work, "docs"), "add", "."); code != ExitOK {
		t.Errorf("ctx add . in the new project: exit %d, stderr %q", code, errOut)
	}
	if data, err := os.ReadFile(filepath.Join(work, project.DirName, project.ManifestName)); err != nil || !strings.Contains(string(data), `"source": "docs"`) {
		t.Errorf("the new project's manifest: %s, %v; want the docs added as \"docs\"", data, err)
	}
}

// A path inside the project is shown from where the user stands (the
// start folder, when it is inside the project); any other as it is; and a
// typed relative path is taken from there and kept from the root.
func TestPathsFromWhereTheUserStands(t *testing.T) {
	root := filepath.FromSlash("/p")
	backup := filepath.Join(root, ".context", "backup", "x")
	for _, c := range []struct{ start, p, want string }{
		{"", backup, filepath.FromSlash(".context/backup/x")},
		{root, backup, filepath.FromSlash(".context/backup/x")},
		{filepath.Join(root, "src", "deep"), backup, filepath.FromSlash("../../.context/backup/x")},
		{filepath.Join(root, "src"), filepath.FromSlash("/elsewhere/y"), filepath.FromSlash("/elsewhere/y")},
		{filepath.FromSlash("/q"), backup, filepath.FromSlash(".context/backup/x")},
	} {
		g := &globalOptions{start: c.start}
		if got := g.displayPath(root, c.p); got != c.want {
			t.Errorf("from %q: displayPath(%s) = %s, want %s", c.start, c.p, got, c.want)
		}
	}
	// typedPath reads the folders on disk (links resolved): a real tree.
	root = t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	g := &globalOptions{start: filepath.Join(root, "src"), root: root}
	for typed, want := range map[string]string{
		"./notes":                "src/notes",
		".":                      "src",
		"../docs/":               "docs",
		"../../out":              "../out",
		"https://x.example/a":    "https://x.example/a",
		"git@host:a/b.git":       "git@host:a/b.git",
		"~/notes":                "~/notes",
		"":                       "",
		filepath.Join(root, "a"): filepath.Join(root, "a"),
	} {
		if got, err := g.typedPath(typed); err != nil || got != want {
			t.Errorf("typedPath(%q) = %q, %v; want %q", typed, got, err, want)
		}
	}
	g.start = root // at the root, nothing is rewritten
	if got, _ := g.typedPath("./docs/"); got != "./docs/" {
		t.Errorf("typedPath at the root = %q, want it as typed", got)
	}
}
