// Package dirsrc is the dir source kind: a local file or folder (relative
// to the project root, or absolute), indexed and served in place; never
// copied or locked, the project's own git versions it. Where one may point
// is project.CheckSource; its walk, indexer.WalkOptions.
package dirsrc

import (
	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/source"
)

// Name is the kind's name.
const Name = "dir"

// Kind is the dir kind.
type Kind struct{}

var _ source.Kind = Kind{}

func (Kind) Name() string    { return Name }
func (Kind) Locked() bool    { return false }
func (Kind) RevNoun() string { return "commit" }

// CheckSpec: a local path with no sub-path and no audience; of the limits
// only maxFiles and maxTotalBytes (the bounds of its walk).
func (Kind) CheckSpec(s source.Spec) []jsonfile.Error {
	var errs []jsonfile.Error
	bad := func(name, msg string) { errs = append(errs, jsonfile.Error{Field: name, Msg: msg}) }
	if !naming.IsLocalPath(s.Source) {
		bad("source", safetext.Quote(s.Source)+" is not a local file or folder: a dir source is a path (relative to the project root, or absolute)")
	}
	if s.Path != "" {
		bad("path", "a dir source has no sub-path: name the folder itself as the source")
	}
	if s.Audience != "" {
		bad("audience", "a dir source is served in place, whatever its documents' audience rules say; audience applies to git and https sources")
	}
	if l := s.Limits; l != nil && (l.MaxBytes != 0 || l.MaxArchiveBytes != 0 || l.MaxPages != 0 || l.Timeout != "" || l.MaxRedirects != 0) {
		bad("limits", "a dir source has only the limits maxFiles and maxTotalBytes (the bounds of its walk)")
	}
	return append(errs, source.Foreign(s, source.FieldLimits)...)
}

// CheckPin is never asked: a dir source is not locked.
func (Kind) CheckPin(string, string) []jsonfile.Error {
	return []jsonfile.Error{{Field: "kind", Msg: "a dir source is never locked"}}
}

// Provenance: its place in the project, live.
func (Kind) Provenance(o source.Origin, code func(string) string) []string {
	return []string{code(o.Place), "live from the project (no commit)"}
}
