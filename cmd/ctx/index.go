package main

import (
	"context"
	"fmt"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/spf13/cobra"
)

type indexOptions struct {
	*globalOptions
	rebuild   bool
	budget    int
	budgetSet bool // --budget was given
}

func newIndexCmd(g *globalOptions, runF func(context.Context, *indexOptions) error) *cobra.Command {
	opts := &indexOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "index [--rebuild] [--budget N]",
		Short: "Bring INDEX.md and the search index up to date",
		Long: fmt.Sprintf(`Index re-indexes the files of the installed packages that changed since
the last run, drops packages that are gone, and writes .context/INDEX.md
within its token budget: --budget, else the manifest's index.budgetTokens,
else %d. --rebuild drops the search index and builds it again.`, indexer.DefaultBudgetTokens),
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.budgetSet = cmd.Flags().Changed("budget")
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runIndex(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.rebuild, "rebuild", false, "drop the search index and build it again")
	cmd.Flags().IntVar(&opts.budget, "budget", 0, "INDEX.md budget in `N` tokens (default: the manifest's, else the built-in default)")
	return cmd
}

func runIndex(ctx context.Context, opts *indexOptions) error {
	if opts.budgetSet && opts.budget <= 0 {
		return usageErrorf("index: --budget must be a positive number of tokens, got %d", opts.budget)
	}
	w, err := openWorkspace(opts.globalOptions, nil)
	if err != nil {
		return err
	}
	defer w.Close()
	budget := opts.budget
	if budget == 0 {
		budget = w.Manifest().Index.BudgetTokens
	}
	errOut := opts.IO.ErrOut
	rep, err := w.Reindex(ctx, indexer.Options{
		BudgetTokens: budget,
		Rebuild:      opts.rebuild,
		Warn:         func(msg string) { fmt.Fprintf(errOut, "warning: %s\n", safetext.Text(msg)) },
	})
	if err != nil {
		return err
	}
	printSyncReport(opts.IO.Out, rep)
	return nil
}
