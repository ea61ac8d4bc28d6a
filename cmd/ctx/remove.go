package main

import (
	"context"
	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
)

type removeOptions struct {
	*globalOptions
	aliases []string // the ALIAS arguments
	force   bool
	dryRun  bool
	json    bool
}

func newRemoveCmd(g *globalOptions, runF func(context.Context, *removeOptions) error) *cobra.Command {
	opts := &removeOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use: "remove ALIAS... [--force] [--dry-run] [--json] [-q]",
		Example: `  ctx remove api
  ctx rm api guide --force    # back up local edits first
  ctx remove api --dry-run    # what it would remove; changes nothing`,
		Aliases: []string{"rm"},
		// what npm, cargo and go call it (commandSuggestions)
		SuggestFor: []string{"uninstall", "delete", "del", "un"},
		Short:      "Remove context packages",
		Long: `Remove drops each ALIAS from the manifest and the lock and deletes
.context/packages/ALIAS. A dir source is only dropped from the manifest:
its file or folder is yours and is never touched.

A package with local edits is not removed: its files are listed and the
others go on; --force first copies the local files to a backup folder
(printed) and then removes the package. --dry-run prints what remove
would do (ALIAS would remove, or why not) and changes nothing.

Exit status: 0 when done; 3 when some packages were skipped (local edits);
2 for bad arguments (an unknown alias, say); 1 for other errors.`,
		Args: minArgs(1, "ALIAS"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.aliases = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRemove(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.force, "force", false, "back up local edits, then remove anyway")
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "print what would be removed; change nothing")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the result as JSON (alias, kind, ref, state, commits, errors)")
	quietFlag(cmd, g)
	return cmd
}

func runRemove(ctx context.Context, opts *removeOptions) error {
	w, err := openWorkspaceFor(opts.globalOptions, nil, opts.dryRun)
	if err != nil {
		return err
	}
	defer w.Close()
	rep, err := w.Remove(ctx, opts.aliases, workspace.RemoveOptions{Force: opts.force, DryRun: opts.dryRun})
	err = finishReport(ctx, opts.globalOptions, w.Root(), rep, err, reportOptions{dryRun: opts.dryRun, json: opts.json})
	return err
}
