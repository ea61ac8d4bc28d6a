package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/netguard"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/project"
)

// gitEngine is eng labelled with alias for the git fetches of spec s (nil:
// a lock entry the manifest does not name, whose source is locked), kept
// off the private network but where project's rule allows
// (Manifest.PrivateAllowed: anywhere for the user's own spec, for a
// committed one only the origins the user allowed); a refusal says where
// the spec is and how to allow it.
func (w *Workspace) gitEngine(eng *gitengine.Engine, alias string, s *project.PackageSpec, locked string) *gitengine.Engine {
	e := eng.WithLabel(alias)
	if s != nil && s.Local {
		return e
	}
	m := w.manifest
	return e.Guarded(gitengine.Guard{
		Allowed: func(origin string) bool { return m.PrivateAllowed(s, origin) },
		Hint:    privateHint(m, alias, s, locked),
	})
}

// privateHint is what a committed spec's refusal on the private network
// says to do: `ctx install --allow-outside ALIAS`, which records the
// manifest spec's origin; for a lock entry the manifest does not name
// (that command does not take it, or records another source's origin),
// the allowWeb entry to write for the locked source's origin.
func privateHint(m project.Manifest, alias string, s *project.PackageSpec, locked string) string {
	const why = "a clone may reach your private network (loopback, private and link-local addresses) only at an origin you allowed"
	if s != nil {
		return fmt.Sprintf("%s is committed, and %s; if you put it there yourself, allow it: `ctx install --allow-outside %s` (recorded in %s, which is not committed, for that origin only)",
			m.Where(*s), why, alias, project.Rel(project.LocalName))
	}
	entry := "its origin"
	if origin, ok := gitengine.Origin(locked); ok {
		q, _ := json.Marshal(origin)
		entry = fmt.Sprintf(`{"origin": %s, "privateNetwork": true}`, q)
	}
	return fmt.Sprintf("%s: package %s is committed in the lock but not named with this source in %s, and %s; `ctx install --allow-outside` takes the manifest's packages only: if you trust this source, add %s to \"allowWeb\" in %s (not committed)",
		project.Rel(project.LockName), safetext.Quote(alias), project.Rel(project.ManifestName), why, entry, project.Rel(project.LocalName))
}

// addEngine is eng for a git spec the user typed (ctx add): the user's
// word is for the origin typed, on the private network too (privateAllow
// records it with the spec), not for where its server redirects. A
// redirect to another origin on the private network is refused, as the
// next install of the added spec refuses it (red20, round 18's leftover:
// add followed it and recorded the typed origin only, so the same user's
// next install without the cache failed, with advice that changed
// nothing). A spec on this machine is not guarded.
func (w *Workspace) addEngine(eng *gitengine.Engine, s project.PackageSpec) *gitengine.Engine {
	e := eng.WithLabel(s.Alias)
	typed, ok := gitengine.Origin(s.Source)
	if s.Local || !ok || s.KindOf() != project.KindGit {
		return e
	}
	m := w.manifest
	return e.Guarded(gitengine.Guard{
		Allowed: func(origin string) bool { return origin == typed || m.PrivateAllowed(&s, origin) },
	})
}

// registryEngine is eng for the specs of a registry the user did not name
// (AddOptions.NoAllowOutside: the manifest's): kept off the private
// network but where the user allowed, as a committed spec's.
func (w *Workspace) registryEngine(eng *gitengine.Engine, s project.PackageSpec) *gitengine.Engine {
	g := w.ManifestRegistryGuard()
	g.Hint = fmt.Sprintf("you did not name it: the registry the manifest names did, and your private network is reached only on your word; if it is yours, add it with `%s`, or name the registry yourself (--registry)",
		addCommand(s))
	return eng.WithLabel(s.Alias).Guarded(g)
}

// ManifestRegistryGuard is the Guard of what the registry the committed
// manifest names (not one the user named: setup or refs --fetch without
// --registry) makes ctx reach: the registry itself and the repositories it
// offers (setup's access checks), off the private network but at the
// origins the user allowed (project.Manifest.PrivateAllowed, as a
// committed spec's).
func (w *Workspace) ManifestRegistryGuard() gitengine.Guard {
	m := w.manifest
	return gitengine.Guard{
		Allowed: func(origin string) bool { return m.PrivateAllowed(nil, origin) },
		Hint:    "you did not name it: the registry the manifest names did, and your private network is reached only on your word; name the registry yourself (--registry)",
	}
}

// privateAllow is what `ctx add` of git spec s (the user typed it, or a
// registry the user named offered it) records so that the committed spec
// keeps reaching its host on the private network (project.GitPrivateAllow),
// when its host is there (internal/netguard's rule, after DNS); ok is false
// for a public host, one that does not resolve, or a spec that needs none.
func (w *Workspace) privateAllow(ctx context.Context, s project.PackageSpec) (project.WebAllow, bool) {
	want, ok := project.GitPrivateAllow(s)
	if !ok || s.Local || w.manifest.AllowsWeb(want) {
		return project.WebAllow{}, false
	}
	u, err := url.Parse(want.Origin)
	if err != nil {
		return project.WebAllow{}, false
	}
	_, err = netguard.Resolve(ctx, u.Hostname())
	var ae *netguard.AddrError
	if !errors.As(err, &ae) {
		return project.WebAllow{}, false
	}
	return want, true
}

// PrivateNotAllowed returns those of aliases whose committed git spec
// reaches its host on the private network at an origin the user has not
// allowed (privateAllow's rule: what `ctx install --allow-outside ALIAS`
// would record), in the order given. Setup says so when it changes
// nothing: naming the registry allows only what setup adds.
func (w *Workspace) PrivateNotAllowed(ctx context.Context, aliases []string) []string {
	var out []string
	for _, a := range aliases {
		if s, ok := w.manifest.Spec(a); ok {
			if _, need := w.privateAllow(ctx, s); need {
				out = append(out, a)
			}
		}
	}
	return out
}
