package main

import (
	"context"

	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
)

type addOptions struct {
	*globalOptions
	source string
	path   string
	alias  string
	ref    string
	force  bool
	// https sources
	allowPrivate bool
	ttl          string
	tokenEnv     string
}

func newAddCmd(g *globalOptions, runF func(context.Context, *addOptions) error) *cobra.Command {
	opts := &addOptions{globalOptions: g}
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
			opts.source = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runAdd(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.path, "path", "", "the folder `P` inside the repository (default: all of it)")
	cmd.Flags().StringVar(&opts.alias, "alias", "", "the package's name `A` in this project (default: from the path or repository)")
	cmd.Flags().StringVar(&opts.ref, "ref", "", "branch, tag or commit `R` (default: the remote's default branch)")
	cmd.Flags().BoolVar(&opts.force, "force", false, "replace an existing packages/ALIAS folder, backing up its files first")
	cmd.Flags().BoolVar(&opts.allowPrivate, "allow-private-network", false, "https: allow loopback, private and link-local addresses (saved as allowPrivateNetwork)")
	cmd.Flags().StringVar(&opts.ttl, "ttl", "", "https: how long fetched content is trusted before update re-checks it, `D` such as 12h or 7d (default 7d)")
	cmd.Flags().StringVar(&opts.tokenEnv, "token-env", "", "https: send the environment variable `NAME`'s value as a bearer token (the name is saved, never the token)")
	return cmd
}

func runAdd(ctx context.Context, opts *addOptions) error {
	if opts.source == "" {
		return usageErrorf("add: SOURCE is empty (see 'ctx add --help')")
	}
	p := newProgress(opts.globalOptions)
	w, err := openWorkspace(opts.globalOptions, p)
	if err != nil {
		return err
	}
	defer w.Close()
	spec := project.PackageSpec{Alias: opts.alias, Source: opts.source, Path: opts.path, Ref: opts.ref,
		AllowPrivateNetwork: opts.allowPrivate, TTL: opts.ttl, TokenEnv: opts.tokenEnv}
	rep, err := w.Add(ctx, []project.PackageSpec{spec}, workspace.AddOptions{Force: opts.force})
	p.Done()
	return finishReport(ctx, opts.globalOptions, w.Root(), rep, err, false)
}
