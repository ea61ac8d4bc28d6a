package registry

import (
	"fmt"
)

// MaxRegistries bounds the registries one Load or Check reads (or tries
// to), the root and its imports together: a registry that imports
// registries that import more (each new, up to the depth limit) would
// otherwise make one setup read millions of files.
const MaxRegistries = 100

// MaxContexts bounds the contexts one Load keeps, all registries together.
const MaxContexts = 10000

// loadBounds counts what the limits left out, so that each limit is one
// warning naming the registry where it was first passed, not a line per
// import.
type loadBounds struct {
	deep       int    // imports past the depth limit
	deepFirst  string // "registry R: import I"
	unread     int    // imports not read: MaxRegistries was reached
	unreadFrom Location
	unreadImp  Location
	dropped    int // contexts not kept: MaxContexts was reached
	droppedAt  Location
}

// tooDeep counts an import of loc past the depth limit (Load only; Check
// lists each as a problem).
func (st *loadState) tooDeep(loc, next Location) {
	if st.bounds.deep == 0 {
		st.bounds.deepFirst = fmt.Sprintf("registry %s: import %s", loc.shown(), next.shown())
	}
	st.bounds.deep++
}

// mayRead reports whether the import next (at field of loc) may be read:
// false once MaxRegistries registries were read or tried. Check records a
// problem at the first import refused.
func (st *loadState) mayRead(loc Location, field string, next Location) bool {
	if len(st.seen) < MaxRegistries {
		return true
	}
	if st.bounds.unread == 0 {
		st.bounds.unreadFrom, st.bounds.unreadImp = loc, next
		if st.check != nil {
			st.check.at(loc, field, fmt.Sprintf("import %s not read: the registry and its imports pass the limit of %d registries in all; import fewer registries", next.shown(), MaxRegistries))
		}
	}
	st.bounds.unread++
	return false
}

// keepContext reports whether a new context of the registry at loc may be
// kept: false once MaxContexts are. Check records a problem at the first
// one left out.
func (st *loadState) keepContext(loc Location) bool {
	if len(st.res.Contexts) < MaxContexts {
		return true
	}
	if st.bounds.dropped == 0 {
		st.bounds.droppedAt = loc
		if st.check != nil {
			st.check.at(loc, "contexts", fmt.Sprintf("the registry and its imports pass the limit of %d contexts in all: the contexts from here on are left out", MaxContexts))
		}
	}
	st.bounds.dropped++
	return false
}

// warnBounds sends one warning per limit passed (Load only).
func (st *loadState) warnBounds() {
	b := st.bounds
	if b.deep > 0 {
		more := ""
		if b.deep > 1 {
			more = fmt.Sprintf(" (and %d more imports)", b.deep-1)
		}
		st.warn("%s not loaded%s: the import depth limit (%d) is reached", b.deepFirst, more, st.max)
	}
	if b.unread > 0 {
		st.warn("registry %s: import %s not read, nor %d more: %s and its imports pass the limit of %d registries in all (ask the registry's owner to import fewer)",
			b.unreadFrom.shown(), b.unreadImp.shown(), b.unread-1, st.res.Root.shown(), MaxRegistries)
	}
	if b.dropped > 0 {
		st.warn("registry %s: %d contexts left out from here on: %s and its imports pass the limit of %d contexts in all (ask the registry's owner to offer fewer)",
			b.droppedAt.shown(), b.dropped, st.res.Root.shown(), MaxContexts)
	}
}
