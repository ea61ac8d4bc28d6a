package project

import (
	"github.com/ctx-dev/ctx/gitengine"
)

// PrivateAllowed is the rule of whose word lets a git source's fetch reach
// origin (gitengine.Origin's scheme://host:port: its remote's, or a
// redirect's) on the private network (loopback, private, link-local and
// the other addresses internal/netguard refuses), as https's
// allowPrivateNetwork: a spec of the user's own (Local, from
// context.local.json) anywhere; a committed one, or a lock entry the
// manifest no longer names (s nil), only where the user allowed the
// private network for that origin (AllowWeb, an entry with
// privateNetwork: GitPrivateAllow's). The committed manifest comes with a
// clone, and must never make ctx reach the user's own network
// (http://169.254.169.254/, a service on 127.0.0.1) on a teammate's
// word; the workspace keeps the fetch to it (gitengine.Engine.Guarded).
func (m *Manifest) PrivateAllowed(s *PackageSpec, origin string) bool {
	if s != nil && s.Local {
		return true
	}
	return m.AllowsWeb(WebAllow{Origin: origin, PrivateNetwork: true})
}

// GitPrivateAllow is the allowance that lets git spec s reach the private
// network at the origin of its source (PrivateAllowed): what `ctx install
// --allow-outside` records for a committed one, and `ctx add` for a source
// the user typed there. ok is false for no git spec, or one whose source
// is on this machine.
func GitPrivateAllow(s PackageSpec) (WebAllow, bool) {
	if s.KindOf() != KindGit {
		return WebAllow{}, false
	}
	origin, ok := gitengine.Origin(s.Source)
	if !ok {
		return WebAllow{}, false
	}
	return WebAllow{Origin: origin, PrivateNetwork: true}, true
}
