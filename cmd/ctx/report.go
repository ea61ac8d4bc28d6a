package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/wording"
	"github.com/ctx-dev/ctx/workspace"
)

// openWorkspace opens the project of -C (or the working directory), wiring
// notes to stderr and, when p is not nil, per-package transfer progress.
// workspaceOptions also makes the command's one gitengine Engine.
func openWorkspace(g *globalOptions, p *progress) (*workspace.Workspace, error) {
	return openWorkspaceFor(g, p, false)
}

// openWorkspaceFor is openWorkspace, or for a dry run (which changes
// nothing: not even the .gitignore every Open restores)
// openWorkspaceReadOnly.
func openWorkspaceFor(g *globalOptions, p *progress, dryRun bool) (*workspace.Workspace, error) {
	if dryRun {
		return openWorkspaceReadOnly(g)
	}
	dir, err := g.ProjectDir()
	if err != nil {
		return nil, err
	}
	o, err := workspaceOptions(g, p)
	if err != nil {
		return nil, err
	}
	return workspace.Open(dir, o)
}

// openWorkspaceReadOnly opens the project to read it (list, status,
// verify): at once, without the project lock, writing nothing; a change in
// progress is noted on stderr.
func openWorkspaceReadOnly(g *globalOptions) (*workspace.Workspace, error) {
	dir, err := g.ProjectDir()
	if err != nil {
		return nil, err
	}
	o, err := workspaceOptions(g, nil)
	if err != nil {
		return nil, err
	}
	return workspace.OpenReadOnly(dir, o)
}

func workspaceOptions(g *globalOptions, p *progress) (workspace.Options, error) {
	eo, err := g.Env.engineOptions()
	if err != nil {
		return workspace.Options{}, err
	}
	wait, err := g.Env.lockWait()
	if err != nil {
		return workspace.Options{}, err
	}
	total, err := g.Env.fetchTimeout()
	if err != nil {
		return workspace.Options{}, err
	}
	o := workspace.Options{Log: g.IO.ErrOut, EngineOptions: eo, Getenv: g.Env.Lookup, Home: g.Env.userHome(), LockWait: wait, Context: g.ctx, FetchTimeout: total}
	if p != nil {
		o.Progress = p.Update
		o.Log = p.Log()
		o.EngineOptions.Prompting = p.Pause
	}
	if g.quiet {
		// -q drops notes, never warnings nor the notices a user must see
		// (workspace.Options.Notice: an allowance recorded, a recovery).
		// Through the progress's Log when there is one (-q's draws
		// nothing), which holds them while git asks at the terminal.
		o.Notice = g.IO.ErrOut
		if p != nil {
			o.Notice = p.Log()
		}
		o.Log = warningsOnly{o.Notice}
	}
	o.Engine = workspace.NewEngine(o) // the command's one Engine
	return o, nil
}

// reportOptions say how finishReport prints a command's report.
type reportOptions struct {
	dryRun bool // the report is a plan: "would install", and a closing note
	json   bool // stdout gets the packages as JSON (packageJSON), not lines
	// forceVia, for a command without --force (setup): the advice for
	// packages with local edits names this command line, with %s for
	// their aliases ("ctx remove %s --force"), instead of "run it again
	// with --force".
	forceVia string
}

// finishReport prints rep and returns the command's error: the context's
// when the user interrupted it (exit 130), else err from workspace, else
// partial() when some package was skipped or failed (exit 3).
// A dry run ends with "dry run: nothing was changed" on stderr.
func finishReport(ctx context.Context, g *globalOptions, root string, rep *workspace.Report, err error, o reportOptions) error {
	perr := printReport(g, root, rep, o)
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if err != nil {
		return err
	}
	if o.dryRun {
		fmt.Fprintln(g.notes(), "dry run: nothing was changed")
	}
	return perr
}

// shortSHA abbreviates a commit id to 7 characters, as git does by default;
// an https source's content hash is "content " and its short form
// (naming.ShortRev).
func shortSHA(c string) string {
	if strings.HasPrefix(c, "sha256:") {
		return "content " + naming.ShortRev(c, 7)
	}
	return naming.ShortRev(c, 7)
}

