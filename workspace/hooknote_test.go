package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// review17d: with no ctx on git's PATH the hook's note names the command
// to run; for a project in a folder whose name has a space (or a
// backslash, which dash's echo reads as an escape) that command must be
// one a user can paste: `ctx -C 'my docs' install`, not `ctx -C my docs
// install` (which runs `ctx -C my` with the argument "docs").
func TestReview17dHookNoteQuotesDir(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	top := t.TempDir() // the work tree's top, where git runs the hook
	for _, rel := range []string{"my docs", `a\cb`} {
		dir := filepath.Join(top, rel, project.DirName)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, project.ManifestName), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(sh, "-c", hookBlock("post-merge", rel), "hook", "0")
		cmd.Dir = top
		cmd.Env = []string{"PATH=" + t.TempDir()} // no ctx here
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v: %s", rel, err, out)
		}
		if want := "run ctx -C '" + rel + "' install"; !strings.Contains(string(out), want) {
			t.Errorf("%q: the hook says %q, want it to contain %q", rel, out, want)
		}
	}
}

// round 19: a line of a project whose folder holds no manifest (removed,
// moved) does nothing and exits 0 (git checkout exits with
// post-checkout's status): it would otherwise run ctx -C there, whose
// walk up installs the project above a second time.
func TestHookLineNeedsManifest(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	marker := filepath.Join(t.TempDir(), "ran")
	// ctx is a shell function (command -v finds it): an executable this
	// process wrote and a child then execs can fail with "text file busy"
	// while a parallel test forks (golang/go#22315).
	fakeCtx := "ctx() { echo \"$@\" >> '" + marker + "'; }\n"
	top := t.TempDir()
	if err := os.MkdirAll(filepath.Join(top, "gone"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sh, "-c", fakeCtx+hookBlock("post-checkout", "gone", ""), "hook", "0")
	cmd.Dir = top
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the hook failed: %v: %s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		data, _ := os.ReadFile(marker)
		t.Fatalf("ctx ran without a manifest: %s", data)
	}
	if err := os.MkdirAll(filepath.Join(top, project.DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(top, project.DirName, project.ManifestName), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(sh, "-c", fakeCtx+hookBlock("post-checkout", "gone", ""), "hook", "0")
	cmd.Dir = top
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the hook failed: %v: %s", err, out)
	}
	if data, err := os.ReadFile(marker); err != nil || string(data) != "hook post-checkout 0\n" {
		t.Fatalf("ctx ran as %q (%v), want once for the top: hook post-checkout 0", data, err)
	}
}
