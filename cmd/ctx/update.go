package main

import (
	"context"
	"io"

	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
)

type updateOptions struct {
	*globalOptions
	aliases []string // the ALIAS arguments
	dryRun  bool
	json    bool
	force   bool
	refresh bool
}

func newUpdateCmd(g *globalOptions, runF func(context.Context, *updateOptions) error) *cobra.Command {
	opts := &updateOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use: "update [ALIAS...] [--dry-run] [--force] [--refresh] [--json]",
		Example: `  ctx update
  ctx update api --dry-run
  ctx update --refresh        # ask https sources now, within their TTL`,
		SuggestFor: []string{"upgrade", "up"}, // commandSuggestions
		Short:      "Move packages to the newest revisions of their sources",
		Long: `Update resolves each package's source (all packages, or the ALIASes named)
to its newest revision (a git ref's newest commit; an https source's current
content), installs what moved and rewrites those entries of the lock. Dir
sources are live and have nothing to update. A package whose ref has not moved is left alone, and a lock that does
not change is left byte-identical. Each package prints one line:

  ALIAS OLD → NEW
  ALIAS SHA unchanged

An https source is trusted for its TTL without a request; --refresh asks its
server now (a conditional request with the locked ETag / Last-Modified: an
unchanged page costs one 304 and changes nothing).

--dry-run prints what would change and changes nothing (see also ctx
outdated). A package with local edits is not touched: its files are listed
and the others go on; --force first copies the local files to a backup
folder (printed) and then proceeds.

Exit status: 0 when done; 3 when some packages were skipped (local edits, no
access, a local repository gone) or failed; 2 for bad arguments; 1 for
other errors.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.aliases = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runUpdate(cmd.Context(), opts)
		},
	}
	quietFlag(cmd, g)
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "print what would change; change nothing")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the result as JSON (alias, kind, ref, state, commits, errors)")
	cmd.Flags().BoolVar(&opts.force, "force", false, "back up local edits, then overwrite them")
	cmd.Flags().BoolVar(&opts.refresh, "refresh", false, "ask https sources' servers now, even within their TTL")
	return cmd
}

func runUpdate(ctx context.Context, opts *updateOptions) error {
	var p *progress
	if !opts.dryRun {
		p = newProgress(opts.globalOptions)
	}
	w, err := openWorkspaceFor(opts.globalOptions, p, opts.dryRun)
	if err != nil {
		return err
	}
	defer w.Close()
	rep, err := w.Update(ctx, opts.aliases, workspace.UpdateOptions{DryRun: opts.dryRun, Force: opts.force, Refresh: opts.refresh, Changes: !opts.dryRun})
	if p != nil {
		p.DoneWith(rep)
	}
	err = finishReport(ctx, opts.globalOptions, w.Root(), rep, err, reportOptions{dryRun: opts.dryRun, json: opts.json})
	if err == nil && rep != nil {
		noteNoPackages(opts.globalOptions, w, len(rep.Packages))
	}
	if rep != nil && !opts.dryRun {
		out := opts.IO.Out
		if opts.json {
			out = io.Discard // stdout is the JSON; INDEX.md still records what changed
		}
		printUpdateSummary(ctx, opts.globalOptions, out, w, rep)
	}
	if !opts.dryRun {
		trimCache(ctx, opts.globalOptions)
	}
	return err
}
