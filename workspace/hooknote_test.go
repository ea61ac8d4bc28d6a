package workspace

import (
	"os/exec"
	"strings"
	"testing"
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
	for _, rel := range []string{"my docs", `a\cb`} {
		cmd := exec.Command(sh, "-c", hookBlock("post-merge", rel), "hook", "0")
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
