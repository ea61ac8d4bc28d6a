package workspace

import (
	"context"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/project"
)

// noteCacheUse tells the shared cache that the packages an install or
// update left as they were are still in use, so that `ctx cache gc` keeps
// them for its keep period: a git package's commit (gitengine.Engine.NoteUse),
// an https package's snapshot (webfetch.Client.NoteUse; its content may not
// be served any more, so the cache may hold its only copy). The packages it
// fetched were noted by the fetch. A note that fails only costs a fetch
// after a gc, so errors are ignored.
func (w *Workspace) noteCacheUse(ctx context.Context, p *plan) {
	for _, t := range p.tasks {
		if ctx.Err() != nil {
			return
		}
		if t.locked == nil || t.res.Action != Unchanged {
			continue
		}
		switch t.kind() {
		case project.KindGit:
			if t.eng != nil {
				_ = t.eng.NoteUse(ctx, gitengine.FetchRequest{URL: w.fetchURL(t.locked.Source), Commit: t.locked.Rev, Path: t.locked.Path, Tree: t.locked.Tree})
			}
		case project.KindHTTPS:
			w.web().NoteUse(t.locked.Rev)
		}
	}
}
