package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/spf13/cobra"
)

type outdatedOptions struct {
	*globalOptions
	aliases []string // the ALIAS arguments
	json    bool
}

func newOutdatedCmd(g *globalOptions, runF func(context.Context, *outdatedOptions) error) *cobra.Command {
	opts := &outdatedOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use: "outdated [ALIAS...] [--json]",
		Example: `  ctx outdated
  ctx outdated api --json`,
		Short: "Show what update would change",
		Long: `Outdated resolves each package's source (all packages, or the ALIASes
named) and lists those whose newest revision differs from the locked one:
what ctx update would change. A git package is outdated when its folder
changed: a commit elsewhere in its repository leaves it (and its lock entry)
as it is. It changes nothing; for a git ref that moved, it fetches the new
commit's trees (no file contents) to compare its folder. Dir sources are live and never outdated. An https source is asked only once
its TTL expired (a conditional request); it is listed when the server's
content differs from the locked content, and as "unchanged (TTL expired)"
when the server said it is the locked content (ctx update --refresh asks
again within the TTL).

--json prints an array of {alias, ref, oldCommit, newCommit, expired} ([]
when everything is current; expired: the TTL ran out, the content did not
change).

Exit status: 0 whether or not something is outdated; 1 when a ref could not
be resolved (the packages that could are still listed, and the others are
named on stderr); 2 for bad arguments.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.aliases = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runOutdated(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

func runOutdated(ctx context.Context, opts *outdatedOptions) error {
	w, err := openWorkspace(opts.globalOptions, nil)
	if err != nil {
		return err
	}
	defer w.Close()
	// Outdated returns what it found and the joined errors of the packages
	// it could not resolve: the others are still printed (one broken
	// package must not hide the rest), then the error is returned (exit 1).
	// A nil list is an error that stopped the whole command (a bad lock,
	// an unknown alias, exit 2): nothing goes to stdout.
	changes, resolveErr := w.Outdated(ctx, opts.aliases)
	if changes == nil {
		return resolveErr
	}
	if opts.json {
		if err := writeJSON(opts.IO.Out, changes); err != nil {
			return err
		}
		return resolveErr
	}
	if len(changes) == 0 {
		if resolveErr == nil {
			fmt.Fprintln(opts.IO.ErrOut, "all packages are up to date")
		}
		return resolveErr
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ALIAS\tREF\tLOCKED\tLATEST")
	for _, c := range changes {
		old := shortSHA(c.OldCommit)
		if old == "" {
			old = "-"
		}
		ref := c.Ref
		switch {
		case strings.HasPrefix(c.NewCommit, "sha256:"):
			ref = "-" // an https source has no ref
		case ref == "":
			ref = "(default branch)"
		}
		latest := shortSHA(c.NewCommit)
		if c.Expired {
			latest = "unchanged (TTL expired)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", safetext.Escape(c.Alias), safetext.Escape(ref), old, latest)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return resolveErr
}
