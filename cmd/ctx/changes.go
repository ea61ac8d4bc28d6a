package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ctx-dev/ctx/changes"
	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/termenv"
	"github.com/ctx-dev/ctx/internal/wording"
	"github.com/ctx-dev/ctx/mcpserver"
	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
)

type changesOptions struct {
	*globalOptions
	aliases []string // the ALIAS arguments
	since   string
	json    bool
	summary bool
}

func newChangesCmd(g *globalOptions, runF func(context.Context, *changesOptions) error) *cobra.Command {
	opts := &changesOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use: "changes [ALIAS...] [--since REV] [--json] [--summary]",
		Example: `  ctx changes
  ctx changes api --since HEAD~1
  ctx changes --since 2026-11-01 --summary
  ctx changes --json`,
		Short: "Show which documents and sections changed",
		Long: `Changes lists what changed in the packages' documents (all packages, or
the ALIASes named) between an earlier lock and the lock now: documents
added, removed and renamed, and for a modified document the sections
(by heading trail, as search shows them) whose text changed, with their
lines and a short diff.

The earlier lock is the one at --since REV in the project's git history
(HEAD~1, a tag, a commit, ORIG_HEAD, or a date YYYY-MM-DD: the last commit
before that day); without --since, the lock as last committed when the
lock differs from it (after an update), else the lock before ctx last
changed it. Old documents come from the shared cache, or from the server
by tree id (one request). A dir source is read live and has no history;
an https source is compared only while this machine's cache holds its
earlier fetch.

--summary prints one line per changed package (what git hooks print);
--json prints {since, sinceCommit, packages: [{alias, kind, oldRev,
newRev, status, note, documents: [{path, change, from, binary, sections:
[{trail, change, startLine, endLine, diff, cut}]}]}]}.

Exit status: 0; 1 when the earlier lock cannot be read; 2 for bad
arguments (an unknown ALIAS, a --since REV that names nothing).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.aliases = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runChanges(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.since, "since", "", "compare with the lock at `REV` of the project's git history")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	cmd.Flags().BoolVar(&opts.summary, "summary", false, "print one line per changed package")
	return cmd
}

func runChanges(ctx context.Context, opts *changesOptions) error {
	if opts.json && opts.summary {
		return usageErrorf("--json and --summary do not go together (see 'ctx changes --help')")
	}
	w, err := openWorkspaceReadOnly(opts.globalOptions)
	if err != nil {
		return err
	}
	defer w.Close()
	set, err := w.Changes(ctx, workspace.ChangesOptions{Aliases: opts.aliases, Since: opts.since})
	if errors.Is(err, gitengine.ErrBadRevision) {
		return &exitError{code: ExitUsage, err: err} // --since names nothing: a bad argument
	}
	if err != nil {
		return err
	}
	if opts.json {
		return writeJSON(opts.IO.Out, set)
	}
	if opts.summary {
		for _, l := range workspace.ChangesSummary(set) {
			fmt.Fprintln(opts.IO.Out, safetext.Escape(l))
		}
		if set.Note != "" {
			fmt.Fprintln(opts.IO.ErrOut, "ctx changes: "+set.Note)
		}
		return nil
	}
	printChanges(opts.IO.Out, opts.IO.ErrOut, set, opts.symbols())
	return nil
}

// printChanges writes set for a person: a line per package, then its
// documents and their sections with the diffs, indented. Every name and
// line of text is escaped (safetext).
func printChanges(out, errOut io.Writer, set *changes.Set, sym termenv.Symbols) {
	arrow := sym.Arrow
	if set.Note != "" {
		fmt.Fprintln(errOut, "ctx changes: "+set.Note)
	}
	since := set.Since
	if set.SinceCommit != "" && !strings.Contains(since, "HEAD (") {
		since += " (" + shortSHA(set.SinceCommit) + ")"
	}
	if len(set.Packages) > 0 || set.Unchanged > 0 {
		fmt.Fprintf(out, "since %s\n", safetext.Escape(since))
	}
	defer func() {
		if set.Unchanged > 0 {
			fmt.Fprintln(out, wording.Count(set.Unchanged, "package", "packages")+" unchanged")
		}
	}()
	for _, p := range set.Packages {
		revs := ""
		if p.OldRev != "" || p.NewRev != "" {
			revs = " " + orDash(shortSHA(p.OldRev)) + " " + arrow + " " + orDash(shortSHA(p.NewRev))
		}
		fmt.Fprintf(out, "%s%s: %s\n", safetext.Escape(p.Alias), revs, p.Summary())
		for _, d := range p.Documents {
			mark := map[string]string{changes.Added: "A", changes.Removed: "D", changes.Renamed: "R", changes.Modified: "M"}[d.Change]
			line := "  " + mark + " " + safetext.Escape(d.Path)
			if d.From != "" {
				line += " (from " + safetext.Escape(d.From) + ")"
			}
			if d.Binary {
				line += " (binary: not diffed)"
			}
			fmt.Fprintln(out, line)
			for _, s := range d.Sections {
				h := s.Heading()
				if h == "" {
					h = "(before the first heading)"
				}
				fmt.Fprintf(out, "      %s %s  lines %d-%d\n", s.Change, safetext.Escape(h), s.StartLine, s.EndLine)
				lines := strings.Split(strings.TrimSuffix(s.Diff, "\n"), "\n")
				for i, l := range lines {
					if l == "" {
						continue
					}
					l = safetext.Escape(l)
					if s.Cut && i == len(lines)-1 {
						// ctx's own cut line ("… (N more lines of diff)"),
						// in the terminal's marks; the document's lines
						// above it are never rewritten.
						l = sym.Marks(l)
					}
					fmt.Fprintln(out, "        "+l)
				}
			}
		}
	}
}

// printUpdateSummary follows an update's report: one line per package it
// moved, what changed in its documents ("api: 3 documents, 5 sections
// changed; run ctx changes api"), as the update worked it out
// (UpdateOptions.Changes: recorded in INDEX.md by the index's render,
// else here). It never fails the update: a problem is a note on stderr.
func printUpdateSummary(ctx context.Context, g *globalOptions, out io.Writer, w *workspace.Workspace, rep *workspace.Report) {
	if rep.ChangesErr != nil {
		fmt.Fprintf(g.IO.ErrOut, "note: what changed in the documents is not known: %s\n", g.deepText(rep.ChangesErr.Error()))
		return
	}
	set := rep.Changes
	if set == nil {
		return
	}
	for _, l := range workspace.ChangesSummary(set) {
		fmt.Fprintln(out, safetext.Escape(l))
	}
	if rep.ChangesNoted {
		return
	}
	if err := w.NoteChanges(ctx, set); err != nil {
		fmt.Fprintf(g.IO.ErrOut, "note: INDEX.md does not say what changed: %s\n", g.deepText(err.Error()))
	}
}

// mcpChanges answers the MCP tool what_changed: workspace.Changes on the
// project opened read-only for the call.
func mcpChanges(g *globalOptions) mcpserver.ChangesFunc {
	return func(ctx context.Context, alias, since, listing string) (*changes.Set, error) {
		w, err := openWorkspaceReadOnly(g)
		if err != nil {
			return nil, err
		}
		defer w.Close()
		o := workspace.ChangesOptions{Since: since, SinceName: "since"}
		if alias != "" {
			o.Aliases = []string{alias}
		}
		set, err := w.Changes(ctx, o)
		if msg, ok := workspace.UnknownPackageMessage(err, listing); ok {
			return nil, errors.New(msg) // an agent has list_contexts, not a terminal's `ctx list`
		}
		return set, err
	}
}