// printReport writes one result line per package to stdout, sorted by alias,
// and the details of every skipped or failed package to stderr. Each line
// starts with the alias, added here only: workspace's errors do not name it.
// It returns the error that gives the command its exit code: nil, or
// partial() (exit 3) when any package was skipped or failed.
//
// Result lines:
//
//	ALIAS installed SHA
//	ALIAS OLD → NEW
//	ALIAS SHA unchanged
//	ALIAS removed
//
//	ALIAS linked
//
// With o.json, stdout gets reportJSON instead.
//
// With dryRun: "ALIAS would install SHA", "ALIAS would move OLD → NEW",
// "ALIAS would remove", "ALIAS would link".
func printReport(g *globalOptions, root string, rep *workspace.Report, o reportOptions) error {
	if rep == nil {
		return nil
	}
	dryRun, forceVia := o.dryRun, o.forceVia
	pkgs := append([]workspace.PackageResult(nil), rep.Packages...)
	sort.SliceStable(pkgs, func(i, j int) bool { return pkgs[i].Alias < pkgs[j].Alias })
	out, errOut, notes := g.IO.Out, g.IO.ErrOut, g.notes()
	if o.json {
		if err := writeJSON(out, reportJSON(root, pkgs, dryRun)); err != nil {
			return err
		}
		out = io.Discard // the lines below say it again; stderr keeps its notes
	}
	installed, removed, linked, would := "installed", "removed", "linked", ""
	if dryRun {
		installed, removed, linked, would = "would install", "would remove", "would link", "would move "
	}
	var bad, dirtyAliases []string
	dirty := false
	for _, p := range pkgs {
		p.Alias = safetext.Escape(p.Alias)
		if n := len(p.Withheld); n > 0 && (p.Action == workspace.Installed || p.Action == workspace.Updated) {
			fmt.Fprintf(notes, "%s: %d %s withheld: not for project %s (audience rules; ctx install --verbose names them)\n", p.Alias, n, wording.Plural(n, "document", "documents"), safetext.Quote(p.Audience))
		}
		if p.Backup != "" {
			fmt.Fprintf(errOut, "%s: local edits backed up to %s\n", p.Alias, safetext.Escape(g.displayPath(root, p.Backup)))
		}
		switch p.Action {
		case workspace.Installed:
			fmt.Fprintf(out, "%s %s %s\n", p.Alias, installed, shortSHA(p.NewCommit))
		case workspace.Updated:
			was := ""
			if p.InstalledCommit != "" {
				was = " (installed was " + shortSHA(p.InstalledCommit) + ")"
			}
			fmt.Fprintf(out, "%s %s%s %s %s%s\n", p.Alias, would, shortSHA(p.OldCommit), g.symbols().Arrow, shortSHA(p.NewCommit), was)
		case workspace.Unchanged:
			c := p.NewCommit
			if c == "" {
				c = p.OldCommit
			}
			fmt.Fprintf(out, "%s %s unchanged\n", p.Alias, shortSHA(c))
		case workspace.Removed:
			fmt.Fprintf(out, "%s %s\n", p.Alias, removed)
		case workspace.Linked:
			fmt.Fprintf(out, "%s %s\n", p.Alias, linked)
		case workspace.Skipped, workspace.Failed:
			bad = append(bad, p.Alias)
			if printProblem(g, errOut, p) {
				dirty = true
				dirtyAliases = append(dirtyAliases, p.Alias)
			}
		default:
			fmt.Fprintf(out, "%s %s\n", p.Alias, p.Action)
		}
	}
	if rep.Index != nil {
		printSyncReport(notes, rep.Index)
		if ix := rep.Index; !dryRun && ix.Added+ix.Updated > 0 {
			if _, on, _, _ := embedConfig(g.Env); on {
				fmt.Fprintln(notes, "semantic search: the new and changed passages are embedded by `ctx index`; until then search ranks them by their words")
			}
		}
	}
	if len(bad) == 0 {
		return nil
	}
	if dirty {
		force := "run it again with --force"
		if forceVia != "" {
			force = "run `" + fmt.Sprintf(forceVia, strings.Join(dirtyAliases, " ")) + "`"
		}
		fmt.Fprintf(errOut, "ctx: packages with local edits were left as they are (files marked M modified, A added, D deleted).\n"+
			"  To proceed: undo them, or send them upstream (`ctx push ALIAS` for a git package; once merged, `ctx update ALIAS`\n"+
			"  takes them without --force), then run the command again;\n"+
			"  or %s, which first copies the local files to a backup folder and prints where.\n", force)
	}
	return notDone(errOut, bad, len(pkgs))
}

// printProblem writes why p (its alias escaped) was skipped or failed to
// errOut, with its modified files, in the terminal's marks (deepText: the
// reason is built deep down); it says whether p was skipped for local
// edits.
func printProblem(g *globalOptions, errOut io.Writer, p workspace.PackageResult) (dirty bool) {
	if p.Action == workspace.Skipped {
		fmt.Fprintf(errOut, "%s: skipped: %s\n", p.Alias, g.deepText(p.Why()))
		for _, f := range p.DirtyFiles {
			fmt.Fprintf(errOut, "\t%s\n", safetext.Escape(f))
		}
		return len(p.DirtyFiles) > 0 || p.Reason == workspace.SkipDirty
	}
	fmt.Fprintf(errOut, "%s: failed: %s\n", p.Alias, g.deepText(failure(p)))
	return false
}

// failure is why p failed, in words: its error's, or that the user
// interrupted it.
func failure(p workspace.PackageResult) string {
	switch {
	case errors.Is(p.Err, context.Canceled):
		return "interrupted: nothing of it was installed"
	case p.Err != nil:
		return p.Err.Error()
	}
	return "unknown error"
}

