package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// readerProject makes a project with one installed and indexed package,
// as a fresh clone has it after ctx install (no reader has run yet).
func readerProject(t *testing.T) string {
	t.Helper()
	proj, _ := installedProject(t, map[string]string{"docs/a.md": "# Alpha\n\nalpha words for the search.\n"})
	return proj
}

// installedProject makes a project with one package, alias docs, installed
// and indexed from a repository of files (its docs/ folder), and returns
// the project and the repository.
func installedProject(t *testing.T, files map[string]string) (proj, repo string) {
	t.Helper()
	if !gittest.Available() {
		t.Skip("needs git")
	}
	base := t.TempDir()
	repo = filepath.Join(base, "repo")
	gittest.NewRepo(t, repo, files)
	proj = filepath.Join(base, "p")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init"}, {"add", repo, "--path", "docs", "--alias", "docs"}} {
		if code, _, stderr := runCtx("", append([]string{"-C", proj}, args...)...); code != 0 {
			t.Fatalf("ctx %v: exit %d: %s", args, code, stderr)
		}
	}
	return proj, repo
}

// TestReadersDoNotWaitForTheLock: while another ctx holds the project lock,
// status, list and verify answer at once from the last committed state and
// say that a change is in progress; they do not take the lock (it is still
// held) nor wait LockWait (minutes) for it.
func TestReadersDoNotWaitForTheLock(t *testing.T) {
	t.Parallel()
	proj := readerProject(t)
	lockPath := filepath.Join(proj, ".context", ".lock")
	if err := os.WriteFile(lockPath, []byte("pid 4242\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	held := flock.New(lockPath)
	if ok, err := held.TryLock(); !ok || err != nil {
		t.Fatalf("take the lock: %v %v", ok, err)
	}
	defer held.Close()
	for _, c := range []struct {
		args []string
		out  string
	}{
		{[]string{"status"}, "no local edits"},
		{[]string{"list"}, "docs"},
		{[]string{"verify"}, "docs ok"},
		{[]string{"search", "alpha"}, "docs/a.md"},
	} {
		start := time.Now()
		code, stdout, stderr := runCtx("", append([]string{"-C", proj}, c.args...)...)
		took := time.Since(start)
		if code != 0 || !strings.Contains(stdout, c.out) {
			t.Errorf("ctx %v while the lock is held: exit %d after %v, stdout %q, stderr %q", c.args, code, took.Round(time.Millisecond), stdout, stderr)
			continue
		}
		if c.args[0] != "search" && !strings.Contains(stderr, "another ctx (pid 4242) is changing this project") {
			t.Errorf("ctx %v: stderr does not say a change is in progress: %q", c.args, stderr)
		}
	}
	if data, _ := os.ReadFile(lockPath); string(data) != "pid 4242\n" {
		t.Errorf("the holder's lock file was rewritten: %q", data)
	}

	// An interrupted change (a journal) while another ctx holds the lock is
	// noted and left alone: that ctx is working.
	journal := filepath.Join(proj, ".context", ".tmp", "docs.journal")
	if err := os.MkdirAll(filepath.Dir(journal), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(journal, []byte(`{"alias":"docs","op":"lock"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCtx("", "-C", proj, "status")
	if code != 0 || !strings.Contains(stderr, "another ctx (pid 4242) is changing this project") {
		t.Errorf("status with a journal, the lock held: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(journal); err != nil {
		t.Errorf("status ran recovery while another ctx held the lock: %v", err)
	}

	// With no ctx holding the lock, the journal is a killed ctx's: a
	// reader finishes it first, as the next install would, so that what it
	// reads is true to the disk (a killed update may have changed files in
	// place already).
	held.Close()
	code, stdout, stderr := runCtx("", "-C", proj, "status")
	if code != 0 || !strings.Contains(stderr, "recovering an interrupted lock of docs") || !strings.Contains(stdout, "no local edits") {
		t.Errorf("status with a journal: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(journal); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("status did not finish the interrupted change: %v", err)
	}
}

// readOnly runs ctx on proj made read-only: by chmod -R a-w for a normal
// user; as root (whom chmod does not stop), ctx runs as its own process in
// a private mount namespace where proj is bind-mounted read-only.
func readOnly(t *testing.T, proj string) func(stdin string, args ...string) (int, string, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		var dirs []string
		filepath.WalkDir(proj, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type()&fs.ModeSymlink == 0 {
				fi, _ := d.Info()
				os.Chmod(p, fi.Mode().Perm()&^0o222)
				if d.IsDir() {
					dirs = append(dirs, p)
				}
			}
			return nil
		})
		t.Cleanup(func() {
			for _, d := range dirs {
				os.Chmod(d, 0o755)
			}
		})
		return func(stdin string, args ...string) (int, string, string) {
			return runCtx(stdin, append([]string{"-C", proj}, args...)...)
		}
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("running as root, where chmod does not stop writes, and no unshare(1) for a read-only bind mount")
	}
	probe := t.TempDir()
	if out, err := exec.Command("unshare", "-m", "mount", "--bind", "-o", "ro", probe, probe).CombinedOutput(); err != nil {
		t.Skipf("running as root, where chmod does not stop writes, and no read-only bind mount possible here: %v %s", err, out)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	ctxBin := filepath.Join(bin, "ctx")
	if err := os.Symlink(exe, ctxBin); err != nil {
		t.Fatal(err)
	}
	script := `mount --bind -o ro "$1" "$1" || exit 97
if touch "$1/.context/probe" 2>/dev/null; then echo "not read-only" >&2; exit 98; fi
p=$1; shift; exec "$@"`
	return func(stdin string, args ...string) (int, string, string) {
		cmd := exec.Command("unshare", append([]string{"-m", "sh", "-c", script, "sh", proj, ctxBin, "-C", proj}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code == 97 || code == 98 {
			t.Fatalf("could not make %s read-only: %s", proj, errOut.String())
		}
		return code, out.String(), errOut.String()
	}
}

// TestReadOnlyProject: on a read-only project (a container mount) search,
// list, status, verify and mcp work; search and mcp say they cannot
// re-index instead of failing.
func TestReadOnlyProject(t *testing.T) {
	t.Parallel()
	proj := readerProject(t)
	// An edit the index does not have yet: mcp would re-index.
	if err := os.WriteFile(filepath.Join(proj, ".context", "packages", "docs", "a.md"), []byte("# Alpha\n\nalpha words, edited.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A killed ctx's journal: on a read-only disk it cannot be finished,
	// so readers note it and read the last committed state.
	journal := filepath.Join(proj, ".context", ".tmp", "docs.journal")
	if err := os.MkdirAll(filepath.Dir(journal), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(journal, []byte(`{"alias":"docs","op":"lock"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := readOnly(t, proj)
	if code, _, stderr := ctx("", "status"); code != 0 || !strings.Contains(stderr, "an interrupted change of docs is waiting") {
		t.Errorf("read-only ctx status with a journal: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(journal); err != nil {
		t.Errorf("the journal on a read-only disk: %v", err)
	}
	for _, c := range []struct {
		args   []string
		code   int
		out    string
		errOut string // in stderr too, when set
	}{
		// search cannot re-index the edit: the index as it is, and why.
		{[]string{"search", "alpha"}, 0, "docs/a.md", "warning: results may be stale: docs changed since the index was built, and the project is read-only, so ctx cannot re-index it here; run `ctx index` where it can be written"},
		{[]string{"list"}, 0, "docs", ""},
		{[]string{"status"}, 0, "M a.md", ""},
		{[]string{"verify"}, 1, "docs mismatch", ""},
	} {
		code, stdout, stderr := ctx("", c.args...)
		if code != c.code || !strings.Contains(stdout, c.out) || !strings.Contains(stderr, c.errOut) {
			t.Errorf("read-only ctx %v: exit %d (want %d), stdout %q, stderr %q", c.args, code, c.code, stdout, stderr)
		}
	}
	code, stdout, stderr := ctx(mcpSession, "mcp")
	if code != 0 || !strings.Contains(stdout, `"id":2`) || !strings.Contains(stdout, "a.md") || strings.Contains(stdout, `"isError":true`) {
		t.Errorf("read-only ctx mcp: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "the project is read-only, so ctx cannot re-index it") {
		t.Errorf("read-only ctx mcp does not say it could not re-index: %q", stdout)
	}
}
