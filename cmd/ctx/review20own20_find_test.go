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
		return execute(context.Background(), newRootCmd(g), args, io), errOut.String()
	}
	if code, errOut := ctxIn(root, "list"); code != ExitOK || strings.Contains(errOut, "warning") {
		t.Errorf("ctx list at the root: exit %d, stderr %q; want it to work, nothing said", code, errOut)
	}
	code, errOut := ctxIn(sub, "list")
	if code != ExitOK || strings.Count(errOut, "warning: ") != 1 || !strings.Contains(errOut, "the project above it, at "+root+", is taken, though others can change it") {
		t.Errorf("ctx list in a subfolder: exit %d, stderr %q; want it to work, with one warning naming the project", code, errOut)
	}
}
