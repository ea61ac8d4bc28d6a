// Package naming owns ctx's naming rules: what an alias is and how one is
// derived from a name, which relative paths are safe, what a local source
// is, the name of a remote's object cache, and a revision's short form. It does no I/O and imports no
// other ctx package, so that the lock validator, registry, gitengine,
// mcpserver, workspace and wizard can all call it instead of keeping copies.
//
// The doc comment of each function is the specification of its rule. The
// path rules follow golang.org/x/mod/module: every Check function goes
// through one checkPath(path, kind) and checkElem(elem, kind), and only the
// kind says where they differ.
package naming

import "strings"

// ShortRev is the short form of a lock revision, as people and agents are
// shown it: a git commit's first n hex digits; an https snapshot's
// "sha256:" and the first 12 digits of its digest, whatever n (a
// revision's kind is in its form: lockfile's rule).
func ShortRev(rev string, n int) string {
	if h, ok := strings.CutPrefix(rev, "sha256:"); ok {
		return "sha256:" + h[:min(len(h), 12)]
	}
	return rev[:min(len(rev), max(n, 0))]
}
