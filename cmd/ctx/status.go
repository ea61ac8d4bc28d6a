package main

import (
	"cmp"
	"context"
	"fmt"

	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
)

type statusOptions struct {
	*globalOptions
	json bool
}

func newStatusCmd(g *globalOptions, runF func(context.Context, *statusOptions) error) *cobra.Command {
	opts := &statusOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use: "status [--json]",
		Example: `  ctx status
  ctx status --json`,
		Short: "Show packages with local edits",
		Long: `Status lists the packages whose files under .context/packages/ALIAS differ
from what ctx installed (dir sources are the project's own files, and not
listed), and those files, marked as git status --short does:

  ALIAS
  	M path   modified (or its mode changed)
  	A path   added
  	D path   deleted

A package ctx installed at another commit than the lock's (a git pull or
checkout brought a new lock and no ctx install followed) is named too:

  ALIAS: behind the lock: installed SHA, locked SHA (run ctx install)

When a pull brought its files too and they are, all of them, the locked
commit's text (they hash to the lock's hash), they are no local edits: the
line says so ("its files are the locked commit's already, as a pull brought
them: run ctx install to record them").

So is a package whose files came with the project (a committed packages/)
but that ctx did not install on this machine, neither indexed nor served:

  ALIAS: not installed on this machine (...): run ctx install

Like git status, it exits 0 whether or not there are edits (1 only when it
cannot tell). In CI, use ctx verify, which exits non-zero when the installed
files do not match the lock.

With an embedding endpoint configured, a first line says how much of the
index is embedded, with which model.

A project whose packages are not indexed (no INDEX.md or no search index:
an install interrupted before its index was built) is said too, with the
command that builds it (ctx index; a re-run of ctx install does it as well).

--json prints {edits, behind, notInstalled, indexMissing, semantic}: edits an array of {alias, files:
[{path, change}]}, [] when clean; behind an array of {alias,
installedCommit, lockedCommit, filesLocked}, [] when every package is at
the lock's (filesLocked true only when its files are the lock's text);
notInstalled the aliases whose files came with the project but that ctx did
not install on this machine (run ctx install), [] when none;
indexMissing true when the packages are not indexed; semantic {on, hybrid, model, chunks, embedded,
bytes, problem}: whether an endpoint is configured, whether search is
hybrid by default, and how many of the index's chunks have a vector.

Exit status: 0 whether or not there are edits; 1 when it cannot tell; 2 for
bad arguments.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runStatus(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

func runStatus(ctx context.Context, opts *statusOptions) error {
	w, err := openWorkspaceReadOnly(opts.globalOptions)
	if err != nil {
		return err
	}
	defer w.Close()
	st, err := w.Status()
	if err != nil {
		return err
	}
	type behind struct {
		Alias           string `json:"alias"`
		InstalledCommit string `json:"installedCommit"`
		LockedCommit    string `json:"lockedCommit"`
		// FilesLocked: the files are the locked commit's already (a pull
		// brought them, trust23).
		FilesLocked bool `json:"filesLocked,omitempty"`
	}
	edits, late, notHere := []workspace.PackageStatus{}, []behind{}, []string{}
	for _, p := range st {
		if p.NotInstalledHere {
			notHere = append(notHere, p.Alias)
		}
		if p.InstalledCommit != "" {
			late = append(late, behind{p.Alias, p.InstalledCommit, p.LockedCommit, p.FilesLocked})
		}
		if len(p.Files) > 0 {
			edits = append(edits, workspace.PackageStatus{Alias: p.Alias, Files: p.Files})
		}
	}
	sem := semanticState(opts.Env, w.Dir())
	noIndex := len(w.Manifest().Packages) > 0 && w.IndexMissing()
	if !opts.json && noteNoPackages(opts.globalOptions, w, len(st)) {
		return nil // not "no local edits"
	}
	if opts.json {
		return writeJSON(opts.IO.Out, struct {
			Edits        []workspace.PackageStatus `json:"edits"`
			Behind       []behind                  `json:"behind"`
			NotInstalled []string                  `json:"notInstalled"`
			IndexMissing bool                      `json:"indexMissing"`
			Semantic     semanticReport            `json:"semantic"`
		}{edits, late, notHere, noIndex, sem})
	}
	if line := semanticStatus(sem); line != "" {
		fmt.Fprintln(opts.IO.Out, line)
	}
	if noIndex {
		fmt.Fprintln(opts.IO.Out, "no index: the packages are not indexed (an install interrupted?): run `ctx index`")
	}
	edited := map[string]bool{}
	for _, p := range edits {
		edited[p.Alias] = true
	}
	for _, a := range notHere {
		fmt.Fprintf(opts.IO.Out, "%s: not installed on this machine (%s %s; its files came with the project and are not indexed or served): run `ctx install`\n", safetext.Escape(a), project.Rel(project.StateDir+"/"+a+".json"), cmp.Or(w.NotInstalledWhy(a), "is missing"))
	}
	for _, b := range late {
		advice := behindAdvice(edited[b.Alias])
		if b.FilesLocked {
			advice = filesLockedAdvice
		}
		fmt.Fprintf(opts.IO.Out, "%s: behind the lock: installed %s, locked %s (%s)\n", safetext.Escape(b.Alias), shortSHA(b.InstalledCommit), shortSHA(b.LockedCommit), advice)
	}
	if len(edits) == 0 {
		fmt.Fprintln(opts.IO.Out, "no local edits")
		return nil
	}
	for _, p := range edits {
		fmt.Fprintln(opts.IO.Out, safetext.Escape(p.Alias))
		for _, f := range p.Files {
			fmt.Fprintf(opts.IO.Out, "\t%s\n", changeLine(f))
		}
	}
	fmt.Fprintln(opts.IO.ErrOut, "install, update and remove leave these packages alone; --force backs the edits up first")
	return nil
}

// changeLine renders a file change as git status --short does, the path
// escaped.
func changeLine(f workspace.FileChange) string {
	f.Path = safetext.Escape(f.Path)
	switch f.Change {
	case "modified":
		return "M " + f.Path
	case "added":
		return "A " + f.Path
	case "deleted":
		return "D " + f.Path
	case "mode":
		return "M " + f.Path + " (mode)"
	}
	return "? " + f.Path + " (" + safetext.Escape(f.Change) + ")"
}

// filesLockedAdvice is what status and list say of a package behind the
// lock whose files are the locked commit's already (a pull brought the
// lock and the files: workspace's FilesLocked, trust23).
const filesLockedAdvice = "its files are the locked commit's already, as a pull brought them: run ctx install to record them"

// behindAdvice is what moves a package behind the lock on (status, list):
// a plain install, or, when it also has local edits (which a plain install
// skips as dirty), --force, which backs the edits up.
func behindAdvice(edited bool) string {
	if edited {
		return "with local edits, which ctx install skips: ctx install --force backs them up and installs the locked files"
	}
	return "run ctx install"
}
