package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// review20-own20: a project cloned with umask 002 (.context/ 775, the
// manifest 664) whose group is not the user's own (macOS's staff, a
// team's group) worked at its root and failed in every subfolder (own20's
// refusal). It works in both; below the root ctx says once, on stderr as a
// warning, that others can change it. The group is simulated
// (FindOptions.PrivateGroup: the test cannot chgrp).
func TestGroupWritableProjectAbove(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	sub := filepath.Join(root, "docs")
	if err := os.MkdirAll(filepath.Join(root, project.DirName), 0o775); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(sub, 0o775); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(root, project.DirName), 0o775); err != nil { // whatever the umask
		t.Fatal(err)
	}
	manifest := filepath.Join(root, project.DirName, project.ManifestName)
	if err := os.WriteFile(manifest, []byte(`{"packages": []}`+"\n"), 0o664); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(manifest, 0o664); err != nil {
		t.Fatal(err)
	}
	ctxIn := func(wd string, args ...string) (int, string) {
		var out, errOut bytes.Buffer
		io := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
		g := &globalOptions{IO: io, Env: append(slices.Clone(testEnv), "CTX_CEILING_DIRECTORIES="+base), Wd: wd, args: args,
			find: project.FindOptions{PrivateGroup: func(int, int) bool { return false }}}
		return execute(context.Background(), newRootCmd(g), args, g), errOut.String()
	}
	if code, errOut := ctxIn(root, "list"); code != ExitOK || strings.Contains(errOut, "warning") {
		t.Errorf("ctx list at the root: exit %d, stderr %q; want it to work, nothing said", code, errOut)
	}
	code, errOut := ctxIn(sub, "list")
	if code != ExitOK || strings.Count(errOut, "warning: ") != 1 || !strings.Contains(errOut, "the project above it, at "+root+", is taken, though others can change it") {
		t.Errorf("ctx list in a subfolder: exit %d, stderr %q; want it to work, with one warning naming the project", code, errOut)
	}
}

// review20-own20: a relative -C is read as chdir(2) reads it, from the
// physical working folder, as `git -C` and `go -C` read it (README: "as
// git and go do"), and as own20's walk up and typedPath read `..`: in
// proj/lnk, a link to real/x, `-C ..` is real, not proj (it was joined to
// the working folder's name, so it named proj, whose project then went
// unchecked as the start). Where both readings lead to the same folder
// the name typed is kept.
func TestRelativeChdirThroughALink(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	for _, d := range []string{filepath.Join(proj, project.DirName), filepath.Join(proj, "docs"), filepath.Join(base, "real", "x")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(proj, project.DirName, project.ManifestName), []byte(`{"packages": []}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lnk := filepath.Join(proj, "lnk")
	if err := os.Symlink(filepath.Join(base, "real", "x"), lnk); err != nil {
		t.Skip("no symbolic links:", err)
	}
	ctxIn := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		io := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
		g := &globalOptions{IO: io, Env: append(slices.Clone(testEnv), "CTX_CEILING_DIRECTORIES="+base), Wd: lnk, args: args}
		return execute(context.Background(), newRootCmd(g), args, g), errOut.String()
	}
	real := filepath.Join(base, "real")
	if code, errOut := ctxIn("-C", "..", "list"); code == ExitOK || !strings.Contains(errOut, real+": no ctx project here") {
		t.Errorf("ctx -C .. list in proj/lnk: exit %d, stderr %q; want real's folder, which has no project", code, errOut)
	}
	if code, errOut := ctxIn("-C", "../docs", "list"); code == ExitOK || !strings.Contains(errOut, "-C \"../docs\": no such folder") {
		t.Errorf("ctx -C ../docs list in proj/lnk: exit %d, stderr %q; want no such folder (real/docs is not there)", code, errOut)
	}
	if code, errOut := ctxIn("-C", "../../proj/docs", "list"); code != ExitOK {
		t.Errorf("ctx -C ../../proj/docs list in proj/lnk: exit %d, stderr %q; want proj's project", code, errOut)
	}
	// Through a link above both (macOS's /tmp, /private/tmp): the same
	// folder either way, named as typed.
	alias := filepath.Join(base, "alias")
	if err := os.Symlink(base, alias); err != nil {
		t.Fatal(err)
	}
	g := &globalOptions{Wd: filepath.Join(alias, "proj")}
	if got := g.chdirPath(filepath.Join(alias, "proj", "docs"), "docs"); got != filepath.Join(alias, "proj", "docs") {
		t.Errorf("chdirPath(docs) under a linked folder = %s; want the name typed", got)
	}
}
