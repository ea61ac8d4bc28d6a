package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/internal/wording"
	"github.com/ctx-dev/ctx/registry"
)

type registryCheckOptions struct {
	*globalOptions
	location string
	json     bool
}

func newRegistryCmd(g *globalOptions, runF func(context.Context, *registryCheckOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "registry",
		Short: "Check a registry of contexts (for a hub's maintainers)",
		Long: `Registry works on a registry file (ctx-registry.json): the list of
contexts 'ctx setup' and 'ctx refs' offer. A hub's maintainers run
'ctx registry check' in their own CI.

Exit status: each sub-command's; 2 for an unknown sub-command or bad flags.`,
		Example: `  ctx registry check ctx-registry.json`,
		Args:    noArgs,
	}
	opts := &registryCheckOptions{globalOptions: g}
	check := &cobra.Command{
		Use:   "check FILE|URL [--json]",
		Short: "Validate a registry and everything it imports",
		Long: `Check reads the registry at FILE|URL (a file, a folder holding
ctx-registry.json, an https URL, or a git repository as 'ctx setup
--registry' takes it) and every registry it imports, as ctx setup does,
but strictly: what setup skips with a warning is a problem here. It lists
each problem on stdout as FILE:LINE:COL: FIELD: MESSAGE: a file that is not
valid JSON or breaks the schema (a missing description, a bad path, a
context with no source), a name used by two contexts (in one file, or
across a registry and its imports), an import that cannot be read or is
not a valid registry, a cycle of imports, an import past the depth limit
(5). Fields ctx does not read are warnings on stderr (a typo?). A summary
goes to stderr. Nothing is installed or changed.

--json prints {registries, contexts, problems: [{file, line, col, field,
message}], warnings}.

Exit status: 0 when the registry has no problem; 1 when it has problems
(listed) or cannot be read at all; 2 for bad arguments.`,
		Example: `  ctx registry check ctx-registry.json
  ctx registry check https://github.com/acme/ctx-hub
  ctx registry check --json ./hub`,
		Args: exactArgs(1, "FILE|URL"),
		RunE: func(c *cobra.Command, args []string) error {
			opts.location = args[0]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runRegistryCheck(c.Context(), opts)
		},
	}
	check.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	cmd.AddCommand(check)
	return cmd
}

type registryProblemJSON struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

func runRegistryCheck(ctx context.Context, opts *registryCheckOptions) error {
	dir, err := opts.StartDir() // LOCATION is typed: from where the user stands
	if err != nil {
		return err
	}
	wo, err := workspaceOptions(opts.globalOptions, nil)
	if err != nil {
		return err
	}
	loader := &registry.Loader{Git: wo.Engine}
	rep, err := loader.Check(ctx, registry.ResolveLocal(opts.location, dir, opts.Env.userHome()))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("registry check: %w", err)
	}
	errOut := opts.IO.ErrOut
	for _, w := range rep.Warnings {
		fmt.Fprintf(errOut, "warning: %s\n", opts.deepText(w))
	}
	if opts.json {
		out := struct {
			Registries []string              `json:"registries"`
			Contexts   int                   `json:"contexts"`
			Problems   []registryProblemJSON `json:"problems"`
			Warnings   []string              `json:"warnings"`
		}{Registries: []string{}, Contexts: rep.Contexts, Problems: []registryProblemJSON{}, Warnings: rep.Warnings}
		if out.Warnings == nil {
			out.Warnings = []string{}
		}
		for _, l := range rep.Loaded {
			out.Registries = append(out.Registries, l.String())
		}
		for _, p := range rep.Problems {
			out.Problems = append(out.Problems, registryProblemJSON{File: p.File, Line: p.Line, Col: p.Col, Field: p.Field, Message: p.Msg})
		}
		if err := writeJSON(opts.IO.Out, out); err != nil {
			return err
		}
	} else {
		for _, p := range rep.Problems {
			fmt.Fprintln(opts.IO.Out, opts.deepText(p.Error()))
		}
	}
	fmt.Fprintf(errOut, "registry check: %d %s, %d %s, %d %s\n",
		len(rep.Loaded), wording.Plural(len(rep.Loaded), "registry", "registries"),
		rep.Contexts, wording.Plural(rep.Contexts, "context", "contexts"),
		len(rep.Problems), wording.Plural(len(rep.Problems), "problem", "problems"))
	if len(rep.Problems) > 0 {
		return &exitError{code: ExitError}
	}
	return nil
}
