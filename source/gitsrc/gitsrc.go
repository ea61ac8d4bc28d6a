// Package gitsrc is the git source kind: a git URL or local repository,
// `path` a sub-folder, `ref` a branch, tag or commit; fetched sparse and
// shallow into packages/<alias>, locked by commit and the sub-path's tree.
package gitsrc

import (
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
	var meta []string
	if o.Source != "" {
		meta = append(meta, code(o.Source))
	}
	if o.Path != "" && o.Path != "." {
		meta = append(meta, "path "+code(o.Path))
	}
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
