package workspace

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"
)

// A fetcher is the fetch side of one locked source kind (the kind's rules
// are its package's, source/KIND; the planners and execute are the same
// for all). A dir source has none: it is never fetched or locked (see
// project.Live).
//
// resolve finds the revision t's spec names now and sets t.rev (and, for
// git, t.refName); t.locked, when set, is what the lock says, for a source
// that can revalidate instead of fetching again. fetch writes the files of
// revision t.want into stage (which does not exist yet) and says what to
// lock.
type fetcher interface {
	resolve(ctx context.Context, t *task) error
	fetch(ctx context.Context, t *task, stage string) (*fetched, error)
}

// fetched is what a source put in a stage.
type fetched struct {
	// entry holds what the source pins: Kind, Rev, Tree and, for https,
	// URL, ETag, LastModified and Fetched. applyInstall adds Source, Path,
	// Ref, Hash and Updated.
	entry   lockfile.Entry
	bytes   int64         // received from the network
	skipped []skippedFile // files of the source not written, and why
	// state records the stage as written, given its h1: hash, without the
	// files in omit (deleted from the stage since: see applyAudience).
	state func(hash string, omit map[string]bool) (*pkgState, error)
	// kept are the files of the new tree the stage lacks because the
	// package folder has them, as the old state records them (t.keep,
	// which a git fetch passes as gitengine's FetchRequest.Have).
	kept map[string]fileState
	// sums are the SHA-256 sums of the files the fetch wrote into the
	// stage, as it wrote them (gitengine's File.Sum), so the h1: hash
	// need not read them back; nil when the source gives none.
	sums map[string]string
}

type skippedFile struct{ path, reason string }

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

// sourceFor returns the fetcher of kind.
func (w *Workspace) sourceFor(kind string) (fetcher, error) {
	switch kind {
	case project.KindGit:
		return gitSource{w}, nil
	case project.KindHTTPS:
		return httpsSource{w}, nil
	}
	return nil, fmt.Errorf("ctx cannot fetch a %s source", kind)
}

// gitSource fetches git repositories through the task's Engine.
type gitSource struct{ w *Workspace }

// resolve asks gitengine's Resolve: the operation's Engine asks each remote
// for its refs once, and full commit SHAs need no network at all.
func (g gitSource) resolve(ctx context.Context, t *task) error {
	r, err := t.eng.Resolve(ctx, g.w.fetchURL(t.spec.Source), t.spec.Ref)
	t.rev, t.refName = r.Commit, r.Ref
	return err
}

func (g gitSource) fetch(ctx context.Context, t *task, stage string) (*fetched, error) {
	req := gitengine.FetchRequest{URL: g.w.fetchURL(t.specSource()), Commit: t.want, Ref: t.refName, Path: t.specPath()}
	if req.Ref == "" && t.spec != nil {
		req.Ref = t.spec.Ref // a commit id here names no ref, and gitengine finds none
	}
	if t.target != nil && t.target.Rev == t.want {
		// Installing what the lock pins: its tree can be fetched as it
		// is, in one request (gitengine's FetchRequest.Tree).
		req.Tree = t.target.Tree
	}
	if len(t.keep) > 0 {
		req.Have = func(p, blob string, mode fs.FileMode) bool {
			f, ok := t.keep[p]
			return ok && f.Blob == blob && f.Mode == mode
		}
		req.KnownSize = func(p, blob string) (int64, bool) {
			f, ok := t.keep[p]
			return f.Size, ok && f.Blob == blob && f.Mode.IsRegular()
		}
	}
	res, err := t.eng.Materialize(ctx, req, stage)
	if err != nil {
		return nil, err
	}
	f := &fetched{
		entry: lockfile.Entry{Kind: project.KindGit, Rev: res.Commit, Tree: res.TreeID},
		bytes: res.Bytes,
		kept:  map[string]fileState{},
	}
	f.sums = make(map[string]string, len(res.Files))
	for _, file := range res.Files {
		if file.Kept {
			f.kept[file.Path] = t.keep[file.Path]
		} else if file.Sum != "" {
			f.sums[file.Path] = file.Sum
		}
	}
	f.state = func(hash string, omit map[string]bool) (*pkgState, error) {
		return stateOf(stage, res, hash, omit, f.kept)
	}
	for _, s := range res.Skipped {
		f.skipped = append(f.skipped, skippedFile{s.Path, s.Reason})
	}
	return f, nil
}
