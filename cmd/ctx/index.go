package main

import (
	"fmt"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/spf13/cobra"
)

type indexOptions struct {
	rebuild bool
	budget  int
}

func newIndexCmd(g *globalOptions) *cobra.Command {
	o := &indexOptions{}
	cmd := &cobra.Command{
		Use:   "index [--rebuild] [--budget N]",
		Short: "Bring INDEX.md and the search index up to date",
		Long: fmt.Sprintf(`Index re-indexes the files of the installed packages that changed since
the last run, drops packages that are gone, and writes .context/INDEX.md
within its token budget: --budget, else the manifest's index.budgetTokens,
else %d. --rebuild drops the search index and builds it again.`, indexer.DefaultBudgetTokens),
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("budget") && o.budget <= 0 {
				return usageErrorf("index: --budget must be a positive number of tokens, got %d", o.budget)
			}
			w, err := openWorkspace(g, nil)
			if err != nil {
				return err
			}
			defer w.Close()
			budget := o.budget
			if budget == 0 {
				budget = w.Manifest().Index.BudgetTokens
			}
			errOut := g.IO.ErrOut
			rep, err := w.Reindex(cmd.Context(), indexer.Options{
				BudgetTokens: budget,
				Rebuild:      o.rebuild,
				Warn:         func(msg string) { fmt.Fprintf(errOut, "warning: %s\n", safetext.Text(msg)) },
			})
			if err != nil {
				return err
			}
			printSyncReport(g.IO.Out, rep)
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.rebuild, "rebuild", false, "drop the search index and build it again")
	cmd.Flags().IntVar(&o.budget, "budget", 0, "INDEX.md budget in `N` tokens (default: the manifest's, else the built-in default)")
	return cmd
}
