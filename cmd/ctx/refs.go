package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/ctxref"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/wording"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/registry"
	"github.com/ctx-dev/ctx/wizard"
	"github.com/ctx-dev/ctx/workspace"
)

type refsOptions struct {
	*globalOptions
	paths    []string
	fetch    bool
	check    bool
	dryRun   bool
	json     bool
	yes      bool
	registry string
	// prompter, when set, is used instead of the terminal's (tests).
	prompter wizard.Prompter
}

func newRefsCmd(g *globalOptions, runF func(context.Context, *refsOptions) error) *cobra.Command {
	opts := &refsOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "refs [PATH...] [--fetch] [--check] [--dry-run] [--json] [--yes]",
		Short: "Find the references the project's docs make to context documents",
		Long: `Refs finds the references the project's own docs make to context
documents, and says what each one points at:

  @ctx/NAME/PATH                 NAME: an installed alias or a registry context's name
  ctx://packages/ALIAS/PATH      the MCP server's document URI

It reads docs/, specs/, README.md, CLAUDE.md and AGENTS.md (those that
exist) at the project's root, the folder you stand in when it is below the
root (as git grep does; not with --check, which checks the root's set
wherever you stand), or the PATHs given (relative to where you stand; a folder is
walked for documents: markdown, text, rst, AsciiDoc, YAML, JSON and TOML
files; a file is read whatever its name). Files that
.gitignore ignores, hidden folders, .git, node_modules and .context are not
read; files over 16 MiB are skipped with a warning.

Each reference is printed as FILE:LINE:COL CLASS REFERENCE, CLASS one of
  resolved      an installed package has the document
  installable   the registry offers the context and it can be read; it is not installed
  missing       the package is known, the document is not there (or the
                registry's context cannot be read: why is shown)
  unknown       neither an installed package nor a registry context
  withheld      the package has the document, but audience rules kept it
                out of this project's install (not missing: --check passes)
The registry is --registry, else the manifest's, else $CTX_REGISTRY, else
your default ('ctx config get registry'); it is read only when a name is
not installed.

--fetch installs the installable contexts, up to 16 at once, as 'ctx setup'
would (alias from the context's name), after one confirmation at a
terminal; --yes skips it, and is required without a terminal. --dry-run
says what --fetch would install and changes nothing. --check is for CI: it
lists the missing and unknown references and fails when there are any;
with no PATH it reads the root's set from any folder of the project.
--json prints {references: [{file, line, col, text, name, path, class,
package, context, reason}], summary: {found, files, resolved, installable,
missing, unknown, withheld, installed, failed}}.

Exit status: 0 done; 1 with --check when a reference is missing or
unknown, and for other errors; 3 when --fetch installed some contexts
but not all; 2 for bad flags (and --fetch without a terminal or --yes) or a PATH that
is not there or is outside the project.`,
		Example: `  ctx refs
  ctx refs docs/ ARCHITECTURE.md --check
  ctx refs --fetch --yes`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.paths = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRefs(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.fetch, "fetch", false, "install the installable contexts (up to 16 at once)")
	f.BoolVar(&opts.check, "check", false, "exit 1 when any reference is missing or unknown (for CI)")
	f.BoolVar(&opts.dryRun, "dry-run", false, "with --fetch: say what would be installed, change nothing")
	f.BoolVar(&opts.json, "json", false, "print JSON")
	f.BoolVar(&opts.yes, "yes", false, "with --fetch: do not ask for confirmation")
	f.StringVar(&opts.registry, "registry", "", "the registry `LOCATION` (default: the manifest's, else CTX_REGISTRY, else 'ctx config get registry')")
	return cmd
}

// refsSummary counts references by class, and what --fetch did.
type refsSummary struct {
	Found       int                `json:"found"`
	Files       int                `json:"files"`
	Resolved    int                `json:"resolved"`
	Installable int                `json:"installable"`
	Missing     int                `json:"missing"`
	Unknown     int                `json:"unknown"`
	Withheld    int                `json:"withheld"`            // audience rules kept the document out of this project: not missing
	Installed   []string           `json:"installed,omitempty"` // contexts --fetch installed
	Failed      []refsFetchFailure `json:"failed,omitempty"`
}

