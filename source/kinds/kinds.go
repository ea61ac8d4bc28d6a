// Package kinds is the table of the source kinds: adding a kind is its
// package (source/KIND) and one line here. Everyone who needs a kind's
// rule asks Of, not a switch of their own.
package kinds

import (
	"fmt"
	"strings"

	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/source"
	"github.com/ctx-dev/ctx/source/dirsrc"
	"github.com/ctx-dev/ctx/source/gitsrc"
	"github.com/ctx-dev/ctx/source/httpsrc"
)

// all are the kinds, in the order help texts name them.
var all = [...]source.Kind{
	gitsrc.Kind{},
	dirsrc.Kind{},
	httpsrc.Kind{},
}

// Of returns the kind named name ("" is source.DefaultKind).
func Of(name string) (source.Kind, bool) {
	if name == "" {
		name = source.DefaultKind
	}
	for _, k := range all {
		if k.Name() == name {
			return k, true
		}
	}
	return nil, false
}

// Names are the kinds' names, in the order help texts name them.
func Names() []string {
	out := make([]string, len(all))
	for i, k := range all {
		out[i] = k.Name()
	}
	return out
}

// LockedNames are the names of the kinds a lock entry may have.
func LockedNames() []string {
	var out []string
	for _, k := range all {
		if k.Locked() {
			out = append(out, k.Name())
		}
	}
	return out
}

// CheckSpec checks s by its kind's rules: an unknown kind is the one
// error, each other is its kind's CheckSpec. field prefixes the fields
// named ("packages[2]." in a manifest).
func CheckSpec(s source.Spec, field string) []jsonfile.Error {
	k, ok := Of(s.Kind)
	if !ok {
		return []jsonfile.Error{{Field: field + "kind", Msg: oneOf(s.Kind, Names())}}
	}
	errs := k.CheckSpec(s)
	for i := range errs {
		errs[i].Field = field + errs[i].Field
	}
	return errs
}

// CheckPin checks what a lock entry of kind pins (lockfile.Parse's
// PinCheck): the kind must be a locked one, and its rev and tree what the
// kind's CheckPin allows.
func CheckPin(kind, rev, tree string) []jsonfile.Error {
	k, ok := Of(kind)
	if !ok || !k.Locked() {
		return []jsonfile.Error{{Field: "kind", Msg: oneOf(kind, LockedNames())}}
	}
	return k.CheckPin(rev, tree)
}

// RevNoun is what a revision of kind is called in messages ("commit" for
// a kind not known).
func RevNoun(kind string) string {
	if k, ok := Of(kind); ok {
		return k.RevNoun()
	}
	return "commit"
}

func oneOf(v string, names []string) string {
	return fmt.Sprintf("%s must be one of: %s", safetext.Quote(v), strings.Join(names, ", "))
}
