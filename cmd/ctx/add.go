package main

import (
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
)

type addOptions struct {
	path  string
	alias string
	ref   string
	force bool
}

func newAddCmd(g *globalOptions) *cobra.Command {
	o := &addOptions{}
	cmd := &cobra.Command{
		Use:   "add SOURCE [--path P] [--alias A] [--ref R] [--force]",
		Short: "Add a context package from a git repository",
		Long: `Add records a package in the manifest, fetches it into
.context/packages/ALIAS/ and pins it in the lock.

SOURCE is any git URL (https://, ssh://, git@host:repo, file://) or the path
of a local repository; a relative path is taken from the project directory
(the working directory, or -C DIR), as git -C does. --path picks a folder inside the repository (default:
all of it). --ref is a branch, a tag or a commit (default: the remote's
default branch). The alias defaults from the path or the repository's name;
an alias already in the manifest is refused.

Exit status: 0 when added; 3 when the package could not be fetched (no
access, say: nothing is added); 2 for bad arguments; 1 for other errors.`,
		Example: `  ctx add https://github.com/acme/handbook --path docs/api --alias api
  ctx add ../handbook --ref v1.2.0`,
		Args: exactArgs(1, "SOURCE (a git URL or a local repository path)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAdd(cmd, g, o, args[0])
		},
	}
	cmd.Flags().StringVar(&o.path, "path", "", "the folder `P` inside the repository (default: all of it)")
	cmd.Flags().StringVar(&o.alias, "alias", "", "the package's name `A` in this project (default: from the path or repository)")
	cmd.Flags().StringVar(&o.ref, "ref", "", "branch, tag or commit `R` (default: the remote's default branch)")
	cmd.Flags().BoolVar(&o.force, "force", false, "replace an existing packages/ALIAS folder, backing up its files first")
	return cmd
}

func runAdd(cmd *cobra.Command, g *globalOptions, o *addOptions, source string) error {
	if source == "" {
		return usageErrorf("add: SOURCE is empty (usage: %s)", cmd.UseLine())
	}
	p := newProgress(g)
	w, err := openWorkspace(g, p)
	if err != nil {
		return err
	}
	defer w.Close()
	spec := project.PackageSpec{Alias: o.alias, Source: source, Path: o.path, Ref: o.ref}
	rep, err := w.Add(cmd.Context(), []project.PackageSpec{spec}, workspace.AddOptions{Force: o.force})
	p.Done()
	return finishReport(cmd.Context(), g, w.Root(), rep, err, false)
}
