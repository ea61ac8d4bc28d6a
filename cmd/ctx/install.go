package main

import (
	"context"
	"fmt"

	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
)

type installOptions struct {
	*globalOptions
	frozen  bool
	force   bool
	dryRun  bool
	json    bool
	verbose bool
	allow   []string // --allow-outside ALIAS
}

func newInstallCmd(g *globalOptions, runF func(context.Context, *installOptions) error) *cobra.Command {
	opts := &installOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use: "install [--frozen] [--force] [--dry-run] [--json] [--verbose] [--allow-outside ALIAS]",
		Example: `  ctx install
  ctx install --frozen        # in CI: fail when the lock and the manifest disagree
  ctx install --force         # back up local edits, then install the locked files
  ctx install --dry-run       # what it would install, switch and remove; changes nothing
  ctx install --allow-outside handbook`,
		Short: "Install exactly what the lockfile names",
		Long: `Install makes .context/packages match context.lock exactly: it installs
missing packages at their locked revisions (a git commit, or the content
hash of https documents), switches changed ones, and removes ones the lock
no longer lists. Packages in the manifest but not yet in the lock are
resolved and locked. Dir sources (local files and folders) are live: never
installed, locked or written to; install only warns when one is missing or
outside the project. Run it after git pull.

A git source of the committed manifest that is a repository on this
machine (a path or a file:// URL) leading outside the project is refused,
as a dir source is: a clone must not make ctx copy your own repositories
into it. If you put it there yourself (a sibling checkout such as
../handbook), --allow-outside ALIAS allows it: where it leads is recorded
in .context/context.local.json (git-ignored, never committed), then it
installs. ctx add of such a path records this for you.

Inside the project, a source of the committed manifest reads only what git
shares: a dir source serves the files git tracks (the others are held
back, with a warning), one of which git tracks nothing is refused, and so
is a repository inside the project that git does not track or a ref of it
no remote has (refs/stash, an unpushed branch). --allow-outside ALIAS
allows it for its path (and ref), as "allowInside"; ctx add of a dir
source records this for you.

An https source of the committed manifest with tokenEnv (a variable of
your environment sent as a token) or allowPrivateNetwork (loopback,
private and link-local addresses) is refused the same way, and nothing is
sent: a clone, or a git pull with ctx's hooks, must not make ctx send your
secrets to a host it names or reach your own network. --allow-outside
ALIAS allows what it asks for the scheme, host and port of its URL only
(recorded in .context/context.local.json as "allowWeb"); ctx add with
--token-env or --allow-private-network records this for you.

--dry-run prints what install would do (ALIAS would install SHA, would
move OLD → NEW, would remove) and changes nothing in the project: it
writes no lock, package or index, and fetches no git files; an https
package the lock does not pin yet is downloaded to learn its content id
(kept in the shared cache, as outdated keeps it). With --allow-outside it
says what would be allowed and plans as if it were; nothing is recorded.
A change an earlier ctx left interrupted is finished or undone first, as
by every command that opens the project.

--frozen is for CI: when the manifest and the lock disagree it fails, naming
the entries, and it never writes the lock; a package with local edits makes
it exit 3 (below), so CI does not pass on tampered files.

A package with local edits under .context/packages/ALIAS is not touched,
even at its locked commit: it is skipped, its files are listed and the others
go on. --force first copies the local files
to a backup folder (printed) and then proceeds.

Documents whose front matter audience rules (ctx_include, ctx_exclude) do
not name this project are never installed: install says how many per
package, and --verbose names them. After the manifest's "project" changes, install
applies the rules again. This is routing, not access control.

Exit status: 0 when done; 3 when some packages were skipped (local edits, no
access, a local repository gone) or failed; 2 for bad arguments; 1 for
other errors.`,
		Args: installArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runInstall(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.frozen, "frozen", false, "fail when the manifest and the lock disagree; never write the lock (for CI)")
	cmd.Flags().BoolVar(&opts.force, "force", false, "back up local edits, then overwrite them")
	quietFlag(cmd, g)
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "print what would change; change nothing")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the result as JSON (alias, kind, ref, state, commits, errors)")
	cmd.Flags().BoolVar(&opts.verbose, "verbose", false, "name the documents audience rules withhold")
	cmd.Flags().StringSliceVar(&opts.allow, "allow-outside", nil, "allow package `ALIAS`'s local source outside the project, its git host on your private network, its files or ref git does not share inside it, or its https tokenEnv and allowPrivateNetwork for its host (recorded in .context/context.local.json; repeat or comma-separate for several)")
	return cmd
}

func runInstall(ctx context.Context, opts *installOptions) error {
	p := newProgress(opts.globalOptions)
	if opts.dryRun {
		p = nil // nothing is fetched
	}
	w, err := openWorkspaceFor(opts.globalOptions, p, opts.dryRun)
	if err != nil {
		return err
	}
	defer w.Close()
	rep, err := w.Install(ctx, workspace.InstallOptions{Frozen: opts.frozen, Force: opts.force, DryRun: opts.dryRun, AllowOutside: opts.allow})
	if p != nil {
		p.DoneWith(rep)
	}
	if opts.verbose && rep != nil {
		for _, r := range rep.Packages {
			for _, d := range r.Withheld {
				fmt.Fprintf(opts.IO.ErrOut, "%s: withheld %s\n", safetext.Escape(r.Alias), safetext.Escape(d))
			}
		}
	}
	err = finishReport(ctx, opts.globalOptions, w.Root(), rep, err, reportOptions{dryRun: opts.dryRun, json: opts.json})
	if err == nil && rep != nil {
		noteNoPackages(opts.globalOptions, w, len(rep.Packages))
	}
	if !opts.dryRun {
		trimCache(ctx, opts.globalOptions)
	}
	return err
}

// installArgs refuses arguments as noArgs does, and says what `npm install
// PKG` would have meant: ctx install takes what the lock names, and ctx
// add adds a package.
func installArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return fmt.Errorf("%s takes no arguments: it installs what the lock names; to add a package, run ctx add %s",
		c.CommandPath(), safetext.ShellJoin(args[:1]))
}
