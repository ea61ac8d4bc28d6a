package main

import (
	"context"
	"fmt"

	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
)

type initOptions struct {
	*globalOptions
	registry string
	project  string
}

func newInitCmd(g *globalOptions, runF func(context.Context, *initOptions) error) *cobra.Command {
	opts := &initOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "init [--registry URL] [--project NAME]",
		Short: "Create .context/ in this project",
		Long: `Init creates .context/ in the project directory (the working directory,
or the one given with -C): the manifest context.config.json and a .gitignore
that keeps everything ctx generates out of git. Commit the manifest and,
once you add packages, context.lock.

It fails if the project already has a .context/.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runInit(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.registry, "registry", "", "the registry `URL` that lists your team's packages")
	cmd.Flags().StringVar(&opts.project, "project", "", "the project's `NAME` (default: the directory's name)")
	return cmd
}

func runInit(_ context.Context, opts *initOptions) error {
	dir, err := opts.ProjectDir()
	if err != nil {
		return err
	}
	wo, err := workspaceOptions(opts.globalOptions, nil)
	if err != nil {
		return err
	}
	w, err := workspace.Init(dir, workspace.InitOptions{Registry: opts.registry, Project: opts.project}, wo)
	if err != nil {
		return err
	}
	defer w.Close()
	fmt.Fprintf(opts.IO.ErrOut, "created %s\n", displayPath(dir, w.Dir()))
	fmt.Fprintf(opts.IO.ErrOut, "next: ctx add SOURCE --path DIR, then commit %s/%s and %s/%s\n",
		project.DirName, project.ManifestName, project.DirName, project.LockName)
	return nil
}
