// Package lazyre compiles a package-level regular expression on its first
// use instead of at process start (issue 31): every command pays each
// package's init, and most commands use few of ctx's regexps. It is the
// one way ctx declares a package-level regexp.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr on its first call (once per
// process; safe for concurrent use) and returns the same *regexp.Regexp
// on every call. An invalid expr panics there, as regexp.MustCompile
// would at init; this package's TestModuleExpressionsCompile compiles
// every New of the module's source before any use, so expr must be a
// string literal (or literals joined with +).
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
