// Package source is what a source kind is: the Kind interface each kind's
// package implements (source/gitsrc, source/httpsrc, source/dirsrc), and
// the Spec a manifest names a package with. The table of the kinds is
// source/kinds, one line per kind; everyone asks it, not a switch of their
// own.
//
// A kind owns its spec's rules (CheckSpec), what its lock entry pins
// (CheckPin), how a revision is called (RevNoun) and its provenance
// (Provenance); a Locked kind also resolves a spec and fetches a revision
// into a stage folder (Fetcher), within its spec's limits. Staging, the
// journal, the swap, the h1: check and the dirty guard are the
// workspace's, the same for every kind.
package source

import (
	"time"

	"github.com/ctx-dev/ctx/internal/jsonfile"
)

// Kind is one source kind.
type Kind interface {
	// Name is the kind's name in a spec's and a lock entry's "kind".
	Name() string
	// Locked reports whether a package of this kind is fetched into
	// packages/<alias> and pinned by the lock; a kind that is not is
	// live: indexed and served where it is (dir).
	Locked() bool
	// CheckSpec returns what is wrong with s for this kind, each with its
	// field in the spec ("source", "limits.maxTotalBytes"). The rules
	// every kind shares (alias, path, ref names) are the manifest's.
	CheckSpec(s Spec) []jsonfile.Error
	// CheckPin returns what is wrong with what a lock entry of this kind
	// pins: its rev and tree (fields "rev" and "tree"). Only a Locked
	// kind is asked.
	CheckPin(rev, tree string) []jsonfile.Error
	// RevNoun is what a revision of this kind is called in messages
	// ("commit", "content").
	RevNoun() string
	// Provenance is where a package's files come from, in the kind's
	// terms, as INDEX.md's package line shows it: phrases, each value in
	// a code span made by code.
	Provenance(o Origin, code func(string) string) []string
}

// Origin is what Provenance is told of a package: its spec's source, path
// and ref, what its lock entry pins (Rev, Fetched), and for a live package
// its place in the project as INDEX.md names it (Place).
type Origin struct {
	Source, Path, Ref string
	Rev               string
	Fetched           time.Time
	Place             string
}

// Where is how a fetched package's Provenance begins: its source, and
// its path inside it unless that is the whole source.
func (o Origin) Where(code func(string) string) []string {
	var meta []string
	if o.Source != "" {
		meta = append(meta, code(o.Source))
	}
	if o.Path != "" && o.Path != "." {
		meta = append(meta, "path "+code(o.Path))
	}
	return meta
}

// Fields are the spec's fields that only some kinds have.
type Fields uint8

const (
	FieldRef                 Fields = 1 << iota // ref (git)
	FieldTTL                                    // ttl (https)
	FieldAllowPrivateNetwork                    // allowPrivateNetwork (https)
	FieldTokenEnv                               // tokenEnv (https)
	FieldLimits                                 // limits (https, dir)
)

// Foreign returns an error for each field of s that only other kinds
// have: a kind's CheckSpec calls it with the fields it has (own). Each
// message names the kinds that have the field; a kind that adds one to
// its own fields changes its message here.
func Foreign(s Spec, own Fields) []jsonfile.Error {
	var errs []jsonfile.Error
	bad := func(f Fields, set bool, name, msg string) {
		if set && own&f == 0 {
			errs = append(errs, jsonfile.Error{Field: name, Msg: msg})
		}
	}
	bad(FieldRef, s.Ref != "", "ref", "only a git source has a ref")
	bad(FieldTTL, s.TTL != "", "ttl", "only an https source has a ttl")
	bad(FieldAllowPrivateNetwork, s.AllowPrivateNetwork, "allowPrivateNetwork", "only an https source fetches over the network this way")
	bad(FieldTokenEnv, s.TokenEnv != "", "tokenEnv", "only an https source sends a token this way (git uses your git credentials)")
	bad(FieldLimits, s.Limits != nil, "limits", "only https and dir sources have limits")
	return errs
}
