package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
)

// Git hooks (issue 32): `ctx init --git-hooks` puts a short block in the
// repository's post-merge and post-checkout hooks that runs `ctx hook
// NAME`, which installs what a pulled or checked-out lock says and prints
// what changed. The block sits between hookBegin and hookEnd: right after
// the shebang of a hook that exists (so that an `exit` in it cannot skip
// ctx, and everything of the user's still runs after it), in a new hook
// otherwise; running it again replaces the block in place. A failing ctx
// never fails the hook: the block ends in `|| true`, and with no ctx on
// git's PATH it says so on stderr.

// GitHooks are the hooks ctx keeps.
var GitHooks = []string{"post-merge", "post-checkout"}

const (
	hookBegin = "# ctx:begin (ctx init --git-hooks: keeps .context/ in step with the lock git brings)"
	hookEnd   = "# ctx:end"
)

// HookEdit is what InstallGitHooks did to one hook.
type HookEdit struct {
	Hook   string // its name: post-merge, post-checkout
	Path   string // the file, absolute
	Action string // "created", "added to", "updated", "current"
}

// hookBlock is the block of hook for a project at rel (slash path from
// the work tree's top, where git runs hooks; "" = the top; no quote or
// line end: InstallGitHooks checks). With no ctx on git's PATH the block
// prints a note on stderr (a failing install is a note, never a failed
// git command): the pull or checkout did not bring .context/ in step.
func hookBlock(hook, rel string) string {
	dir, cd := "", ""
	if rel != "" {
		// cd is dir inside the note's single quotes ('\'' ends them, puts
		// a quote, opens them again), so the note's command can be pasted.
		dir, cd = "-C '"+rel+"' ", "-C '\\''"+rel+"'\\'' "
	}
	// printf, not echo: dash's echo reads a backslash in the path as an
	// escape (\c ends the note).
	return hookBegin + "\n" +
		"if command -v ctx >/dev/null 2>&1; then ctx " + dir + "hook " + hook + " \"$@\" || true; " +
		"else printf '%s\\n' 'ctx hook: ctx is not on PATH, so .context/ was not brought in step with the lock: run ctx " + cd + "install' >&2; fi\n" +
		hookEnd + "\n"
}

// InstallGitHooks adds ctx's block to the post-merge and post-checkout
// hooks of the git repository root is in (where git runs them from:
// core.hooksPath honoured, gitengine.HooksDir). A hook that is not a
// shell script, is not executable (git does not run it) or has
// unpaired markers is refused with what to do; nothing is written then.
// env is git's environment (gitengine.HooksDir).
func InstallGitHooks(ctx context.Context, root string, env []string) ([]HookEdit, error) {
	hooks, top, err := gitengine.HooksDir(ctx, root, env)
	if err != nil {
		return nil, err
	}
	rel, err := relIn(top, root)
	if err != nil {
		return nil, err
	}
	if strings.ContainsAny(rel, "'\n") {
		return nil, fmt.Errorf("the project's path %s has a quote or a line end, which a hook cannot name safely: add `ctx -C DIR hook post-merge \"$@\"` to your hooks yourself", safetext.Quote(rel))
	}
	type plan struct {
		edit HookEdit
		data []byte
		perm fs.FileMode
	}
	var plans []plan
	for _, h := range GitHooks {
		p := filepath.Join(hooks, h)
		block := hookBlock(h, rel)
		e := HookEdit{Hook: h, Path: p}
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symbolic link (a hook shared with other repositories?): add `ctx hook %s \"$@\" || true` to what it points to yourself", safetext.Clip(p, 0), h)
		}
		cur, err := os.ReadFile(p)
		var data []byte
		perm := fs.FileMode(0o755)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			e.Action, data = "created", []byte("#!/bin/sh\n"+block)
		case err != nil:
			return nil, err
		default:
			fi, err := os.Stat(p)
			if err != nil {
				return nil, err
			}
			if fi.Mode().Perm()&0o111 == 0 {
				return nil, fmt.Errorf("%s is not executable, so git does not run it: make it executable (chmod +x) or remove it, then run this again", safetext.Clip(p, 0))
			}
			perm = fi.Mode().Perm()
			if data, e.Action, err = addHookBlock(p, cur, block); err != nil {
				return nil, err
			}
		}
		plans = append(plans, plan{e, data, perm})
	}
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		return nil, err
	}
	var out []HookEdit
	for _, pl := range plans {
		if pl.edit.Action != "current" {
			if err := atomicfile.WriteFile(pl.edit.Path, pl.data, pl.perm); err != nil {
				return out, err
			}
			// WriteFileAtomic's mode is filtered by the umask: a hook must
			// stay executable.
			if err := os.Chmod(pl.edit.Path, pl.perm); err != nil {
				return out, err
			}
		}
		out = append(out, pl.edit)
	}
	return out, nil
}

