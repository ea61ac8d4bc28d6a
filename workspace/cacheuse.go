package workspace

import (
	"context"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/project"
)

// noteCacheUse tells the shared cache that the git packages an install or
// update left as they were are still in use (gitengine.Engine.NoteUse), so
// that `ctx cache gc` keeps their commits for its keep period; the packages
// it fetched were noted by the fetch. A note that fails only costs a fetch
// after a gc, so errors are ignored.
func (w *Workspace) noteCacheUse(ctx context.Context, p *plan) {
	for _, t := range p.tasks {
		if ctx.Err() != nil {
			return
		}
		if t.eng == nil || t.locked == nil || t.res.Action != Unchanged || t.kind() != project.KindGit {
			continue
		}
		_ = t.eng.NoteUse(ctx, gitengine.FetchRequest{URL: w.fetchURL(t.locked.Source), Commit: t.locked.Rev, Path: t.locked.Path, Tree: t.locked.Tree})
	}
}
