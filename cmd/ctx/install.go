package main

import (
	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
)

type installOptions struct {
	frozen bool
	force  bool
}

func newInstallCmd(g *globalOptions) *cobra.Command {
	o := &installOptions{}
	cmd := &cobra.Command{
		Use:   "install [--frozen] [--force]",
		Short: "Install exactly what the lockfile names",
		Long: `Install makes .context/packages match context.lock exactly: it installs
missing packages at their locked commits, switches changed ones, and removes
ones the lock no longer lists. Packages in the manifest but not yet in the
lock are resolved and locked. Run it after git pull.

--frozen is for CI: when the manifest and the lock disagree it fails, naming
the entries, and it never writes the lock.

A package with local edits under .context/packages/ALIAS is not touched: its
files are listed and the others go on. --force first copies the local files
to a backup folder (printed) and then proceeds.

Exit status: 0 when done; 3 when some packages were skipped (local edits, no
access) or failed; 2 for bad arguments; 1 for other errors.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p := newProgress(g)
			w, err := openWorkspace(g, p)
			if err != nil {
				return err
			}
			defer w.Close()
			rep, err := w.Install(cmd.Context(), workspace.InstallOptions{Frozen: o.frozen, Force: o.force})
			p.Done()
			err = finishReport(cmd.Context(), g, w.Root(), rep, err, false)
			return err
		},
	}
	cmd.Flags().BoolVar(&o.frozen, "frozen", false, "fail when the manifest and the lock disagree; never write the lock (for CI)")
	cmd.Flags().BoolVar(&o.force, "force", false, "back up local edits, then overwrite them")
	return cmd
}
