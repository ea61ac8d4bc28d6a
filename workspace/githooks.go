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
	"github.com/ctx-dev/ctx/project"
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

// hookLine is the line of hook's block for the project at rel (slash
// path from the work tree's top, where git runs hooks; "" = the top; no
// quote or line end: InstallGitHooks checks). A monorepo's block holds one
// line per project (round 19: ctx init nests), each keyed by its -C folder
// (hookLineRel). A line runs only while its folder holds a manifest, so a
// removed project's leftover line does nothing (it would otherwise walk up
// to the project above and install that one twice). With no ctx on git's
// PATH the line prints a note on stderr (a failing install is a note,
// never a failed git command): the pull or checkout did not bring
// .context/ in step. The line's status is 0 whatever happens (git
// checkout exits with post-checkout's status).
func hookLine(hook, rel string) string {
	dir, cd, manifest := "", "", project.Rel(project.ManifestName)
	if rel != "" {
		// cd is dir inside the note's single quotes ('\'' ends them, puts
		// a quote, opens them again), so the note's command can be pasted.
		dir, cd, manifest = "-C '"+rel+"' ", "-C '\\''"+rel+"'\\'' ", rel+"/"+manifest
	}
	// printf, not echo: dash's echo reads a backslash in the path as an
	// escape (\c ends the note).
	return "if [ -f '" + manifest + "' ]; then " +
		"if command -v ctx >/dev/null 2>&1; then ctx " + dir + "hook " + hook + " \"$@\" || true; " +
		"else printf '%s\\n' 'ctx hook: ctx is not on PATH, so .context/ was not brought in step with the lock: run ctx " + cd + "install' >&2; fi; fi\n"
}

// hookLineRel is the project folder a line of ctx's block runs ctx in
// (its -C, "" for none), and whether the line is one of ctx's (this
// round's hookLine, or the one-line block of earlier rounds, which has no
// manifest check: both run "then ctx [-C 'DIR'] hook").
func hookLineRel(line string) (string, bool) {
	_, after, ok := strings.Cut(line, "then ctx ")
	if !ok {
		return "", false
	}
	if strings.HasPrefix(after, "hook ") {
		return "", true
	}
	after, ok = strings.CutPrefix(after, "-C '")
	if !ok {
		return "", false
	}
	rel, after, ok := strings.Cut(after, "'")
	if !ok || !strings.HasPrefix(after, " hook ") {
		return "", false
	}
	return rel, true
}

// hookBlock is the block of hook with the lines of the projects at rels
// (hookLine), between the markers.
func hookBlock(hook string, rels ...string) string {
	var b strings.Builder
	b.WriteString(hookBegin + "\n")
	for _, rel := range rels {
		b.WriteString(hookLine(hook, rel))
	}
	b.WriteString(hookEnd + "\n")
	return b.String()
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
	// live: a project's line is kept while its folder holds a manifest.
	live := func(rel string) bool {
		return project.HasManifest(filepath.Join(top, filepath.FromSlash(rel)))
	}
	type plan struct {
		edit HookEdit
		data []byte
		perm fs.FileMode
	}
	var plans []plan
	for _, h := range GitHooks {
		p := filepath.Join(hooks, h)
		e := HookEdit{Hook: h, Path: p}
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symbolic link (a hook shared with other repositories?): add `ctx hook %s \"$@\" || true` to what it points to yourself", safetext.Clip(p, 0), h)
		}
		cur, err := os.ReadFile(p)
		var data []byte
		perm := fs.FileMode(0o755)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			e.Action, data = "created", []byte("#!/bin/sh\n"+hookBlock(h, rel))
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
			if data, e.Action, err = addHookBlock(p, cur, h, rel, live); err != nil {
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

// addHookBlock puts the line of hook for the project at rel (hookLine)
// into a hook's content cur: in ctx's block there, in place of that
// project's line or after the other projects' lines, else in a new block
// right after the shebang line. Another project's line is kept, rewritten
// as hookLine writes it now, while live(its folder) (its folder holds a
// manifest), and dropped when not (a project removed or moved); a line of
// the block that is not ctx's is kept as it is.
func addHookBlock(p string, cur []byte, hook, rel string, live func(rel string) bool) ([]byte, string, error) {
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
		var b strings.Builder
		b.WriteString(hookBegin + "\n")
		own := false
		for _, l := range lines[begin+1 : end] {
			r, ok := hookLineRel(l)
			switch {
			case !ok:
				b.WriteString(l) // not ctx's: the user's, kept
			case r == rel:
				if !own {
					b.WriteString(hookLine(hook, rel))
				}
				own = true
			case live(r):
				b.WriteString(hookLine(hook, r))
			}
		}
		if !own {
			b.WriteString(hookLine(hook, rel))
		}
		b.WriteString(hookEnd + "\n")
		block := b.String()
		old := strings.Join(lines[begin:end+1], "")
		if strings.TrimRight(old, "\n") == strings.TrimRight(block, "\n") {
			return cur, "current", nil
		}
		var out bytes.Buffer
		out.WriteString(strings.Join(lines[:begin], ""))
		out.WriteString(block)
		out.WriteString(strings.Join(lines[end+1:], ""))
		return out.Bytes(), "updated", nil
	}
	block := hookBlock(hook, rel)
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