// addHookBlock puts block into a hook's content cur: in place of the block
// there, else right after its shebang line.
func addHookBlock(p string, cur []byte, block string) ([]byte, string, error) {
	lines := strings.SplitAfter(string(cur), "\n")
	begin, end := -1, -1
	for i, l := range lines {
		switch strings.TrimRight(l, "\r\n") {
		case hookBegin:
			if begin >= 0 {
				return nil, "", fmt.Errorf("%s:%d: a second ctx block: remove one (the lines from %q to %q), then run this again", safetext.Clip(p, 0), i+1, hookBegin, hookEnd)
			}
			begin = i
		case hookEnd:
			if begin < 0 || end >= 0 {
				return nil, "", fmt.Errorf("%s:%d: %q without its %q: fix or remove the ctx lines, then run this again", safetext.Clip(p, 0), i+1, hookEnd, hookBegin)
			}
			end = i
		}
	}
	if begin >= 0 && end < 0 {
		return nil, "", fmt.Errorf("%s:%d: %q without its %q: fix or remove the ctx lines, then run this again", safetext.Clip(p, 0), begin+1, hookBegin, hookEnd)
	}
	if begin >= 0 {
		old := strings.Join(lines[begin:end+1], "")
		if strings.TrimRight(old, "\n") == strings.TrimRight(block, "\n") {
			return cur, "current", nil
		}
		var b bytes.Buffer
		b.WriteString(strings.Join(lines[:begin], ""))
		b.WriteString(block)
		b.WriteString(strings.Join(lines[end+1:], ""))
		return b.Bytes(), "updated", nil
	}
	first := strings.TrimRight(lines[0], "\r\n")
	if !strings.HasPrefix(first, "#!") {
		// No shebang: git runs it with sh.
		return append([]byte(block), cur...), "added to", nil
	}
	if !shellShebang(first) {
		return nil, "", fmt.Errorf("%s is not a shell script (%s): add the line `ctx hook %s \"$@\" || true` to it in its own language, or run it from a shell hook", safetext.Clip(p, 0), safetext.Quote(first), filepath.Base(p))
	}
	var b bytes.Buffer
	b.WriteString(lines[0])
	if !strings.HasSuffix(lines[0], "\n") {
		b.WriteString("\n")
	}
	b.WriteString(block)
	b.WriteString(strings.Join(lines[1:], ""))
	return b.Bytes(), "added to", nil
}

// shellShebang reports whether a shebang line runs a POSIX shell.
func shellShebang(line string) bool {
	f := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(f) == 0 {
		return false
	}
	prog := filepath.Base(f[0])
	if prog == "env" && len(f) > 1 {
		prog = f[1]
	}
	switch prog {
	case "sh", "bash", "dash", "zsh", "ksh", "ash":
		return true
	}
	return false
}

// relIn is dir's slash path inside top ("" for top itself), both resolved
// through links.
func relIn(top, dir string) (string, error) {
	t, err := filepath.EvalSymlinks(top)
	if err != nil {
		return "", err
	}
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	rel, ok := naming.RelIn(t, d)
	if !ok {
		return "", fmt.Errorf("the project %s is outside the git work tree %s", safetext.Clip(dir, 0), safetext.Clip(top, 0))
	}
	if rel == "." {
		return "", nil
	}
	return filepath.ToSlash(rel), nil
}
