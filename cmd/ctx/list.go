package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"text/tabwriter"

	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
)

type listOptions struct {
	*globalOptions
	json bool
}

func newListCmd(g *globalOptions, runF func(context.Context, *listOptions) error) *cobra.Command {
	opts := &listOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use: "list [--json]",
		Example: `  ctx list
  ctx ls --json`,
		Aliases:    []string{"ls"},
		SuggestFor: []string{"info", "show"}, // commandSuggestions
		Short:      "List the project's context packages",
		Long: `List shows every package of the manifest and the lock, sorted by alias:
its kind (git, dir or https), source, path, ref, locked revision (a git
commit or an https content hash; none for a dir source, which is live),
and state, with how many documents its audience rules withhold from this
project. The first line names the project audience rules are matched
against: the manifest's "project", or the project folder's name by default
(it says so).

A dir source outside the project is your own: it is kept in
.context/context.local.json (git-ignored, never committed) and listed as
local. A committed dir source that leads outside the project is refused:
neither indexed nor served; so is a committed git source that is a
repository on this machine outside the project, unless you allowed it
(ctx install --allow-outside ALIAS).

A package whose files are another commit's than the lock's (a git pull or
checkout brought a new lock and no ctx install followed) is "behind the
lock (installed SHA): run ctx install"; COMMIT is the lock's. When it also
has local edits, which a plain install skips, it says so and names
ctx install --force (which backs them up), as ctx status does; when a
pull brought its files too and they are the locked commit's text, it says
so and that ctx install records them. A locked
package whose files came with the project (a committed packages/) but that
ctx did not install on this machine is "not installed on this machine":
it is neither indexed nor served until ctx install.

--json prints an array of {alias, kind, source, path, ref, commit,
installed, locked, inManifest, withheld, local, refused, installedCommit,
edited, filesLocked, notInstalledHere}; installedCommit only when it is
not the lock's commit, edited (true) only for such a package with local
edits, filesLocked (true) only for such a package whose files are the
lock's text,
notInstalledHere (true, installed false) only for a package ctx did not
install on this machine.

Exit status: 0 when listed (whatever the packages' states); 2 for bad
arguments; 1 when the manifest or the lock cannot be read.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runList(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

func runList(ctx context.Context, opts *listOptions) error {
	w, err := openWorkspaceReadOnly(opts.globalOptions)
	if err != nil {
		return err
	}
	defer w.Close()
	pkgs, err := w.List()
	if err != nil {
		return err
	}
	if pkgs == nil {
		pkgs = []workspace.PackageInfo{}
	}
	if opts.json {
		return writeJSON(opts.IO.Out, pkgs)
	}
	if len(pkgs) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, noPackagesYet)
		return nil
	}
	name, defaulted := w.ProjectName()
	if defaulted {
		fmt.Fprintf(opts.IO.Out, "project: %s (by default the folder's name; set \"project\" in %s to fix it)\n", safetext.Quote(name), project.Rel(project.ManifestName))
	} else {
		fmt.Fprintf(opts.IO.Out, "project: %s\n", safetext.Quote(name))
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ALIAS\tKIND\tSOURCE\tPATH\tREF\tCOMMIT\tSTATE")
	for _, p := range pkgs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", safetext.Escape(p.Alias), safetext.Escape(p.Kind), safetext.Escape(p.Source),
			safetext.Escape(orDash(p.Path)), safetext.Escape(refCell(p.Kind, p.Ref)),
			orDash(shortSHA(p.Commit)), packageState(p))
	}
	return tw.Flush()
}

func packageState(p workspace.PackageInfo) string {
	switch {
	case p.Kind == project.KindDir && p.InManifest && !p.Locked:
		local := ""
		if p.Local {
			local = ", local (yours: " + project.Rel(project.LocalName) + ")"
		}
		switch {
		case p.Refused != "":
			return "refused, not served (ctx install says why)"
		case p.Installed:
			return "live" + local
		}
		return "missing (the file or folder does not exist)" + local
	case p.Refused != "":
		return "refused, not fetched (ctx install says why)"
	case !p.InManifest:
		return "not in manifest (ctx install removes it)"
	case !p.Locked:
		return "not locked (run ctx install)"
	case p.NotInstalledHere:
		return "not installed on this machine (its files came with the project; not indexed or served): run `ctx install`"
	case !p.Installed:
		return "not installed (run ctx install)"
	case p.InstalledCommit != "" && p.FilesLocked:
		return "behind the lock (installed " + shortSHA(p.InstalledCommit) + "): " + filesLockedAdvice
	case p.InstalledCommit != "" && p.Edited:
		return "behind the lock (installed " + shortSHA(p.InstalledCommit) + "), " + behindAdvice(true)
	case p.InstalledCommit != "":
		return "behind the lock (installed " + shortSHA(p.InstalledCommit) + "): " + behindAdvice(false)
	case p.Withheld == 1:
		return "installed, 1 document withheld (audience rules)"
	case p.Withheld > 1:
		return fmt.Sprintf("installed, %d documents withheld (audience rules)", p.Withheld)
	}
	return "installed"
}

// refCell is a package's ref as the tables show it (list, outdated, setup
// --list): the ref, "(default branch)" for a git package that names none,
// "-" for a kind that has no ref (dir, https) (cli18 finding 19: list said
// "-" where outdated said "(default branch)").
func refCell(kind, ref string) string {
	switch {
	case kind != project.KindGit:
		return "-"
	case ref == "":
		return "(default branch)"
	}
	return ref
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// noteNoPackages writes noPackagesYet to g's notes when the command did
// nothing (reported is how many packages it reported on) in a project
// whose manifest has no package: install, update, outdated and status say
// so, as list does, rather than nothing or "all up to date". It reports
// whether it did.
func noteNoPackages(g *globalOptions, w *workspace.Workspace, reported int) bool {
	if reported == 0 && len(w.Manifest().Packages) == 0 {
		fmt.Fprintln(g.notes(), noPackagesYet)
		return true
	}
	return false
}

// noPackagesYet is what a command says in a project with no packages
// (hasNoPackages): list, verify and search alike.
const noPackagesYet = "no packages yet: add one with ctx add SOURCE (a git URL, a local file or folder, or an https URL)"

// hasNoPackages says whether proj's manifest (with context.local.json's)
// and its lock name no package. A file that cannot be read is not
// "none": the command's own reading says what is wrong with it.
func hasNoPackages(proj project.Project) bool {
	m, err := proj.ReadManifest()
	if err != nil || len(m.Packages) > 0 {
		return false
	}
	l, err := proj.ReadLock()
	return errors.Is(err, fs.ErrNotExist) || (err == nil && len(l.Packages) == 0)
}
