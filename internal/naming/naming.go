// Package naming owns ctx's naming rules: what an alias is and how one is
// derived from a name, which relative paths are safe, what a local source
// is, and the name of a remote's object cache. It does no I/O and imports no
// other ctx package, so that the lock validator, registry, gitengine,
// mcpserver, workspace and wizard can all call it instead of keeping copies.
//
// The doc comment of each function is the specification of its rule. The
// path rules follow golang.org/x/mod/module: every Check function goes
// through one checkPath(path, kind) and checkElem(elem, kind), and only the
// kind says where they differ.
package naming
