package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/wizard"
	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
)

type hookOptions struct {
	*globalOptions
	hook string
	args []string
}

// newHookCmd is `ctx hook NAME [ARGS]`, what the git hooks `ctx init
// --git-hooks` installs run. It is hidden: people run install and changes.
func newHookCmd(g *globalOptions, runF func(context.Context, *hookOptions) error) *cobra.Command {
	opts := &hookOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:    "hook post-merge|post-checkout [ARGS...]",
		Short:  "Run by the git hooks ctx init --git-hooks installs",
		Hidden: true,
		Long: `Hook is what the git hooks installed by 'ctx init --git-hooks' run, with
git's arguments: when the merge (post-merge) or the branch checkout
(post-checkout PREV NEW 1) changed .context/context.lock, it runs ctx
install and prints one line per package of what changed in its documents.
It never fails: a problem is a note on stderr, so that git's command is
never failed by it.

Exit status: 0, always (2 only without a hook name).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.hook, opts.args = args[0], args[1:]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runHook(cmd.Context(), opts)
		},
	}
	return cmd
}

func runHook(ctx context.Context, opts *hookOptions) error {
	since := ""
	switch opts.hook {
	case "post-merge":
		since = "ORIG_HEAD"
	case "post-checkout":
		if len(opts.args) < 3 || opts.args[2] != "1" {
			return nil // a file checkout: the lock is the user's business
		}
		if strings.Trim(opts.args[0], "0") != "" {
			since = opts.args[0]
		}
	default:
		return usageErrorf("unknown hook %s: ctx keeps post-merge and post-checkout", safetext.Quote(opts.hook))
	}
	note := func(err error) error {
		fmt.Fprintf(opts.IO.ErrOut, "ctx: %s (run `ctx install` to bring .context/ in step with the lock)\n", opts.deepText(err.Error()))
		return nil
	}
	dir, err := opts.ProjectDir()
	if err != nil {
		return note(err)
	}
	proj, err := project.At(dir)
	if err != nil {
		return note(err)
	}
	if proj.Check() != nil {
		return nil // not a ctx project (any more, on this branch)
	}
	cur, err := proj.ReadLockData() // bounded: a pull brings it
	if err != nil {
		return nil // no lock: nothing to install
	}
	if since != "" {
		old, err := gitengine.ReadAtRevision(dir, proj.Path(project.LockName), since)
		if err == nil && bytes.Equal(old.Data, cur) {
			return nil // the lock did not change
		}
		if err != nil && !errors.Is(err, gitengine.ErrNotAtRevision) {
			since = "" // no earlier lock to name: install, list nothing
		}
	}
	// A partial install (a package skipped: dirty, no access) has said
	// why on stderr; the others were installed, so their summary follows.
	if err := runInstall(ctx, &installOptions{globalOptions: opts.globalOptions}); err != nil {
		var xe *exitError
		if !errors.As(err, &xe) || xe.code != ExitPartial || xe.err != nil {
			return note(err)
		}
	}
	if since == "" {
		return nil
	}
	w, err := openWorkspaceReadOnly(opts.globalOptions)
	if err != nil {
		return note(err)
	}
	defer w.Close()
	set, err := w.Changes(ctx, workspace.ChangesOptions{Since: since})
	if err != nil {
		return note(err)
	}
	for _, l := range workspace.ChangesSummary(set) {
		fmt.Fprintln(opts.IO.Out, "ctx: "+safetext.Escape(l))
	}
	return nil
}

// gitHooksStep installs the git hooks (workspace.InstallGitHooks): at
// once with --git-hooks (flag), after asking when p (a terminal's
// prompter) is not nil and the project is in a git repository, else not.
func gitHooksStep(ctx context.Context, g *globalOptions, root string, flag bool, p wizard.Prompter) error {
	if !flag {
		if p == nil {
			return nil
		}
		if _, _, err := gitengine.HooksDir(ctx, root, g.Env); err != nil {
			return nil // not in a git repository: nothing to offer
		}
		ok, err := p.Confirm("Install git hooks (post-merge, post-checkout) that run `ctx install` when a pull or checkout brings a new lock?", false)
		if err != nil || !ok {
			return nil
		}
	}
	edits, err := workspace.InstallGitHooks(ctx, root, g.Env)
	if err != nil {
		if flag {
			return fmt.Errorf("git hooks: %w", err)
		}
		fmt.Fprintf(g.IO.ErrOut, "warning: git hooks not installed: %s\n", g.deepText(err.Error()))
		return nil
	}
	for _, e := range edits {
		if e.Action == "current" {
			fmt.Fprintf(g.notes(), "git hook %s is current\n", safetext.Escape(e.Path))
			continue
		}
		fmt.Fprintf(g.notes(), "%s git hook %s\n", e.Action, safetext.Escape(e.Path))
	}
	if _, err := g.Env.lookPath("ctx"); err != nil {
		// The hooks run `ctx` from git's PATH: without it they only say so.
		fmt.Fprintln(g.IO.ErrOut, "warning: ctx is not on PATH here, so the hooks will install nothing (each says \"ctx is not on PATH\" on a pull or checkout): put ctx on the PATH git runs with (a GUI git client's may differ)")
	}
	return nil
}
