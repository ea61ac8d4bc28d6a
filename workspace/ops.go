package workspace

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/webfetch"
)

func now() time.Time { return time.Now().UTC().Truncate(time.Second) }

// parallel runs fn(0..n-1) with at most jobs at a time.
func parallel(n, jobs int, fn func(i int)) {
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			fn(i)
		}()
	}
	wg.Wait()
}

// noAccess reports whether err means the user cannot read the repository
// or the https source (not found, or refused without the right credentials).
func noAccess(err error) bool {
	switch gitengine.KindOf(err) {
	case gitengine.KindNotFound, gitengine.KindAuthRequired, gitengine.KindAuthFailed, gitengine.KindHostKey:
		return true
	}
	switch webfetch.KindOf(err) {
	case webfetch.KindNotFound, webfetch.KindAuth:
		return true
	}
	return false
}

// attachEngine gives each task the operation's Engine, labelled with its
// alias and guarded as its spec's word allows (gitEngine), unless they
// have it already.
func (w *Workspace) attachEngine(ts []*task) {
	if len(ts) == 0 || ts[0].eng != nil {
		return
	}
	eng := w.engine()
	for _, t := range ts {
		locked := ""
		if t.locked != nil {
			locked = t.locked.Source
		}
		t.eng = w.gitEngine(eng, t.alias, t.spec, locked)
	}
}

// resolveTasks resolves the refs of tasks that ask for it, in parallel,
// each through its kind's Fetcher (source/kinds).
func (w *Workspace) resolveTasks(ctx context.Context, ts []*task) {
	w.attachEngine(ts)
	var todo []*task
	for _, t := range ts {
		if t.resolve {
			todo = append(todo, t)
		}
	}
	parallel(len(todo), w.opts.Jobs, func(i int) {
		t := todo[i]
		t.resolveErr = w.resolveTask(ctx, t)
	})
}

// indexPackages is what the indexer should see: the installed packages,
// by project.Installed (the MCP server's rule too).
func (w *Workspace) indexPackages() ([]indexer.Package, error) {
	l, err := w.readLock()
	if err != nil {
		return nil, err
	}
	return w.proj.Installed(&w.manifest, l), nil
}

// indexOptions are Reindex's defaults filled into o: the manifest's
// budget, warnings to the log.
func (w *Workspace) indexOptions(o indexer.Options) indexer.Options {
	if o.BudgetTokens == 0 {
		o.BudgetTokens = w.manifest.Index.BudgetTokens
	}
	if o.Warn == nil {
		o.Warn = func(msg string) { w.log("warning: %s", msg) }
	}
	return o
}

// startIndex starts an indexer.Stream when some task fetches, so that each
// package is indexed as it lands. It returns nil when nothing is fetched
// or the stream cannot start (another process writing the index:
// syncIndex then runs Sync, which waits for it).
func (w *Workspace) startIndex(ctx context.Context, ts []*task, o indexer.Options) *indexer.Stream {
	fetches := false
	for _, t := range ts {
		fetches = fetches || t.step == stepInstall
	}
	if !fetches || w.opts.indexAfter {
		return nil
	}
	s, err := indexer.StartSync(ctx, w.Dir(), o)
	if err != nil {
		if !errors.Is(err, indexer.ErrIndexBusy) {
			w.log("warning: %v (the index is brought up to date at the end)", err)
		}
		return nil
	}
	var fetched []string
	for _, t := range ts {
		if t.step == stepInstall {
			fetched = append(fetched, t.alias)
		}
	}
	s.Expect(fetched...)
	return s
}

// abortIndex drops s (nil: nothing), publishing nothing.
func abortIndex(s *indexer.Stream) {
	if s != nil {
		s.Abort()
	}
}

// syncIndex updates the index after packages changed, with o (Reindex's
// defaults filled in): it finishes stream (nil: a plain Sync). The packages' work is done by then: a failure here
// is a warning, not the command's failure.
func (w *Workspace) syncIndex(ctx context.Context, stream *indexer.Stream, o indexer.Options) (rep *indexer.SyncReport) {
	defer func() {
		if p := recover(); p != nil {
			w.log("warning: the index was not updated: the indexer crashed: %v (run `ctx index` to retry; please report this)", p)
			rep = nil
		}
	}()
	var err error
	if stream != nil {
		var pkgs []indexer.Package
		if pkgs, err = w.indexPackages(); err != nil {
			stream.Abort()
		} else {
			rep, err = stream.Finish(ctx, pkgs)
		}
	} else {
		var pkgs []indexer.Package
		if pkgs, err = w.indexPackages(); err == nil {
			rep, err = indexer.Sync(ctx, w.Dir(), pkgs, o)
		}
	}
	if errors.Is(err, context.Canceled) {
		w.warnIndexInterrupted()
		return nil
	}
	if err != nil {
		w.log("warning: the index was not updated: %v (run `ctx index` to retry)", err)
		return nil
	}
	return rep
}

// warnIndexInterrupted says that Ctrl-C stopped the index's update after
// the packages were in place. ctx index builds it, as the next install,
// update or setup does (IndexStale); a search re-indexes only an index
// that exists (FreshenIndex), so it is not named.
func (w *Workspace) warnIndexInterrupted() {
	w.log("warning: the index was not updated: interrupted (run `ctx index`)")
}

// IndexMissing reports whether INDEX.md or the search index (its
// meta.json, which every writer publishes last) is missing: a first build
// that was interrupted, or never ran.
func (w *Workspace) IndexMissing() bool {
	if !exists(w.path(project.IndexName)) {
		return true
	}
	_, err := indexer.PublishedIndex(w.Dir())
	return err != nil
}

// IndexStale reports whether INDEX.md or the search index is missing, or
// the index does not match the installed packages: indexer.Reader.Freshness
// over the packages the indexer is given, the check ctx search and the MCP
// server run (a stat of every file). A check that fails counts as stale:
// the sync that follows says why. An install, update or setup with nothing
// to change re-indexes when it is stale, so that the re-run an interrupt
// asks for finishes the job.
func (w *Workspace) IndexStale() bool {
	if w.IndexMissing() {
		return true
	}
	pkgs, err := w.indexPackages()
	if err != nil {
		return true
	}
	r, err := indexer.OpenReader(w.Dir())
	if err != nil {
		return true
	}
	defer r.Close()
	f, err := r.Freshness(pkgs)
	return err != nil || !f.Fresh
}

// Reindex brings INDEX.md and the search index up to date with the
// packages, first warning about each dir source that is missing
// (warnMissingDirs).
func (w *Workspace) Reindex(ctx context.Context, o indexer.Options) (*indexer.SyncReport, error) {
	w.warnMissingDirs()
	return w.reindex(ctx, o)
}

// reindex is Reindex without the warnings (FreshenIndex gives them
// whether or not it re-indexes).
func (w *Workspace) reindex(ctx context.Context, o indexer.Options) (*indexer.SyncReport, error) {
	pkgs, err := w.indexPackages()
	if err != nil {
		return nil, err
	}
	return indexer.Sync(ctx, w.Dir(), pkgs, w.indexOptions(o))
}
