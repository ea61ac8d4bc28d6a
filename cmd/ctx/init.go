package main

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/wizard"
	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
)

type initOptions struct {
	*globalOptions
	registry    string
	project     string
	projectDocs bool
	agentsMD    bool
	gitHooks    bool
	// interactive forces the prompter on or off; nil = when stdin and
	// stderr are a terminal.
	interactive *bool
	// prompter, when set, is used instead of the terminal's (tests).
	prompter wizard.Prompter
}

func newInitCmd(g *globalOptions, runF func(context.Context, *initOptions) error) *cobra.Command {
	opts := &initOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use: "init [--registry URL] [--project NAME] [--project-docs] [--agents-md] [--git-hooks]",
		Example: `  ctx init
  ctx init --project-docs --agents-md --git-hooks
  ctx init --registry https://github.com/acme/ctx-hub --project payments`,
		Short: "Create .context/ in this project",
		Long: `Init creates .context/ in the project directory (the working directory,
or the one given with -C): the manifest context.config.json and a .gitignore
that keeps everything ctx generates out of git. Commit the manifest and,
once you add packages, context.lock.

Init also looks for the project's own docs: docs/, AGENTS.md, CLAUDE.md,
README.md, adr/ and docs/adr/. At a terminal it offers the ones it finds;
otherwise it lists them. --project-docs adds each one found as a dir source
(indexed and served in place, never copied or locked; alias "docs",
"agents", "claude", "readme", "adr" or "docs-adr"), also in a project that
already has a .context/.

` + agentsMDHelp + `

--git-hooks (and, at a terminal, a question) adds to the repository's
post-merge and post-checkout hooks (where git runs them: core.hooksPath
honoured) a block that runs 'ctx install' when a pull or checkout changed
.context/context.lock and prints what changed; it goes right after the
shebang of a hook that exists, whose own lines still run, and a failing
install never fails the git command.

Without --project-docs, --agents-md or --git-hooks, it fails if the project
already has a .context/.

-q leaves stderr to warnings, errors and the questions asked at a
terminal: no "created", no list of docs found, no next step. It keeps the
note that the new project is inside another one (ctx in its folders now
works on the new one), as -q on add keeps what ctx now trusts.

Exit status: 0 when done; 1 when .context/ exists already (without
--project-docs, --agents-md or --git-hooks) or cannot be written, or a git
hook cannot be added; 2 for bad arguments; 130 when interrupted at a prompt
(nothing changed).`,
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
	cmd.Flags().BoolVar(&opts.projectDocs, "project-docs", false, "add the project's own docs found (docs/, AGENTS.md, ...) as dir sources")
	cmd.Flags().BoolVar(&opts.agentsMD, "agents-md", false, agentsMDFlagUsage)
	cmd.Flags().BoolVar(&opts.gitHooks, "git-hooks", false, "install git hooks that run ctx install when a pull or checkout brings a new lock")
	quietFlag(cmd, g)
	return cmd
}

