package main

import (
	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
)

type removeOptions struct {
	force bool
}

func newRemoveCmd(g *globalOptions) *cobra.Command {
	o := &removeOptions{}
	cmd := &cobra.Command{
		Use:     "remove ALIAS... [--force]",
		Aliases: []string{"rm"},
		Short:   "Remove context packages",
		Long: `Remove drops each ALIAS from the manifest and the lock and deletes
.context/packages/ALIAS.

A package with local edits is not removed: its files are listed and the
others go on; --force first copies the local files to a backup folder
(printed) and then removes the package.

Exit status: 0 when done; 3 when some packages were skipped (local edits);
2 for bad arguments; 1 for other errors (an unknown alias, say).`,
		Args: minArgs(1, "ALIAS"),
		RunE: func(cmd *cobra.Command, args []string) error {
			w, err := openWorkspace(g, nil)
			if err != nil {
				return err
			}
			defer w.Close()
			rep, err := w.Remove(cmd.Context(), args, workspace.RemoveOptions{Force: o.force})
			err = finishReport(cmd.Context(), g, w.Root(), rep, err, false)
			return err
		},
	}
	cmd.Flags().BoolVar(&o.force, "force", false, "back up local edits, then remove anyway")
	return cmd
}
