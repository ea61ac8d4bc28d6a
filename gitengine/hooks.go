package gitengine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/ctx-dev/ctx/internal/safetext"
)

// HooksDir returns the folder git runs dir's repository's hooks from
// (core.hooksPath when set, from every config git reads, relative to the
// work tree; else the hooks folder of the git directory, worktrees
// included) and the work tree's top, both absolute, as the git binary
// says: hooks only run where git is installed, and git alone knows every
// place its config comes from. git runs with env as its environment (the
// command's: its HOME and GIT_CONFIG_* choose the config git reads); nil
// = this process's.
func HooksDir(ctx context.Context, dir string, env []string) (hooks, top string, err error) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", "", errors.New("git is not installed (hooks are run by git): install git, then run this again")
	}
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "--path-format=absolute", "--git-path", "hooks", "--show-toplevel")
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "not a git repository") {
			return "", "", fmt.Errorf("%s: %w (run `git init` first)", safetext.Clip(dir, 0), ErrNoRepository)
		}
		return "", "", fmt.Errorf("git rev-parse in %s: %v: %s", safetext.Clip(dir, 0), err, safetext.Clip(msg, 0))
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 2 || lines[0] == "" || lines[1] == "" {
		return "", "", fmt.Errorf("git rev-parse in %s: unexpected answer %s (a bare repository has no work tree to keep in step)", safetext.Clip(dir, 0), safetext.Quote(string(out)))
	}
	return lines[0], lines[1], nil
}
