package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/wording"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/registry"
	"github.com/ctx-dev/ctx/wizard"
	"github.com/ctx-dev/ctx/wizard/surveyprompt"
	"github.com/ctx-dev/ctx/workspace"
)

type setupOptions struct {
	*globalOptions
	registry string
	selects  []string
	tags     []string
	all      bool
	yes      bool
	list     bool
	json     bool // with list
	agentsMD bool
	// allowPrivate lets https contexts be on loopback, private and
	// link-local addresses (checked and saved in their specs).
	allowPrivate bool
	// interactive forces the prompter on or off; nil = when stdin is a terminal.
	interactive *bool
	// prompter, when set, is used instead of the terminal's (tests).
	prompter wizard.Prompter
}

func newSetupCmd(g *globalOptions, runF func(context.Context, *setupOptions) error) *cobra.Command {
	opts := &setupOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "setup [--registry LOCATION] [--select NAME,...] [--tags TAG,...] [--all] [--yes] [--agents-md] [--list [--json]]",
		Short: "Pick context packages from a registry",
		Long: fmt.Sprintf(`Setup reads a registry (the list of context packages your organisation
offers), lets you choose, and installs your choice into .context/ (created
when missing). The registry location is saved in the manifest, so running
'ctx setup' again offers additions and removals.

The registry is --registry, else the manifest's, else $CTX_REGISTRY, else
your default ('ctx config set registry LOCATION'): with a default set, a
fresh project runs 'ctx setup' with no flags.

At a terminal (stdin, and stderr or stdout; not TERM=dumb), setup checks
which repositories you can read, shows a list (installed packages
pre-checked; unreadable ones listed but not offered), asks for confirmation
(no by default when it removes, also with --yes), installs, and summarises.
Ctrl-C, Ctrl-D or Esc (the last two: not on Windows) at a prompt changes nothing;
Ctrl-C while installing keeps (and reports) what was installed. An https
context on a private or loopback address is refused (an unreadable one)
unless --allow-private-network.
Without a terminal, the choice comes from --select, --tags or --all, and
setup only adds.

%s

LOCATION is one of (a relative path you type is taken from where you stand,
the working directory or -C DIR; the manifest's, from the project's root):
  ./ctx-registry.json, /abs/reg.json   a local file
  ./hub                                a local folder (its git repository, or its ctx-registry.json)
  https://host/ctx-registry.json       the file over http(s)
  https://github.com/org/hub           a GitHub repository's ctx-registry.json
  https://github.com/org/hub/blob/main/path/reg.json   a pasted GitHub page
  REPO#path/to/file.json@REF           a file in any git repository (both parts optional)
  REPO@REF                             the repository's ctx-registry.json at REF
  git+URL                              URL is a git repository
REPO is any git URL (https://…/x.git, ssh://…, git@host:org/x.git) or a
local repository path. A relative "repo" inside a registry is resolved
against the registry's location.
Registries may import others; each is read once, to a depth of %d.

--list prints the registry's contexts, one a line, and changes nothing;
with --json, an object {name, description, registries, contexts, warnings}:
registries are every registry read, in order; each context is {name,
description, kind, source, path, ref, ttl, tags, from}, from being the
registry that listed it first.

Exit status: 0 done; 3 some contexts could not be read or installed (the
others were); 2 bad flags; 130 cancelled; 1 other errors.`, agentsMDHelp, registry.DefaultMaxDepth),
		Example: `  ctx setup --registry https://github.com/acme/ctx-hub
  ctx setup --registry ./hub/ctx-registry.json --all
  ctx setup --select platform,api --yes
  ctx setup --registry git@github.com:acme/hub.git#registries/web.json --list
  ctx setup --list --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSetup(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.registry, "registry", "", "where the registry is (`LOCATION`: file, https URL or git repository; default: the manifest's, else CTX_REGISTRY, else 'ctx config get registry')")
	f.StringSliceVar(&opts.selects, "select", nil, "install the contexts named `NAME` (comma-separated or repeated)")
	f.StringSliceVar(&opts.tags, "tags", nil, "install every context tagged `TAG` (comma-separated or repeated)")
	f.BoolVar(&opts.all, "all", false, "install every context of the registry")
	f.BoolVar(&opts.yes, "yes", false, "do not ask before installing (a removal, chosen in the list at a terminal, still asks)")
	f.BoolVar(&opts.list, "list", false, "print the registry's contexts and change nothing")
	f.BoolVar(&opts.json, "json", false, "with --list: print JSON")
	quietFlag(cmd, g)
	f.BoolVar(&opts.agentsMD, "agents-md", false, agentsMDFlagUsage)
	f.BoolVar(&opts.allowPrivate, "allow-private-network", false, "let https contexts be on loopback, private or link-local addresses (an intranet wiki); saved in their specs")
	return cmd
}

// registryLocation is the registry setup reads: --registry (flag), else
// the manifest's, else the user's default (CTX_REGISTRY, else ctx config's
// registry), whose origin is from ("" for the first two).
func registryLocation(env environment, flag, manifest string) (location, from string, err error) {
	if flag != "" {
		return flag, "", nil
	}
	if manifest != "" {
		return manifest, "", nil
	}
	return env.defaultRegistry()
}

// confineRegistry makes l read a registry the committed manifest names
// (the user did not name it: no --registry) under the manifest's own rule
// (netguard18): on this machine only inside the project at root, and off
// the private network (registry.Loader.Confine; eng guarded, returned).
func confineRegistry(l *registry.Loader, eng *gitengine.Engine, root string) *gitengine.Engine {
	g := eng.Guarded(gitengine.Guard{Hint: "the committed manifest names this registry, not you, and a clone may not make ctx reach your private network; if you trust it, name it yourself: ctx setup --registry LOCATION"})
	l.Confine, l.Git = root, g
	return g
}

func runSetup(ctx context.Context, opts *setupOptions) error {
	g, o := opts.globalOptions, opts
	if o.json && !o.list {
		return usageErrorf("setup: --json goes with --list (see 'ctx setup --help')")
	}
	dir, err := g.ProjectDir()
	if err != nil {
		return err
	}
	if o.registry, err = g.typedPath(o.registry); err != nil { // from where the user stands
		return err
	}
	errOut := g.IO.ErrOut
	p := newProgress(g)
	defer p.Done()
	wsOpts, err := workspaceOptions(g, p)
	if err != nil {
		return err
	}
	// One Engine for the registry, the access checks and the installs, so
	// that each repository is asked for its refs once and progress shows.
	engine := wsOpts.Engine

	// The project, if there is one (its manifest names the registry).
	var ws *workspace.Workspace
	if !o.list || o.registry == "" {
		ws, err = workspace.Open(dir, wsOpts)
		if err != nil && !errors.Is(err, project.ErrNoProject) {
			return err
		}
	}
	lazy := &lazyWorkspace{dir: dir, opts: wsOpts, ws: ws}
	defer lazy.Close()

	var manifestRegistry string
	if ws != nil {
		manifestRegistry = ws.Manifest().Registry
	}
	location, from, err := registryLocation(g.Env, o.registry, manifestRegistry)
	if err != nil {
		return err
	}
	if location != "" && from != "" {
		fmt.Fprintf(wsOpts.Log, "using the default registry %s (from %s)\n", safetext.Text(location), from)
	}
	if location == "" {
		return usageErrorf("setup: no registry: pass --registry LOCATION (a file, an https URL or a git repository; see 'ctx setup --help'), or set a default with 'ctx config set registry LOCATION' or CTX_REGISTRY")
	}
	loader := &registry.Loader{
		Git:  engine,
		Warn: func(m string) { fmt.Fprintf(wsOpts.Log, "warning: %s\n", g.deepText(m)) },
		Note: func(m string) { fmt.Fprintf(wsOpts.Log, "%s\n", g.deepText(m)) },
	}
	fromManifest := false // the committed manifest's registry, not one the user named
	if o.registry == "" && manifestRegistry != "" {
		man := ws.Manifest() // ws is open: it named the registry
		fromManifest = !man.UsersRegistry()
	}
	if fromManifest {
		confineRegistry(loader, engine, dir)
	}
	// A relative local registry path left here is the manifest's, taken
	// from the project directory (a typed --registry was made absolute from
	// where the user stands: typedPath), and saved as given.
	// A registry's imports are read one after the other, each maybe a
	// clone: at a terminal a spinner says what ctx is waiting for.
	stopSpin := p.Spin("Reading the registry " + safetext.Clip(location, 0))
	reg, err := loader.Load(ctx, registry.ResolveLocal(location, dir, g.Env.userHome()))
	stopSpin(true, "")
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var pe *registry.ParseError
		if errors.As(err, &pe) {
			return fmt.Errorf("invalid registry (fix it, or ask its owner to):\n%w", err)
		}
		return err
	}
	if o.list {
		p.Done()
		if o.json {
			return writeJSON(g.IO.Out, registryJSON(reg))
		}
		printRegistry(g.IO.Out, reg)
		return nil
	}

	wo := wizard.Options{
		Registry:         reg,
		RegistryLocation: location,
		FromManifest:     fromManifest,
		Select:           o.selects,
		Tags:             o.tags,
		All:              o.all,
		Yes:              o.yes,
		AllowPrivate:     o.allowPrivate,
		Out:              g.IO.Out,
		Log:              wsOpts.Log,
		Symbols:          g.symbols(),
	}
	if o.prompter != nil {
		wo.Prompter = o.prompter
	} else if tp := terminalPrompter(g, o.interactive); tp != nil {
		wo.Prompter = spinThrough{tp, p}
	}
	var access wizard.AccessChecker = engine
	if wo.FromManifest {
		// Not the user's registry: its repositories are checked off the
		// private network, as they will be fetched (netguard18).
		access = engine.Guarded(ws.ManifestRegistryGuard())
	}
	sum, err := wizard.Run(ctx, lazy, access, wo)
	p.Done()
	var ue *wizard.UsageError
	switch {
	case errors.Is(err, wizard.ErrInterrupted):
		return &exitError{code: ExitInterrupted, err: err}
	case errors.As(err, &ue):
		return usageErrorf("setup: %s", ue.Msg)
	}
	if sum == nil {
		return err
	}
	// One report for removals and additions, in ctx's usual format.
	rep := &workspace.Report{Index: sum.Index}
	for _, r := range []*workspace.Report{sum.RemoveReport, sum.AddReport} {
		if r != nil {
			rep.Packages = append(rep.Packages, r.Packages...)
		}
	}
	// setup has no --force: a package it would remove is forced by remove.
	rerr := finishReport(ctx, g, dir, rep, err, reportOptions{forceVia: "ctx remove %s --force"})
	for _, u := range sum.Unavailable {
		fmt.Fprintf(errOut, "%s: skipped: cannot read %s: %s\n", safetext.Escape(u.Name), safetext.Escape(u.Repo), g.deepText(u.Reason))
	}
	if rerr != nil {
		return rerr
	}
	if lazy.ws != nil {
		if err := agentsStep(g, lazy.ws.Root(), o.agentsMD, wo.Prompter, "", "the packages stay installed"); err != nil {
			return err
		}
	}
	if len(sum.Unavailable) > 0 {
		fmt.Fprintf(errOut, "ctx: %d %s not installed: %s cannot be read (why is above): check %s source in the registry, and your git credentials (or CTX_GIT_TOKEN with CTX_GIT_TOKEN_HOSTS) for a private repository, then run ctx setup again\n",
			len(sum.Unavailable), wording.Plural(len(sum.Unavailable), "context", "contexts"), wording.Plural(len(sum.Unavailable), "it", "they"), wording.Plural(len(sum.Unavailable), "its", "each one's"))
		return partial()
	}
	return nil
}

// terminalPrompter is the terminal's Prompter when ctx may ask: stdin is
// a terminal (the answers) and so is stderr, where the prompts draw, or
// else stdout (`ctx setup 2>log` at a terminal still asks, drawing on
// stdout, as gh and npm's prompts do); or force says so. The terminal
// must move the cursor (termenv.Env.Dumb: survey's lists move it and colour;
// a dumb terminal, an Emacs shell, showed escapes: it is told once, and
// the command goes on as without a terminal). Else nil.
func terminalPrompter(g *globalOptions, force *bool) wizard.Prompter {
	interactive := g.IO.InTTY && (g.IO.ErrTTY || g.IO.OutTTY)
	if force != nil {
		interactive = *force
	}
	if !interactive {
		return nil
	}
	if g.terminal().Dumb() {
		fmt.Fprintf(g.IO.ErrOut, "note: %s: no prompts (they need a terminal that moves the cursor); the command goes on as without a terminal\n", g.terminal().Why())
		return nil
	}
	draw := g.IO.ErrOut
	if !g.IO.ErrTTY && g.IO.OutTTY {
		draw = g.IO.Out
	}
	in, okIn := g.IO.In.(*os.File)
	term, okTerm := draw.(*os.File)
	if !okIn || !okTerm {
		return nil
	}
	return surveyprompt.New(in, term, term, surveyprompt.Options{UTF8: g.terminal().UTF8()})
}

// spinThrough is a Prompter whose spinner (setup's access checks) is the
// command's progress's when that draws on stderr, so that it stops while
// git asks at the terminal for credentials (progress.Pause).
type spinThrough struct {
	wizard.Prompter
	p *progress
}

func (s spinThrough) Spinner(message string) func(ok bool, final string) {
	if !s.p.tty {
		return s.Prompter.Spinner(message)
	}
	return s.p.Spin(message)
}

// printRegistry writes one line per context: name, source, tags,
// description, each escaped (a registry is someone else's text).
func printRegistry(w io.Writer, reg *registry.Result) {
	e := safetext.Escape
	fmt.Fprintf(w, "# %s", e(reg.Name))
	if reg.Description != "" {
		fmt.Fprintf(w, ": %s", e(reg.Description))
	}
	fmt.Fprintf(w, " (%s from %s)\n", wording.Count(len(reg.Contexts), "context", "contexts"), wording.Count(len(reg.Loaded), "registry", "registries"))
	// A table as list and outdated print (cli18 finding 19): the columns
	// of list that a registry entry has, then its tags and description.
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tSOURCE\tPATH\tREF\tTAGS\tDESCRIPTION")
	for _, c := range reg.Contexts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e(c.Name), e(c.KindOf()), e(c.Source()),
			e(orDash(c.Path)), e(refCell(c.KindOf(), c.Ref)), e(orDash(strings.Join(c.Tags, ","))), e(c.Description))
	}
	tw.Flush()
}

// registryListJSON is setup --list --json: the merged registry, every
// field as the registry wrote it (exact: JSON escapes what it must).
type registryListJSON struct {
	Name        string                `json:"name"`
	Description string                `json:"description"`
	Registries  []string              `json:"registries"` // every registry read, in order (as registry check --json)
	Contexts    []registryContextJSON `json:"contexts"`
	Warnings    []string              `json:"warnings"`
}

// registryContextJSON is one context of setup --list --json: kind and
// source as the table shows them (KindOf, Source), the rest as written.
type registryContextJSON struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Kind        string   `json:"kind"`
	Source      string   `json:"source"`
	Path        string   `json:"path"`
	Ref         string   `json:"ref"`
	TTL         string   `json:"ttl"`
	Tags        []string `json:"tags"`
	From        string   `json:"from"` // the registry that listed it first
}

func registryJSON(reg *registry.Result) registryListJSON {
	out := registryListJSON{Name: reg.Name, Description: reg.Description, Registries: []string{},
		Contexts: []registryContextJSON{}, Warnings: []string{}}
	for _, l := range reg.Loaded {
		out.Registries = append(out.Registries, l.String())
	}
	for _, c := range reg.Contexts {
		tags := c.Tags
		if tags == nil {
			tags = []string{}
		}
		out.Contexts = append(out.Contexts, registryContextJSON{Name: c.Name, Description: c.Description,
			Kind: c.KindOf(), Source: c.Source(), Path: c.Path, Ref: c.Ref, TTL: c.TTL, Tags: tags, From: c.From})
	}
	out.Warnings = append(out.Warnings, reg.Warnings...)
	return out
}

// lazyWorkspace is the project as the wizard sees it: when there is no
// .context/ yet, it is created only when the first change is made, so that a
// cancelled setup leaves nothing behind.
type lazyWorkspace struct {
	dir  string
	opts workspace.Options
	ws   *workspace.Workspace
}

func (l *lazyWorkspace) open() (*workspace.Workspace, error) {
	if l.ws != nil {
		return l.ws, nil
	}
	ws, err := workspace.Init(l.dir, workspace.InitOptions{}, l.opts)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", project.DirName, err)
	}
	fmt.Fprintf(l.opts.Log, "created %s\n", project.DirName)
	l.ws = ws
	return ws, nil
}

func (l *lazyWorkspace) Close() {
	if l.ws != nil {
		l.ws.Close()
	}
}

func (l *lazyWorkspace) Manifest() project.Manifest {
	if l.ws == nil {
		return project.Manifest{}
	}
	return l.ws.Manifest()
}

func (l *lazyWorkspace) SetRegistry(url string) error {
	ws, err := l.open()
	if err != nil {
		return err
	}
	return ws.SetRegistry(url)
}

func (l *lazyWorkspace) Add(ctx context.Context, specs []project.PackageSpec, o workspace.AddOptions) (*workspace.Report, error) {
	ws, err := l.open()
	if err != nil {
		return nil, err
	}
	return ws.Add(ctx, specs, o)
}

func (l *lazyWorkspace) Remove(ctx context.Context, aliases []string, o workspace.RemoveOptions) (*workspace.Report, error) {
	ws, err := l.open()
	if err != nil {
		return nil, err
	}
	return ws.Remove(ctx, aliases, o)
}

func (l *lazyWorkspace) Reindex(ctx context.Context, o indexer.Options) (*indexer.SyncReport, error) {
	ws, err := l.open()
	if err != nil {
		return nil, err
	}
	return ws.Reindex(ctx, o)
}

func (l *lazyWorkspace) IndexStale() bool {
	ws, err := l.open()
	if err != nil {
		return true // Reindex then says why
	}
	return ws.IndexStale()
}

func (l *lazyWorkspace) PrivateNotAllowed(ctx context.Context, aliases []string) []string {
	if l.ws == nil {
		return nil // no project yet: the manifest names nothing
	}
	return l.ws.PrivateNotAllowed(ctx, aliases)
}
