package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitHooksWithoutCtxOnPath (audit17 finding 13): init --git-hooks
// warns when ctx is not on the PATH the hooks will run with, and not when
// it is; a hook git runs with no ctx on its PATH says so on stderr (and
// still succeeds) instead of doing nothing without a word.
func TestGitHooksWithoutCtxOnPath(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	tmp := t.TempDir()
	withCtx := filepath.Join(tmp, "bin")
	if err := os.MkdirAll(withCtx, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(withCtx, "ctx"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	noCtx := filepath.Dir(git) // git's folder: no ctx there
	if _, err := os.Stat(filepath.Join(noCtx, "ctx")); err == nil {
		t.Skipf("%s holds a ctx", noCtx)
	}
	for _, c := range []struct {
		name, path string
		warn       bool
	}{{"missing", noCtx, true}, {"present", withCtx + string(filepath.ListSeparator) + noCtx, false}} {
		proj := filepath.Join(tmp, c.name)
		if out, err := exec.Command(git, "init", "-q", proj).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		env := environment{"HOME=" + filepath.Join(tmp, "home"), "CTX_CACHE=" + filepath.Join(tmp, "cache"), "PATH=" + c.path}
		var out, errOut bytes.Buffer
		g := &globalOptions{IO: &IOStreams{In: bytes.NewReader(nil), Out: &out, ErrOut: &errOut}, Env: env, Wd: tmp, Dir: proj}
		if err := runInit(context.Background(), &initOptions{globalOptions: g, gitHooks: true}); err != nil {
			t.Fatalf("init: %v\n%s", err, errOut.String())
		}
		if got := strings.Contains(errOut.String(), "warning: ctx is not on PATH"); got != c.warn {
			t.Errorf("%s: warned %v, want %v:\n%s", c.name, got, c.warn, errOut.String())
		}
		if !c.warn {
			continue
		}
		// Through sh, as its #!/bin/sh line says: exec'ing a file this
		// process just wrote can fail with "text file busy" while a
		// parallel test forks (golang/go#22315).
		hook := exec.Command("/bin/sh", filepath.Join(proj, ".git", "hooks", "post-checkout"), "a", "b", "1")
		hook.Dir, hook.Env = proj, []string{"PATH=" + noCtx}
		var stderr bytes.Buffer
		hook.Stderr = &stderr
		if err := hook.Run(); err != nil {
			t.Fatalf("the hook failed: %v\n%s", err, stderr.String())
		}
		if want := "ctx hook: ctx is not on PATH, so .context/ was not brought in step with the lock: run ctx install\n"; stderr.String() != want {
			t.Errorf("hook's stderr = %q, want %q", stderr.String(), want)
		}
	}
}
