package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ctx-dev/ctx/demo"
	ctxproject "github.com/ctx-dev/ctx/project"
	"github.com/spf13/cobra"
)

type demoOptions struct {
	*globalOptions
	dir string
}

func newDemoCmd(g *globalOptions, runF func(context.Context, *demoOptions) error) *cobra.Command {
	opts := &demoOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use: "demo [--dir DIR]",
		Example: `  ctx demo
  ctx demo --dir /tmp/ctx-demo`,
		Short: "Run the whole flow on a built-in demo hub (no network)",
		Long: `Demo shows ctx working end to end with no network and no configuration.

It writes a small hub built into ctx (a registry and three git repositories
of engineering docs) into DIR/hub, then runs what a user runs: 'ctx setup
--all' into DIR/project (install, lock, INDEX.md, search index), a search,
and prints how to point an agent at the result over MCP. DIR defaults to a
new temporary folder; it is printed, and left for you to explore.

The demo needs no git binary: the repositories are created with go-git.

Exit status: 0 when the demo ran; 2 for bad arguments or a --dir that is
not empty; 1 for other errors.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runDemo(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.dir, "dir", "", "write the hub and the project into `DIR` (default: a new temporary folder)")
	return cmd
}

func runDemo(ctx context.Context, opts *demoOptions) error {
	start := time.Now()
	out := opts.IO.Out
	dir := opts.dir
	if dir == "" {
		d, err := os.MkdirTemp(opts.Env.tempDir(), "ctx-demo-")
		if err != nil {
			return fmt.Errorf("demo: %w (pass --dir DIR)", err)
		}
		dir = d
	} else {
		if !filepath.IsAbs(dir) && opts.Dir != "" {
			dir = filepath.Join(opts.Dir, dir)
		}
		abs, err := opts.abs(dir)
		if err != nil {
			return err
		}
		dir = abs
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	dir, err := opts.abs(dir)
	if err != nil {
		return err
	}
	project := filepath.Join(dir, "project")
	if _, err := os.Lstat(project); err == nil {
		return usageErrorf("demo: %s already exists: pass an empty --dir", project)
	}

	fmt.Fprintf(out, "ctx demo in %s\n\n", dir)
	fmt.Fprintln(out, "1. A hub: a registry and three git repositories of Acme's engineering docs")
	hub, err := demo.Write(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "   registry  %s\n", hub.Registry)
	for _, name := range slices.Sorted(maps.Keys(hub.Repos)) {
		fmt.Fprintf(out, "   repo      %s  (main %s)\n", hub.Repos[name], shortSHA(hub.Commits[name]))
	}
	if err := os.MkdirAll(project, 0o755); err != nil {
		return err
	}

	fmt.Fprintf(out, "\n2. ctx -C %s setup --registry %s --all\n", project, hub.Registry)
	// The demo's project is this folder, which setup makes: no walk up
	// (DESIGN.md, "Finding the project"), which would take a project
	// enclosing --dir, the user's own, for it.
	pg := &globalOptions{IO: opts.IO, Dir: project, start: project, root: project}
	noPrompt := false
	if err := runSetup(ctx, &setupOptions{globalOptions: pg, registry: hub.Registry, all: true, yes: true, interactive: &noPrompt}); err != nil {
		return fmt.Errorf("demo setup: %w", err)
	}

	fmt.Fprintf(out, "\n3. ctx -C %s search %q\n", project, demo.SearchQuery)
	if err := runSearch(ctx, &searchOptions{globalOptions: pg, query: demo.SearchQuery, limit: 3}); err != nil {
		return fmt.Errorf("demo search: %w", err)
	}

	layout, err := ctxproject.At(project)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\n4. Point an agent at it (MCP over stdio):\n")
	fmt.Fprintf(out, "   ctx -C %s mcp\n", project)
	fmt.Fprintf(out, "   ctx -C %s mcp config --client claude   # or cursor, codex, vscode\n", project)
	fmt.Fprintf(out, "\nWhere everything is:\n")
	fmt.Fprintf(out, "   hub        %s\n", hub.Dir)
	fmt.Fprintf(out, "   project    %s\n", project)
	fmt.Fprintf(out, "   manifest   %s\n", layout.Path(ctxproject.ManifestName))
	fmt.Fprintf(out, "   lock       %s\n", layout.Path(ctxproject.LockName))
	fmt.Fprintf(out, "   docs       %s\n", layout.Path(ctxproject.PackagesDir))
	fmt.Fprintf(out, "   overview   %s\n", layout.Path(ctxproject.IndexName))
	fmt.Fprintf(out, "\nDone in %.1fs. Next: ctx -C %s setup (at a terminal) to add or remove contexts.\n",
		time.Since(start).Seconds(), project)
	return nil
}
