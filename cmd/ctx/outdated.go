package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/workspace"
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

--json prints an array of {alias, ref, oldCommit, newCommit, expired,
localEdits} ([] when everything is current; expired: the TTL ran out, the
content did not change; localEdits: the package's files were edited, so
update skips it unless --force, which backs the edits up first; the table
says so after the new commit; not said of edits the new commit already
has, as after ctx push and a merge, which update keeps).

Exit status: 0 whether or not something is outdated; 3 when some package
could not be checked (a ref that cannot be resolved, an entry ctx refuses):
the others are still listed, and each failure is named on stderr as update
names it; 1 for an error that stops the command; 2 for bad arguments.`,
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
	// Outdated returns what it found and the packages it could not check:
	// the others are still printed (one broken or refused package must not
	// hide the rest), then each failure is reported as update reports it
	// (printProblem, notDone: exit 3). An error is one that stopped the
	// whole command (a bad lock, an unknown alias, exit 2): nothing goes to
	// stdout.
	rep, err := w.Outdated(ctx, opts.aliases)
	if err != nil {
		return err
	}
	if !opts.json && noteNoPackages(opts.globalOptions, w, rep.Checked) {
		return nil // not "all packages are up to date"
	}
	if err := printOutdated(opts, rep.Changes, len(rep.Failed) == 0); err != nil {
		return err
	}
	if len(rep.Failed) == 0 {
		return nil
	}
	var bad []string
	for _, p := range rep.Failed {
		p.Alias = safetext.Escape(p.Alias)
		bad = append(bad, p.Alias)
		printProblem(opts.globalOptions, opts.IO.ErrOut, p)
	}
	return notDone(opts.IO.ErrOut, bad, rep.Checked)
}

// printOutdated prints changes as a table or JSON; with none, the table
// says so on stderr when every package was checked (allChecked).
func printOutdated(opts *outdatedOptions, changes []workspace.Change, allChecked bool) error {
	if opts.json {
		return writeJSON(opts.IO.Out, changes)
	}
	if len(changes) == 0 {
		if allChecked {
			fmt.Fprintln(opts.IO.ErrOut, "all packages are up to date")
		}
		return nil
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ALIAS\tREF\tLOCKED\tLATEST")
	for _, c := range changes {
		old := shortSHA(c.OldCommit)
		if old == "" {
			old = "-"
		}
		kind := project.KindGit
		if strings.HasPrefix(c.NewCommit, "sha256:") {
			kind = project.KindHTTPS // a content hash: an https source, which has no ref
		}
		ref := refCell(kind, c.Ref)
		latest := shortSHA(c.NewCommit)
		if c.Expired {
			latest = "unchanged (TTL expired)"
		}
		if c.LocalEdits {
			latest += "  (local edits: update skips it; --force backs them up)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", safetext.Escape(c.Alias), safetext.Escape(ref), old, latest)
	}
	return tw.Flush()
}
