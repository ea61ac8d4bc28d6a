package workspace

import (
	"context"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/webfetch"
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
// alias, unless they have it already.
func (w *Workspace) attachEngine(ts []*task) {
	if len(ts) == 0 || ts[0].eng != nil {
		return
	}
	eng := w.engine()
	for _, t := range ts {
		t.eng = eng.WithLabel(t.alias)
	}
}

// resolveTasks resolves the refs of tasks that ask for it, in parallel,
// each through its kind's source.
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
		src, err := w.sourceFor(t.kind())
		if err == nil {
			err = src.resolve(ctx, t)
		}
		t.resolveErr = err
	})
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
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

// syncIndex updates the index after packages changed. The packages' work is
// done by then: a failure here is a warning, not the command's failure.
func (w *Workspace) syncIndex(ctx context.Context) (rep *indexer.SyncReport) {
	defer func() {
		if p := recover(); p != nil {
			w.log("warning: the index was not updated: the indexer crashed: %v (run `ctx index` to retry; please report this)", p)
			rep = nil
		}
	}()
	rep, err := w.Reindex(ctx, indexer.Options{})
	if err != nil {
		w.log("warning: the index was not updated: %v (run `ctx index` to retry)", err)
		return nil
	}
	return rep
}

// Reindex brings INDEX.md and the search index up to date with the packages.
func (w *Workspace) Reindex(ctx context.Context, o indexer.Options) (*indexer.SyncReport, error) {
	pkgs, err := w.indexPackages()
	if err != nil {
		return nil, err
	}
	if o.BudgetTokens == 0 {
		o.BudgetTokens = w.manifest.Index.BudgetTokens
	}
	if o.Warn == nil {
		o.Warn = func(msg string) { w.log("warning: %s", msg) }
	}
	return indexer.Sync(ctx, w.Dir(), pkgs, o)
}
