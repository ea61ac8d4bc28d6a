package wizard

import (
	"context"

	"github.com/ctx-dev/ctx/ctxref"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/registry"
)

// RefPackages is what the name of a reference (ctxref) means in a project
// with manifest man, installed packages installed (project.Installed) and
// registry reg (nil: none): each installed alias; each name the manifest
// has but that is not installed (Pending); and each registry context by
// its name and by the alias setup would give it (naming.AliasFrom):
// installed or pending when the manifest has its source and path (under
// whatever alias), else offered. An alias always wins over a registry name.
func RefPackages(man project.Manifest, installed []project.Package, reg *registry.Result) ctxref.Packages {
	pk := ctxref.Packages{Installed: map[string]ctxref.Package{}, Pending: map[string]string{}, Offered: map[string]string{}}
	byAlias := map[string]project.Package{}
	for _, p := range installed {
		byAlias[p.Alias] = p
		pk.Installed[p.Alias] = refPackage(p)
	}
	const pending = "is in the manifest but not installed: run `ctx install`"
	for _, s := range man.Packages {
		if _, ok := byAlias[s.Alias]; !ok {
			pk.Pending[s.Alias] = pending
		}
	}
	if reg == nil {
		return pk
	}
	known := func(name string) bool {
		_, i := pk.Installed[name]
		_, p := pk.Pending[name]
		_, o := pk.Offered[name]
		return i || p || o
	}
	aliases := installedAliases(man, reg.Contexts)
	for i, c := range reg.Contexts {
		for _, name := range []string{c.Name, naming.AliasFrom(c.Name)} {
			if known(name) {
				continue
			}
			alias, inManifest := aliases[i]
			switch p, ok := byAlias[alias]; {
			case ok:
				pk.Installed[name] = refPackage(p)
			case inManifest:
				pk.Pending[name] = pending
			default:
				pk.Offered[name] = c.Name
			}
		}
	}
	return pk
}

// refPackage is what ctxref.Classify needs of installed package p.
func refPackage(p project.Package) ctxref.Package {
	r := ctxref.Package{Alias: p.Alias, Dir: p.Dir, Only: p.Only}
	if p.Withheld != "" {
		r.Withheld = func(rel string) (string, bool) {
			if !p.Withholds(rel) {
				return "", false
			}
			return p.WithheldNote(rel), true
		}
	}
	return r
}

// RefSpecs are the specs that install the registry contexts named (as in
// ctxref.Result.Context), one per name in order (a name twice or not in
// reg is left out), with the aliases setup would give them:
// naming.AliasFrom of the name, numbered when the manifest has it already.
func RefSpecs(man project.Manifest, reg *registry.Result, names []string) []project.PackageSpec {
	taken := map[string]bool{}
	for _, p := range man.Packages {
		taken[naming.AliasKey(p.Alias)] = true
	}
	byName := map[string]registry.Context{}
	for _, c := range reg.Contexts {
		if _, ok := byName[c.Name]; !ok {
			byName[c.Name] = c.Context
		}
	}
	var specs []project.PackageSpec
	for _, n := range names {
		if c, ok := byName[n]; ok {
			delete(byName, n)
			specs = append(specs, SpecOf(c, naming.UniqueAlias(naming.AliasFrom(n), taken)))
		}
	}
	return specs
}

// RefsUnreadable checks access to the registry contexts named (as in
// ctxref.Result.Context), each repository once, as setup does before it
// installs. It returns why each one the server says cannot be read cannot,
// by name (ctxref.Packages.Unreadable), and apart from those why each one
// whose check could not be made failed (offline, a timeout): those are not
// known to be unreadable, so they stay installable.
func RefsUnreadable(ctx context.Context, access AccessChecker, reg *registry.Result, names []string) (unreadable, unchecked map[string]string) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var idx []int
	for i, c := range reg.Contexts {
		if want[c.Name] {
			delete(want, c.Name)
			idx = append(idx, i)
		}
	}
	unreadable, unchecked = map[string]string{}, map[string]string{}
	for i, err := range checkAccess(ctx, access, reg.Contexts, idx, Options{}) {
		if definiteDenial(err) {
			unreadable[reg.Contexts[i].Name] = accessReason(err)
		} else {
			unchecked[reg.Contexts[i].Name] = accessReason(err)
		}
	}
	return unreadable, unchecked
}
