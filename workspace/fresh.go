package workspace

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"
)

// IndexCheck is what FreshenIndex found and did.
type IndexCheck struct {
	// Stale names the packages whose files changed since the index was
	// built (added, edited, deleted; or packages added or removed); none
	// when the index was fresh or could not be checked.
	Stale []string
	// Held is the check's warnings of documents git does not track held
	// back in committed dir sources (indexer.Freshness.Held), when no
	// re-index ran (a re-index warns of them itself, on Options.Log).
	Held []string
	// Report is the re-index's, when one ran and succeeded.
	Report *indexer.SyncReport
	// Err says why the index could not be checked, or, with Stale, why it
	// was not re-indexed: another ctx holds the project lock (a
	// *BusyError), the project cannot be written (confine.CannotWrite), or
	// the re-index failed. The index is then as it was.
	Err error
}

// FreshenIndex makes the search index of the project at projectDir match
// the installed packages' files before a command reads it (ctx search), as
// the MCP server does before each call. It checks the index with r's
// Freshness over the packages Reindex gives the indexer (project.Installed):
// a stat of every file, nothing written when it is fresh. When it is stale
// it re-indexes as Reindex does (only what changed; the manifest's budget),
// under the project lock, tried once: a reader does not wait for another
// ctx. io are Reindex's options. A missing index, or one this ctx cannot
// read at all, is left alone (nothing to check against): the read reports
// it, and ctx index builds it. A dir source that is missing is warned
// about (warnMissingDirs) on every call, fresh or not.
func FreshenIndex(ctx context.Context, projectDir string, r *indexer.Reader, o Options, io indexer.Options) IndexCheck {
	rd, err := newWorkspace(projectDir, o)
	if err != nil {
		return IndexCheck{Err: err}
	}
	rd.fs = rd.fs.ReadOnly()
	if err := rd.loadManifest(); err != nil {
		return IndexCheck{Err: err}
	}
	rd.warnMissingDirs()
	l, err := rd.readLock()
	if err != nil {
		return IndexCheck{Err: err}
	}
	pkgs := rd.proj.Installed(&rd.manifest, l)
	rd.warnNotInstalledHere(l, pkgs)
	f, err := r.Freshness(pkgs)
	if err != nil {
		return IndexCheck{Err: err}
	}
	if f.Fresh || f.BuiltAt.IsZero() {
		return IndexCheck{Held: f.Held}
	}
	c := IndexCheck{Stale: f.Stale}
	o.LockWait = time.Nanosecond // try the lock once, as OpenReadOnly does
	w, err := Open(projectDir, o)
	if err != nil {
		c.Err, c.Held = err, f.Held
		return c
	}
	defer w.Close()
	c.Report, c.Err = w.reindex(ctx, io)
	return c
}

// warnNotInstalledHere warns, for a search, of each locked package whose
// folder is here but that ctx did not install on this machine
// (project.InstalledHere: its state file is missing, or not a regular
// file), so that Installed, pkgs, left it out of the index: its files
// are not searched (review of red23: search said "no matches" for words
// in them, and nothing of why). A stat of each locked package not in
// pkgs, none when every one is.
func (w *Workspace) warnNotInstalledHere(l *lockfile.Lock, pkgs []indexer.Package) {
	in := make(map[string]bool, len(pkgs))
	for _, p := range pkgs {
		in[p.Alias] = true
	}
	for _, alias := range slices.Sorted(maps.Keys(l.Packages)) {
		if in[alias] || !w.proj.IsInstalled(alias) || w.proj.InstalledHere(alias) {
			continue
		}
		w.log("warning: %s: not searched: not installed on this machine (%s %s): run `ctx install`", alias, project.Rel(project.StateDir+"/"+alias+".json"), cmp.Or(w.proj.NotInstalledWhy(alias), "is missing"))
	}
}
