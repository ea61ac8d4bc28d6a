package registry

import (
	"fmt"
	"strings"

	"github.com/ctx-dev/ctx/internal/safetext"
)

// ContextRefKey is ContextKey with the ref: the identity of a context in
// a merged registry. The same folder at two refs (a hub offering release 1
// and the current docs) is two contexts, as a lock entry is per ref.
func ContextRefKey(repo, p, ref string) string {
	return ContextKey(repo, p) + "@" + strings.TrimSpace(ref)
}

// mergeKey is e's ContextRefKey: Load merges contexts with the same one.
func mergeKey(e Entry) string { return ContextRefKey(e.Source(), e.Path, e.Ref) }

// sameFileTwice handles context ci of the registry at loc when it has the
// same source, path and ref as context i that the same file listed first
// under another name: not one source reached twice through imports (merged
// silently) but a copy in one file, whose second name would vanish. It is
// a problem for Check, a warning for Load; the first is kept. It reports
// whether it handled c (false: merge as usual).
func (st *loadState) sameFileTwice(loc Location, ci, i int, c Context) bool {
	first := st.res.Contexts[i]
	if first.From != loc.String() || strings.EqualFold(first.Name, c.Name) {
		return false
	}
	if st.check != nil {
		st.check.at(loc, fmt.Sprintf("contexts[%d]", ci), fmt.Sprintf("context %s has the same source, path and ref as %s in this file: remove one, or give one another path or ref",
			safetext.Quote(c.Name), safetext.Quote(first.Name)))
		return true
	}
	st.warn("registry %s: context %s has the same source, path and ref as %s; keeping %s (ask the registry's owner to remove one)",
		loc.shown(), safetext.Quote(c.Name), safetext.Quote(first.Name), safetext.Quote(first.Name))
	return true
}
