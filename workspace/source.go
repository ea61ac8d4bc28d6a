package workspace

import (
	"context"
	"fmt"

	"github.com/ctx-dev/ctx/internal/netrate"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/source"
	"github.com/ctx-dev/ctx/source/kinds"
	"github.com/ctx-dev/ctx/webfetch"
)

// fetched is what a kind's Fetch put in a stage, as applyInstall uses it.
type fetched struct {
	// entry holds what the source pins: Kind, Rev, Tree and, for https,
	// URL, ETag, LastModified and Fetched. applyInstall adds Source, Path,
	// Ref, Hash and Updated.
	entry   lockfile.Entry
	bytes   int64            // received from the network
	skipped []source.Skipped // files of the source not written, and why
	// state records the stage as written, given its h1: hash, without the
	// files in omit (deleted from the stage since: see applyAudience).
	state func(hash string, omit map[string]bool) (*pkgState, error)
	// kept are the files of the new tree the stage lacks because the
	// package folder has them, as the old state records them (t.keep,
	// which the fetch was given as Request.Have).
	kept map[string]fileState
	// sums are the SHA-256 sums of the files the fetch wrote into the
	// stage, as it wrote them (gitengine's File.Sum), so the h1: hash
	// need not read them back; nil when the source gives none.
	sums map[string]string
}

// kind is the task's source kind: its spec's, or its lock entry's.
func (t *task) kind() string {
	if t.spec != nil {
		return t.spec.KindOf()
	}
	if t.locked != nil && !t.locked.IsGit() {
		return t.locked.Kind
	}
	return project.KindGit
}

// fetcher returns the Fetcher of kind (source/kinds), with what it is
// given of the workspace for task t: its Engine, and the containment rule
// (project.CheckSource) with the user's allowances and the one Add records
// with t's spec (t.allowWeb).
func (w *Workspace) fetcher(kind string, t *task) (source.Fetcher, source.Env, error) {
	k, ok := kinds.Of(kind)
	f, isF := k.(source.Fetcher)
	if !ok || !isF {
		return nil, source.Env{}, fmt.Errorf("ctx cannot fetch a %s source", kind)
	}
	env := source.Env{
		Git:      t.eng,
		Web:      w.web,
		FetchURL: w.fetchURL,
		Getenv:   w.opts.Getenv,
		Progress: w.opts.Progress,
		Manifest: project.Rel(project.ManifestName),
		Adding:   t.addSpec,
		Check: func(s source.Spec) error {
			m := w.manifest // nothing writes it while tasks fetch (commit comes after)
			if t.allowWeb != nil {
				m.AllowWeb = append(append([]project.WebAllow(nil), m.AllowWeb...), *t.allowWeb)
			}
			_, err := w.proj.CheckSource(&m, s)
			return err
		},
	}
	return f, env, nil
}

// request is what t asks of its kind's Fetcher.
func (t *task) request() source.Request {
	r := source.Request{Alias: t.alias, Spec: t.spec, Locked: t.locked, Target: t.target, Refresh: t.refresh,
		Want: t.want, Ref: t.refName, Carry: t.carry}
	if len(t.keep) > 0 {
		r.Have = make(map[string]source.Have, len(t.keep))
		for p, f := range t.keep {
			r.Have[p] = source.Have{Blob: f.Blob, Mode: f.Mode, Size: f.Size}
		}
	}
	return r
}

// resolveTask resolves t through its kind's Fetcher: t.rev (and, for git,
// t.refName).
func (w *Workspace) resolveTask(ctx context.Context, t *task) error {
	f, env, err := w.fetcher(t.kind(), t)
	if err != nil {
		return err
	}
	ctx, done := w.fetchBound(ctx, t.kind())
	defer done()
	r, err := f.Resolve(ctx, env, t.request())
	t.rev, t.refName, t.revalidated, t.carry = r.Rev, r.Ref, r.Revalidated, r.Carry
	return w.overBound(ctx, err)
}

// fetchBound bounds one network step of a package (resolving its ref, or
// fetching its files) by Options.FetchTimeout (internal/netrate's total
// bound, the rule's owner): a server that trickles above the rate floor
// would otherwise hold an install, and the hooks' git pull, for days. A
// dir source reads the disk and is not bounded. Every transport of the
// git kind runs under the context (http(s), ssh, git://, and the local
// file transport, which go-git reads in process).
func (w *Workspace) fetchBound(ctx context.Context, kind string) (context.Context, context.CancelFunc) {
	if kind == project.KindDir {
		return ctx, func() {}
	}
	return netrate.WithTotal(ctx, w.opts.FetchTimeout)
}

// overBound is err, or, when ctx ended on its total bound, the error that
// says so and how to raise it (whatever the transport made of the
// cancellation).
func (w *Workspace) overBound(ctx context.Context, err error) error {
	te := netrate.Total(ctx)
	if err == nil || te == nil {
		return err
	}
	return fmt.Errorf("%w: %s", te, te.Hint())
}

// fetchTask fetches t.want into stage through the Fetcher of kind
// (t.kind(), but for an old lock entry of Changes its own).
func (w *Workspace) fetchTask(ctx context.Context, kind string, t *task, stage string) (*fetched, error) {
	src, env, err := w.fetcher(kind, t)
	if err != nil {
		return nil, err
	}
	ctx, done := w.fetchBound(ctx, kind)
	defer done()
	res, err := src.Fetch(ctx, env, t.request(), stage)
	if err != nil {
		return nil, w.overBound(ctx, err)
	}
	f := &fetched{entry: res.Entry, bytes: res.Bytes, skipped: res.Skipped, sums: res.Sums}
	if res.Files == nil {
		f.state = func(hash string, _ map[string]bool) (*pkgState, error) {
			return scanState(stage, res.Entry.Rev, res.Entry.Tree, hash)
		}
		return f, nil
	}
	f.kept = make(map[string]fileState, len(t.keep))
	for _, file := range res.Files {
		if file.Kept {
			f.kept[file.Path] = t.keep[file.Path]
		}
	}
	f.state = func(hash string, omit map[string]bool) (*pkgState, error) {
		return stateOf(stage, res, hash, omit, f.kept)
	}
	return f, nil
}

// web returns the workspace's webfetch Client, made on first use.
func (w *Workspace) web() *webfetch.Client {
	w.webOnce.Do(func() {
		w.webc = webfetch.New(webfetch.Options{
			CacheDir: w.opts.EngineOptions.CacheDir,
			Warn:     func(msg string) { w.log("warning: %s", msg) },
		})
	})
	return w.webc
}
