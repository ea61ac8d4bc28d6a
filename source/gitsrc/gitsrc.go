// Package gitsrc is the git source kind: a git URL or local repository,
// `path` a sub-folder, `ref` a branch, tag or commit; fetched sparse and
// shallow into packages/<alias>, locked by commit and the sub-path's tree.
package gitsrc

import (
	"context"
	"io/fs"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/source"
)

// Name is the kind's name; a spec or entry naming no kind is git.
const Name = source.DefaultKind

// Kind is the git kind.
type Kind struct{}

var _ source.Kind = Kind{}

func (Kind) Name() string    { return Name }
func (Kind) Locked() bool    { return true }
func (Kind) RevNoun() string { return "commit" }

// CheckSpec: any source and sub-path (the manifest's rules, and
// project.CheckSource for a local one) and a ref; none of the other kinds'
// settings.
func (Kind) CheckSpec(s source.Spec) []jsonfile.Error {
	return source.Foreign(s, source.FieldRef)
}

// CheckPin: a git entry pins a commit and the sub-path's tree.
func (Kind) CheckPin(rev, tree string) []jsonfile.Error {
	var errs []jsonfile.Error
	if !lockfile.IsObjectID(rev) {
		errs = append(errs, jsonfile.Error{Field: "rev", Msg: safetext.Quote(rev) + " must be a git commit: 40 lower-case hexadecimal digits"})
	}
	if !lockfile.IsObjectID(tree) {
		errs = append(errs, jsonfile.Error{Field: "tree", Msg: safetext.Quote(tree) + " must be a git tree id: 40 lower-case hexadecimal digits"})
	}
	return errs
}

// Provenance: its source, path, ref (or the default branch) and short
// commit.
func (Kind) Provenance(o source.Origin, code func(string) string) []string {
	meta := o.Where(code)
	if o.Ref != "" {
		meta = append(meta, "ref "+code(o.Ref))
	} else if o.Source != "" {
		meta = append(meta, "default branch")
	}
	if o.Rev != "" {
		meta = append(meta, "commit "+code(naming.ShortRev(o.Rev, 7)))
	}
	return meta
}

var _ source.Fetcher = Kind{}

// Resolve asks gitengine's Resolve: the operation's Engine asks each
// remote for its refs once, and full commit SHAs need no network at all.
func (Kind) Resolve(ctx context.Context, env source.Env, r source.Request) (source.Resolved, error) {
	res, err := env.Git.Resolve(ctx, env.FetchURL(r.Spec.Source), r.Spec.Ref)
	return source.Resolved{Rev: res.Commit, Ref: res.Ref}, err
}

// Fetch materializes the commit's sub-path sparse and shallow
// (gitengine's Materialize), without the files the package folder has.
func (Kind) Fetch(ctx context.Context, env source.Env, r source.Request, stage string) (*source.Fetched, error) {
	src, sub := "", ""
	switch {
	case r.Target != nil:
		src, sub = r.Target.Source, r.Target.Path
	case r.Spec != nil:
		src, sub = r.Spec.Source, r.Spec.Path
	}
	req := gitengine.FetchRequest{URL: env.FetchURL(src), Commit: r.Want, Ref: r.Ref, Path: sub}
	if req.Ref == "" && r.Spec != nil {
		req.Ref = r.Spec.Ref // a commit id here names no ref, and gitengine finds none
	}
	if r.Target != nil && r.Target.Rev == r.Want {
		// Installing what the lock pins: its tree can be fetched as it
		// is, in one request (gitengine's FetchRequest.Tree).
		req.Tree = r.Target.Tree
	}
	if len(r.Have) > 0 {
		req.Have = func(p, blob string, mode fs.FileMode) bool {
			f, ok := r.Have[p]
			return ok && f.Blob == blob && f.Mode == mode
		}
		req.KnownSize = func(p, blob string) (int64, bool) {
			f, ok := r.Have[p]
			return f.Size, ok && f.Blob == blob && f.Mode.IsRegular()
		}
	}
	res, err := env.Git.Materialize(ctx, req, stage)
	if err != nil {
		return nil, err
	}
	f := &source.Fetched{
		Entry: lockfile.Entry{Kind: Name, Rev: res.Commit, Tree: res.TreeID},
		Bytes: res.Bytes,
		Files: make([]source.File, len(res.Files)),
		Sums:  make(map[string]string, len(res.Files)),
	}
	for i, file := range res.Files {
		f.Files[i] = source.File{Path: file.Path, Blob: file.BlobID, Kept: file.Kept}
		if !file.Kept && file.Sum != "" {
			f.Sums[file.Path] = file.Sum
		}
	}
	for _, s := range res.Skipped {
		f.Skipped = append(f.Skipped, source.Skipped{Path: s.Path, Reason: s.Reason})
	}
	return f, nil
}
