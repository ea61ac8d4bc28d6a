package main

import (
	"fmt"

	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
)

type updateOptions struct {
	dryRun bool
	force  bool
}

func newUpdateCmd(g *globalOptions) *cobra.Command {
	o := &updateOptions{}
	cmd := &cobra.Command{
		Use:   "update [ALIAS...] [--dry-run] [--force]",
		Short: "Move packages to the newest commits of their refs",
		Long: `Update resolves each package's ref (all packages, or the ALIASes named) to
its newest commit, installs what moved and rewrites those entries of the
lock. A package whose ref has not moved is left alone, and a lock that does
not change is left byte-identical. Each package prints one line:

  ALIAS OLD → NEW
  ALIAS SHA unchanged

--dry-run prints what would change and changes nothing (see also ctx
outdated). A package with local edits is not touched: its files are listed
and the others go on; --force first copies the local files to a backup
folder (printed) and then proceeds.

Exit status: 0 when done; 3 when some packages were skipped (local edits, no
access) or failed; 2 for bad arguments; 1 for other errors.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var p *progress
			if !o.dryRun {
				p = newProgress(g)
			}
			w, err := openWorkspace(g, p)
			if err != nil {
				return err
			}
			defer w.Close()
			rep, err := w.Update(cmd.Context(), args, workspace.UpdateOptions{DryRun: o.dryRun, Force: o.force})
			if p != nil {
				p.Done()
			}
			err = finishReport(cmd.Context(), g, w.Root(), rep, err, o.dryRun)
			if err == nil && o.dryRun {
				fmt.Fprintln(g.IO.ErrOut, "dry run: nothing was changed")
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "print what would change; change nothing")
	cmd.Flags().BoolVar(&o.force, "force", false, "back up local edits, then overwrite them")
	return cmd
}
