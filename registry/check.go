package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/safetext"
)

// CheckReport is what Check found in a registry and its imports.
type CheckReport struct {
	// Loaded lists every registry read, each once: the valid ones in
	// order, then the invalid imports (an invalid root comes first).
	Loaded []Location
	// Contexts counts the contexts of the merged registry.
	Contexts int
	// Problems are what makes the registry wrong, each at its place
	// (file:line:col and field) when it has one: a file that does not
	// parse or breaks the schema, names used twice (in a file, or across
	// a registry and its imports), an import that cannot be read or is
	// invalid, a cycle of imports, one past the depth limit.
	Problems []Problem
	// Warnings are what Load would also warn of that is not wrong (fields
	// ctx does not read: a typo?).
	Warnings []string
}

// checkState is Check's part of a loadState.
type checkState struct {
	res  *CheckReport
	data map[string][]byte // each registry's bytes, by Location.Key
	path []Location        // the registries being walked, root first
	// invalid lists the registries read that are not valid: read all
	// the same (CheckReport.Loaded counts them).
	invalid []Location
	// unplaced lists, per registry (Location.Key), the problems that at
	// recorded without their place yet (indexes in res.Problems): place
	// finds them all in one reading of each file.
	unplaced map[string][]int
}

// at records a problem at field of the registry at loc; its line and
// column are found by place.
func (c *checkState) at(loc Location, field, msg string) {
	if c.unplaced == nil {
		c.unplaced = map[string][]int{}
	}
	c.unplaced[loc.Key()] = append(c.unplaced[loc.Key()], len(c.res.Problems))
	c.res.Problems = append(c.res.Problems, Problem{File: loc.String(), Field: field, Msg: msg})
}

// place gives the problems at recorded their line and column: one
// reading of each registry whatever the number of its problems (a Find
// per problem read a file of 10,000 contexts 10,000 times, red19).
func (c *checkState) place() {
	for key, idx := range c.unplaced {
		paths := make([][]string, len(idx))
		for i, pi := range idx {
			paths[i] = jsonfile.SplitPath(c.res.Problems[pi].Field)
		}
		for i, pos := range jsonfile.Positions(c.data[key], paths) {
			c.res.Problems[idx[i]].Line, c.res.Problems[idx[i]].Col = pos.Line, pos.Col
		}
	}
	c.unplaced = nil
}

// cycle records a problem when the import at field of loc leads back to
// a registry being walked (a cycle); an import read before on another
// path (a diamond) is fine.
func (c *checkState) cycle(loc Location, field string, next Location) {
	for i, p := range c.path {
		if p.Key() != next.Key() {
			continue
		}
		var names []string
		for _, q := range c.path[i:] {
			names = append(names, q.shown())
		}
		names = append(names, next.shown())
		c.at(loc, field, fmt.Sprintf("a cycle of imports: %s; remove one of these imports", strings.Join(names, " → ")))
		return
	}
}

// listed is a file's problems as Check reports them: those pe lists,
// then, when it left some out (jsonfile.MaxErrors), one that counts them.
func listed(loc Location, pe *ParseError) []Problem {
	ps := slices.Clone(pe.Errors)
	if pe.More > 0 {
		ps = append(ps, Problem{File: loc.String(), Msg: fmt.Sprintf("… and %d more problems", pe.More)})
	}
	return ps
}

// imported records an import that could not be read or is invalid: the
// import's line, then, for an invalid file, each of its own problems.
func (c *checkState) imported(loc Location, field string, next Location, err error) {
	var pe *ParseError
	if errors.As(err, &pe) {
		c.invalid = append(c.invalid, next)
		c.at(loc, field, fmt.Sprintf("import %s is not a valid registry (its problems follow)", next.shown()))
		c.res.Problems = append(c.res.Problems, listed(next, pe)...)
		return
	}
	c.at(loc, field, fmt.Sprintf("import %s cannot be read: %s", next.shown(), safetext.Clip(err.Error(), safetext.MaxLine)))
}

// Check reads the registry at location and every registry it imports as
// Load does, but strictly, for a hub's CI: what Load skips with a warning
// is a problem of the report, at its file:line:col. err is for a location
// that is not one (a file that does not exist, say) and for ctx ending; a
// root that cannot be read or is invalid is a problem.
func (l *Loader) Check(ctx context.Context, location string) (*CheckReport, error) {
	root, err := ParseLocation(location)
	if err != nil {
		return nil, err
	}
	rep := &CheckReport{}
	st := &loadState{l: l, res: &Result{Root: root}, seen: map[string]bool{}, byKey: map[string]int{}, byName: map[string]int{},
		check: &checkState{res: rep, data: map[string][]byte{}}}
	st.max = l.MaxDepth
	if st.max <= 0 {
		st.max = DefaultMaxDepth
	}
	reg, err := st.read(ctx, root)
	if err == nil {
		err = st.walk(ctx, root, reg, 0)
	}
	st.check.place()
	rep.Loaded, rep.Contexts, rep.Warnings = append(st.res.Loaded, st.check.invalid...), len(st.res.Contexts), st.res.Warnings
	if cerr := ctx.Err(); cerr != nil {
		return rep, cerr
	}
	var pe *ParseError
	switch {
	case errors.As(err, &pe):
		rep.Loaded = append([]Location{root}, rep.Loaded...) // read, but not valid
		rep.Problems = append(listed(root, pe), rep.Problems...)
	case err != nil:
		rep.Problems = append([]Problem{{File: root.String(), Msg: safetext.Clip(err.Error(), safetext.MaxLine)}}, rep.Problems...)
	}
	return rep, nil
}