type refsFetchFailure struct {
	Context string `json:"context"`
	Alias   string `json:"alias"`
	Reason  string `json:"reason"`
}

type refJSON struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Text    string `json:"text"`
	Name    string `json:"name"`
	Path    string `json:"path"`
	Class   string `json:"class"`
	Package string `json:"package,omitempty"`
	Context string `json:"context,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

func runRefs(ctx context.Context, opts *refsOptions) error {
	g := opts.globalOptions
	errOut := g.IO.ErrOut
	if opts.dryRun && !opts.fetch {
		return usageErrorf("refs: --dry-run goes with --fetch (see 'ctx refs --help')")
	}
	if opts.yes && !opts.fetch {
		return usageErrorf("refs: --yes goes with --fetch (see 'ctx refs --help')")
	}
	dir, err := g.ProjectDir()
	if err != nil {
		return err
	}
	proj, err := project.At(dir)
	if err != nil {
		return err
	}
	man, err := proj.ReadManifest()
	if err != nil {
		return err
	}
	paths, err := refsTypedPaths(opts)
	if err != nil {
		return err
	}
	scan, err := ctxref.Scan(dir, paths, ctxref.Limits{})
	var bad *ctxref.PathError
	if errors.As(err, &bad) {
		// As Scan read it: from the root, unless absolute (typedPath keeps
		// an absolute PATH as typed; joined to the root, /etc read "etc").
		p := filepath.FromSlash(bad.Path)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return usageErrorf("refs: %s: %s (see 'ctx refs --help')", safetext.Quote(opts.displayPath(dir, p)), bad.Why)
	}
	if err != nil {
		return fmt.Errorf("refs: %w", err)
	}
	for _, w := range scan.Warnings {
		fmt.Fprintf(errOut, "warning: %s\n", opts.deepText(w))
	}

	var unreadable map[string]string // offered contexts that cannot be read, by name
	classify := func(reg *registry.Result) ([]ctxref.Result, error) {
		l, err := proj.ReadLock()
		if errors.Is(err, fs.ErrNotExist) {
			l, err = &lockfile.Lock{Packages: map[string]lockfile.Entry{}}, nil
		}
		if err != nil {
			return nil, err
		}
		if m, err := proj.ReadManifest(); err == nil {
			man = m
		}
		pk := wizard.RefPackages(*man, proj.Installed(man, l), reg)
		pk.Unreadable = unreadable
		return ctxref.Classify(scan.Refs, pk), nil
	}
	res, err := classify(nil)
	if err != nil {
		return err
	}
	// The registry is read only when a name is not installed.
	var reg *registry.Result
	if countClass(res, ctxref.Unknown) > 0 {
		var access wizard.AccessChecker
		if reg, access, err = loadRefsRegistry(ctx, opts, man, dir); err != nil {
			return err
		}
		if reg != nil {
			if res, err = classify(reg); err != nil {
				return err
			}
		}
		// An offered context is installable only when it can be read, as
		// setup checks before it installs: one whose repository is gone is
		// missing, with why, and --check fails on it.
		if names := installableContexts(res); len(names) > 0 {
			fmt.Fprintf(errOut, "checking access to %d registry %s\n", len(names), wording.Plural(len(names), "context", "contexts"))
			var unchecked map[string]string
			if unreadable, unchecked = wizard.RefsUnreadable(ctx, access, reg, names); len(unreadable) > 0 {
				if res, err = classify(reg); err != nil {
					return err
				}
			}
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			// A check that could not be made (offline, a timeout) says
			// nothing about the context: it stays installable, once warned.
			if len(unchecked) > 0 {
				ns := slices.Sorted(maps.Keys(unchecked))
				fmt.Fprintf(errOut, "warning: access to %d registry %s not checked (%s: %s); listed as installable\n",
					len(ns), wording.Plural(len(ns), "context was", "contexts were"), safetext.Quote(ns[0]), opts.deepText(unchecked[ns[0]]))
			}
		}
	}
	sum := summarize(res, scan.Files)

	if opts.fetch && sum.Installable > 0 {
		if err := fetchRefs(ctx, opts, *man, reg, res, &sum); err != nil {
			return err
		}
		if !opts.dryRun && len(sum.Installed)+len(sum.Failed) > 0 {
			// What the fetch installed now resolves (or is missing); what
			// it could not install is missing, with why.
			for _, f := range sum.Failed {
				if unreadable == nil {
					unreadable = map[string]string{}
				}
				unreadable[f.Context] = f.Reason
			}
			if res, err = classify(reg); err != nil {
				return err
			}
			installed, failed := sum.Installed, sum.Failed
			sum = summarize(res, scan.Files)
			sum.Installed, sum.Failed = installed, failed
		}
	}

	if opts.json {
		refs := make([]refJSON, len(res))
		for i, r := range res {
			refs[i] = refJSON{File: r.File, Line: r.Line, Col: r.Col, Text: r.Text, Name: r.Name, Path: r.Path,
				Class: string(r.Class), Package: r.Package, Context: r.Context, Reason: r.Reason}
		}
		if err := writeJSON(g.IO.Out, map[string]any{"references": refs, "summary": sum}); err != nil {
			return err
		}
	} else {
		printRefs(opts, res)
	}
	printRefsSummary(opts, sum, reg != nil || man.Registry != "")

	if len(sum.Failed) > 0 {
		return partial()
	}
	if opts.check {
		return refsCheck(sum, len(unreadable) > 0)
	}
	return nil
}

// refsTypedPaths reads refs' PATH arguments and --registry (in place) from
// where the user stands (typedPath). With no PATH in a subfolder of the
// project, the PATH is that folder, as git grep and go test read where
// you stand; at the root (or inside .context), and with --check wherever
// you stand, it is none: the default folders (ctxref.DefaultPaths). A CI
// job's --check is the project's gate, as before round 20: run in a
// subfolder it must still fail on a broken reference elsewhere (review20).
func refsTypedPaths(opts *refsOptions) ([]string, error) {
	typed := opts.paths
	if len(typed) == 0 && !opts.check {
		typed = []string{"."}
	}
	paths := make([]string, len(typed))
	var err error
	for i, p := range typed {
		if paths[i], err = opts.typedPath(p); err != nil {
			return nil, err
		}
	}
	if len(opts.paths) == 0 {
		if len(paths) == 0 {
			paths = nil
		} else if first, _, _ := strings.Cut(paths[0], "/"); paths[0] == "." || first == project.DirName || first == ".." {
			paths = nil
		}
	}
	if opts.registry, err = opts.typedPath(opts.registry); err != nil {
		return nil, err
	}
	return paths, nil
}

// refsCheck is --check's verdict on sum: an error (exit 1) naming what to
// do when any reference is missing or unknown. unreadable says some
// registry context cannot be read (a fetch cannot install it).
func refsCheck(sum refsSummary, unreadable bool) error {
	n := sum.Missing + sum.Unknown
	if n == 0 {
		return nil
	}
	what := "fix the " + wording.Plural(n, "reference", "references") + ", add the packages they name, or run `ctx refs --fetch`"
	if unreadable {
		// a fetch cannot install a context that cannot be read
		what = "fix the " + wording.Plural(n, "reference", "references") + ", add the packages they name, or make the registry contexts that cannot be read readable"
	}
	return &exitError{code: ExitError, err: fmt.Errorf("refs --check: %d %s missing or unknown (listed above): %s",
		n, wording.Plural(n, "reference is", "references are"), what)}
}

// installableContexts lists the registry contexts of the installable
// references, each once, sorted.
func installableContexts(res []ctxref.Result) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range res {
		if r.Class == ctxref.Installable && !seen[r.Context] {
			seen[r.Context] = true
			names = append(names, r.Context)
		}
	}
	sort.Strings(names)
	return names
}

// countClass counts the results of class c.
func countClass(res []ctxref.Result, c ctxref.Class) int {
	n := 0
	for _, r := range res {
		if r.Class == c {
			n++
		}
	}
	return n
}

func summarize(res []ctxref.Result, files int) refsSummary {
	s := refsSummary{Found: len(res), Files: files}
	for _, r := range res {
		switch r.Class {
		case ctxref.Resolved:
			s.Resolved++
		case ctxref.Installable:
			s.Installable++
		case ctxref.Missing:
			s.Missing++
		case ctxref.Unknown:
			s.Unknown++
		case ctxref.Withheld:
			s.Withheld++
		}
	}
	return s
}

// loadRefsRegistry loads the registry of --registry, else the manifest's,
// else the user's default; nil when there is none. It returns as well
// the git engine that read it, to check access to its contexts.
func loadRefsRegistry(ctx context.Context, opts *refsOptions, man *project.Manifest, dir string) (*registry.Result, wizard.AccessChecker, error) {
	manifestReg := man.Registry
	location := opts.registry
	if location == "" {
		location = manifestReg
	}
	if location == "" {
		def, _, err := opts.Env.defaultRegistry()
		if err != nil {
			return nil, nil, err
		}
		location = def
	}
	if location == "" {
		return nil, nil, nil
	}
	wo, err := workspaceOptions(opts.globalOptions, nil)
	if err != nil {
		return nil, nil, err
	}
	loader := &registry.Loader{
		Git:  wo.Engine,
		Warn: func(m string) { fmt.Fprintf(wo.Log, "warning: %s\n", opts.deepText(m)) },
		Note: func(string) {},
	}
	var access wizard.AccessChecker = wo.Engine
	if opts.registry == "" && manifestReg != "" && !man.UsersRegistry() {
		access = confineRegistry(loader, wo.Engine, dir) // its contexts are checked as they would be fetched
	}
	reg, err := loader.Load(ctx, registry.ResolveLocal(location, dir, opts.Env.userHome()))
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, fmt.Errorf("refs: read the registry %s to look up the names that are not installed: %w (fix access, or pass --registry LOCATION)", safetext.Quote(location), err)
	}
	return reg, access, nil
}

// printRefs writes one line per reference to stdout, with --check only
// the missing and unknown ones.
func printRefs(opts *refsOptions, res []ctxref.Result) {
	for _, r := range res {
		if opts.check && (r.Class == ctxref.Resolved || r.Class == ctxref.Installable || r.Class == ctxref.Withheld) {
			continue
		}
		r.File = filepath.ToSlash(opts.displayPath(opts.root, filepath.Join(opts.root, filepath.FromSlash(r.File)))) // from where the user stands
		line := fmt.Sprintf("%s %s %s", safetext.Escape(r.Where()), r.Class, safetext.Escape(r.Text))
		switch {
		case r.Class == ctxref.Installable:
			line += " (registry context " + safetext.Quote(r.Context) + ")"
		case r.Reason != "":
			line += ": " + opts.deepText(r.Reason)
		}
		fmt.Fprintln(opts.IO.Out, line)
	}
}

func printRefsSummary(opts *refsOptions, s refsSummary, haveRegistry bool) {
	w := opts.IO.ErrOut
	withheld := ""
	if s.Withheld > 0 {
		withheld = fmt.Sprintf(", %d withheld (audience rules: not missing)", s.Withheld)
	}
	// The files read, then the references found: "2 references in 2
	// files" was read as files that hold references (walk22).
	fmt.Fprintf(w, "refs: %d %s read, %d %s: %d resolved, %d installable, %d missing, %d unknown%s\n",
		s.Files, wording.Plural(s.Files, "file", "files"), s.Found, wording.Plural(s.Found, "reference", "references"),
		s.Resolved, s.Installable, s.Missing, s.Unknown, withheld)
	if len(s.Installed) > 0 || len(s.Failed) > 0 {
		installed := ""
		if len(s.Installed) > 0 {
			installed = " (" + safetext.Text(strings.Join(s.Installed, ", ")) + ")"
		}
		fmt.Fprintf(w, "refs: fetched: %d installed%s, %d failed\n", len(s.Installed), installed, len(s.Failed))
		for _, f := range s.Failed {
			fmt.Fprintf(w, "refs: %s (alias %s) failed: %s\n", safetext.Quote(f.Context), f.Alias, opts.deepText(f.Reason))
		}
	}
	if s.Unknown > 0 && !haveRegistry {
		fmt.Fprintln(w, "refs: no registry to look unknown names up in: pass --registry LOCATION, or set one with 'ctx config set registry LOCATION'")
	}
	if s.Installable > 0 && !opts.fetch {
		fmt.Fprintln(w, "refs: run `ctx refs --fetch` to install the installable contexts")
	}
}

// fetchRefs installs the contexts of the installable references (one Add
// of them all, so workspace fetches up to 16 at once), after a
// confirmation; with --dry-run it only says what it would install.
func fetchRefs(ctx context.Context, opts *refsOptions, man project.Manifest, reg *registry.Result, res []ctxref.Result, sum *refsSummary) error {
	names := installableContexts(res)
	specs := wizard.RefSpecs(man, reg, names)
	if len(specs) != len(names) { // an installable name is the registry's
		return fmt.Errorf("refs: %d of the contexts %s are not in the registry any more: run ctx refs again", len(names)-len(specs), strings.Join(names, ", "))
	}
	ctxOf := map[string]string{} // alias → context name
	var list []string
	for i, s := range specs {
		ctxOf[s.Alias] = names[i]
		list = append(list, fmt.Sprintf("%s (as %s)", safetext.Quote(names[i]), s.Alias))
	}
	what := fmt.Sprintf("%d %s: %s", len(specs), wording.Plural(len(specs), "context", "contexts"), strings.Join(list, ", "))
	if opts.dryRun {
		for i, s := range specs {
			fmt.Fprintf(opts.IO.Out, "would install %s as %s from %s\n", safetext.Quote(names[i]), s.Alias, safetext.Escape(s.Source))
		}
		return nil
	}
	if !opts.yes {
		p := opts.prompter
		if p == nil {
			p = terminalPrompter(opts.globalOptions, nil)
		}
		if p == nil {
			return usageErrorf("refs --fetch: would install %s; there is no terminal to confirm: pass --yes (see 'ctx refs --help')", what)
		}
		ok, err := p.Confirm("Install "+what+"?", true)
		if errors.Is(err, wizard.ErrInterrupted) {
			fmt.Fprintln(opts.IO.ErrOut, "nothing installed")
			return &exitError{code: ExitInterrupted}
		}
		if err == nil && !ok {
			fmt.Fprintln(opts.IO.ErrOut, "nothing installed")
			return nil
		}
		if err != nil {
			return err
		}
	}
	pr := newProgress(opts.globalOptions)
	w, err := openWorkspace(opts.globalOptions, pr)
	if err != nil {
		pr.Done()
		return err
	}
	defer w.Close()
	// Each context stands alone: one that cannot be read fails by itself.
	// A registry the committed manifest names is not the user's word for a
	// path on this machine or the private network (as at ctx setup), unless
	// the user named it (project.Manifest.UsersRegistry).
	rep, err := w.Add(ctx, specs, workspace.AddOptions{KeepGoing: true, NoAllowOutside: opts.registry == "" && man.Registry != "" && !man.UsersRegistry()})
	pr.DoneWith(rep)
	if rep != nil {
		for _, p := range rep.Packages {
			switch p.Action {
			case workspace.Installed, workspace.Updated, workspace.Unchanged, workspace.Linked:
				sum.Installed = append(sum.Installed, ctxOf[p.Alias])
			case workspace.Skipped, workspace.Failed:
				sum.Failed = append(sum.Failed, refsFetchFailure{Context: ctxOf[p.Alias], Alias: p.Alias, Reason: refsWhy(p)})
			}
		}
		if rep.Index != nil {
			printSyncReport(opts.IO.ErrOut, rep.Index)
		}
	}
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return err
}

// refsWhy says why a context was not installed, in the registry's terms
// where add's would mislead (a source path is the registry's, not the
// user's to create).
func refsWhy(p workspace.PackageResult) string {
	var ms *workspace.MissingSourceError
	if errors.As(p.Err, &ms) {
		return fmt.Sprintf("the registry's source %s does not exist: fix the context's entry in the registry, or ask its maintainer", safetext.Quote(ms.Source))
	}
	return p.Why()
}