// packageJSON is one package of the --json of add, install, update and
// remove (reportJSON): the names list, status and outdated use (alias,
// kind, ref, oldCommit, newCommit, installedCommit), what happened to it
// (state: installed, updated, unchanged, removed, linked, skipped or
// failed; with --dry-run, what would happen: "would install", "would
// update" (the text line says "would move OLD → NEW"), "would remove",
// "would link", "would skip", never a state that claims a change), and why not.
type packageJSON struct {
	Alias           string   `json:"alias"`
	Kind            string   `json:"kind,omitempty"`
	Ref             string   `json:"ref,omitempty"`
	State           string   `json:"state"`
	OldCommit       string   `json:"oldCommit,omitempty"`
	NewCommit       string   `json:"newCommit,omitempty"`
	InstalledCommit string   `json:"installedCommit,omitempty"`
	Reason          string   `json:"reason,omitempty"`     // skipped: "dirty", "no access" or "repository gone"
	Error           string   `json:"error,omitempty"`      // skipped for no access, or failed
	DirtyFiles      []string `json:"dirtyFiles,omitempty"` // "M path", "A path", "D path"
	Backup          string   `json:"backup,omitempty"`     // with --force: where the local edits were copied
	Withheld        []string `json:"withheld,omitempty"`   // documents audience rules kept out
}

// dryRunStates are the states of a dry run's --json (reportJSON): what
// the command would do. unchanged is true of the plan too, and failed is
// the dry run's own failure (it exits 3 as the real run would).
var dryRunStates = map[workspace.Action]string{
	workspace.Installed: "would install",
	workspace.Updated:   "would update",
	workspace.Removed:   "would remove",
	workspace.Linked:    "would link",
	workspace.Skipped:   "would skip",
}

// reportJSON is pkgs as --json prints them: an array, sorted by alias,
// never null; a dry run's states say what would happen (dryRunStates).
func reportJSON(root string, pkgs []workspace.PackageResult, dryRun bool) []packageJSON {
	out := make([]packageJSON, 0, len(pkgs))
	for _, p := range pkgs {
		state := string(p.Action)
		if s, ok := dryRunStates[p.Action]; ok && dryRun {
			state = s
		}
		j := packageJSON{Alias: p.Alias, Kind: p.Kind, Ref: p.Ref, State: state,
			OldCommit: p.OldCommit, NewCommit: p.NewCommit, InstalledCommit: p.InstalledCommit,
			Reason: string(p.Reason), DirtyFiles: p.DirtyFiles, Withheld: p.Withheld}
		if p.Backup != "" {
			j.Backup = pathFrom(root, root, p.Backup)
		}
		switch {
		case p.Action == workspace.Failed:
			j.Error = failure(p)
		case p.Err != nil:
			j.Error = p.Err.Error()
		}
		out = append(out, j)
	}
	return out
}

// notDone ends a command some of whose total packages (bad, their aliases
// escaped) were skipped or failed: one line naming them, and partial()
// (exit 3).
func notDone(errOut io.Writer, bad []string, total int) error {
	fmt.Fprintf(errOut, "ctx: %d of %d packages not done: %s\n", len(bad), total, strings.Join(bad, ", "))
	return partial()
}

// printSyncReport prints what an index sync did on one line, plus what
// INDEX.md left out to fit its budget. Commands that index as a side effect
// print it to stderr; ctx index, whose result it is, to stdout.
func printSyncReport(w io.Writer, r *indexer.SyncReport) {
	if r.Rebuilt {
		fmt.Fprintln(w, "index: rebuilt from scratch")
	}
	fmt.Fprintf(w, "index: %d added, %d updated, %d removed, %d unchanged; %s; INDEX.md %s\n",
		r.Added, r.Updated, r.Removed, r.Unchanged, wording.Count(r.Chunks, "chunk", "chunks"), wording.Count(r.IndexTokens, "token", "tokens"))
	if r.Degraded != "" {
		fmt.Fprintf(w, "index: INDEX.md shortened to fit its budget: %s (use ctx search to find the rest)\n", r.Degraded)
	}
}

// displayPath shows p, when it is inside the project at root, relative
// to the folder the user stands in (StartDir, when it is inside the
// project; else root): "../.context/backup/x" from a subfolder, so that
// it can be pasted there. Any other path is shown as it is.
func (g *globalOptions) displayPath(root, p string) string {
	from := root
	if g.start != "" && naming.Within(root, g.start) {
		from = g.start
	}
	return pathFrom(root, from, p)
}

// pathFrom shows p, when it is inside the project at root, relative to
// from (a folder inside the project); any other path as it is. --json
// shows paths from the root (pathFrom(root, root, p)), the same from any
// folder.
func pathFrom(root, from, p string) string {
	if root == "" || !filepath.IsAbs(p) || !naming.Within(root, p) {
		return p
	}
	if rel, err := filepath.Rel(from, p); err == nil {
		return rel
	}
	return p
}

// writeJSON writes v to w as indented JSON with a final newline: every
// command's --json. <, > and & are written as they are ("Options > Routing",
// a URL's query), not as \u003e: the output is read by scripts and people,
// never pasted into HTML (the manifest and the lock are written alike).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