func runInit(ctx context.Context, opts *initOptions) error {
	// ctx init does not walk up: the project is made in the start folder,
	// nested in an enclosing one if there is one (as git init and npm init
	// do), which is then named (DESIGN.md, "Finding the project").
	dir, err := opts.StartDir()
	if err != nil {
		return err
	}
	enclosing, _ := opts.ProjectDir() // a refused one is not named
	wo, err := workspaceOptions(opts.globalOptions, nil)
	if err != nil {
		return err
	}
	proj, err := project.At(dir)
	if err != nil {
		return err
	}
	var w *workspace.Workspace
	created := false
	if (opts.projectDocs || opts.agentsMD || opts.gitHooks) && proj.Check() == nil {
		w, err = workspace.Open(dir, wo) // only add the docs, or the agent file's block
	} else {
		w, err = workspace.Init(dir, workspace.InitOptions{Registry: opts.registry, Project: opts.project}, wo)
		if err == nil {
			created = true
			opts.root = dir // from here on, this command's project
			fmt.Fprintf(opts.notes(), "created %s\n", opts.displayPath(dir, w.Dir()))
			if enclosing != "" && enclosing != dir {
				fmt.Fprintf(opts.IO.ErrOut, "note: %s is inside the project at %s: ctx here and in the folders below now works on this new project (the inner one wins)\n", dir, enclosing)
			}
		}
	}
	if err != nil {
		return err
	}
	defer w.Close()
	prompter := initPrompter(opts)
	docs, found := newProjectDocs(w)
	if len(docs) > 0 && !opts.projectDocs {
		if docs, err = offerProjectDocs(opts, prompter, docs); err != nil {
			return err
		}
	}
	// The agent file's block is written before the docs are added, so that
	// the index the add builds has AGENTS.md as it stays (walk22: it was
	// stale at once, and the next command re-indexed it).
	if err := agentsStep(opts.globalOptions, w.Root(), opts.agentsMD, prompter, "`ctx init --agents-md`", "the project stays"); err != nil {
		return err
	}
	if len(docs) > 0 {
		rep, err := w.Add(ctx, docs, workspace.AddOptions{})
		if err := finishReport(ctx, opts.globalOptions, w.Root(), rep, err, reportOptions{}); err != nil {
			return err
		}
	} else if opts.projectDocs && found > 0 {
		fmt.Fprintln(opts.notes(), "the project docs found are in the manifest already")
	} else if opts.projectDocs {
		fmt.Fprintln(opts.notes(), "no project docs found (looked for docs/, AGENTS.md, CLAUDE.md, README.md, adr/, docs/adr/)")
	}
	if err := gitHooksStep(ctx, opts.globalOptions, w.Root(), opts.gitHooks, prompter); err != nil {
		return err
	}
	// The whole folder: its .gitignore (which ctx wrote) keeps out what is
	// generated and context.local.json, and is committed with the manifest
	// and the lock, so that a clone's git status stays clean. Adding a
	// source is the advice for a project with none; a new one whose docs
	// were just added is told to commit; an existing one with packages
	// (init --git-hooks, say) needs no advice (walk22).
	switch {
	case len(w.Manifest().Packages) == 0:
		fmt.Fprintf(opts.notes(), "next: ctx add SOURCE (a git URL, a local file or folder, or an https URL), then `git add %s` and commit (its .gitignore keeps out what ctx generates)\n",
			project.DirName)
	case created:
		fmt.Fprintf(opts.notes(), "next: `git add %s` and commit (its .gitignore keeps out what ctx generates)\n", project.DirName)
	}
	return nil
}

// newProjectDocs is workspace.ProjectDocs of w's project, without the
// ones its manifest has already (by source), and how many it found. A doc
// whose alias another package took (a git package added with --path docs)
// gets the next free one (naming.UniqueAlias, as setup's contexts do):
// the alias alone does not make it in the manifest.
func newProjectDocs(w *workspace.Workspace) ([]project.PackageSpec, int) {
	m := w.Manifest()
	taken := map[string]bool{}
	sources := map[string]bool{}
	for _, p := range m.Packages {
		taken[naming.AliasKey(p.Alias)] = true
		sources[path.Clean(filepath.ToSlash(p.Source))] = true
	}
	var out []project.PackageSpec
	all := workspace.ProjectDocs(w.Root())
	for _, s := range all {
		if sources[path.Clean(filepath.ToSlash(s.Source))] {
			continue
		}
		s.Alias = naming.UniqueAlias(s.Alias, taken)
		out = append(out, s)
	}
	return out, len(all)
}

// initPrompter is the prompter of init's questions: opts.prompter, else
// the terminal's when ctx may ask there (terminalPrompter; or opts.interactive says
// so), else nil: no questions.
func initPrompter(opts *initOptions) wizard.Prompter {
	if opts.prompter != nil {
		return opts.prompter
	}
	return terminalPrompter(opts.globalOptions, opts.interactive)
}

// offerProjectDocs asks through p which of docs to add (all pre-checked);
// without a prompter, it lists them and says how to add them, and returns
// none.
func offerProjectDocs(opts *initOptions, p wizard.Prompter, docs []project.PackageSpec) ([]project.PackageSpec, error) {
	if p == nil {
		names := make([]string, len(docs))
		for i, d := range docs {
			names[i] = safetext.Escape(d.Source)
		}
		fmt.Fprintf(opts.notes(), "found project docs: %s; `ctx init --project-docs` adds them as dir sources (indexed in place)\n", strings.Join(names, ", "))
		return nil, nil
	}
	choices := make([]wizard.Choice, len(docs))
	pre := make([]int, len(docs))
	for i, d := range docs {
		choices[i] = wizard.Choice{Name: d.Alias, Description: d.Source}
		pre[i] = i
	}
	picked, err := p.MultiSelect("Add these project docs? (indexed and served in place)", choices, pre)
	if errors.Is(err, wizard.ErrInterrupted) {
		fmt.Fprintln(opts.notes(), "no project docs added")
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []project.PackageSpec
	for _, i := range picked {
		out = append(out, docs[i])
	}
	return out, nil
}
