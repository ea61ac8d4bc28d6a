// Package lazyre compiles a package-level regular expression on its first
// use instead of at process start (issue 31): every command pays each
// package's init, and most commands use few of ctx's regexps. It is the
// one way ctx declares a package-level regexp.
package lazyre

import (
	"regexp"
	"sync"
)

var (
	mu    sync.Mutex
	exprs []string
)

// New returns a function that compiles expr on its first call (once per
// process; safe for concurrent use) and returns the same *regexp.Regexp
// on every call. An invalid expr panics there, as regexp.MustCompile
// would at init; CheckAll finds one in a test before any use.
func New(expr string) func() *regexp.Regexp {
	mu.Lock()
	exprs = append(exprs, expr)
	mu.Unlock()
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// CheckAll compiles every expression New was given in this process (the
// packages linked into the test binary), and returns the first error.
func CheckAll() error {
	mu.Lock()
	defer mu.Unlock()
	for _, e := range exprs {
		if _, err := regexp.Compile(e); err != nil {
			return err
		}
	}
	return nil
}
