package workspace

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/suggest"
)

// ErrUnknownPackage is wrapped by every error about a package alias the
// project does not have (update, outdated, remove, push, changes): a bad
// argument, which the command line reports with exit code 2.
var ErrUnknownPackage = errors.New("no such package")

// ErrBadSpec is wrapped by Add's error for specs it cannot add as given
// (a source that does not exist, a bad field, an alias already used):
// the user's input, which the command line reports with exit code 2.
var ErrBadSpec = errors.New("bad package spec")

// badSpecError is that error: the problems (errors.Join: one a line),
// each reachable by errors.As.
type badSpecError struct{ err error }

func (e *badSpecError) Error() string        { return e.err.Error() }
func (e *badSpecError) Unwrap() error        { return e.err }
func (e *badSpecError) Is(target error) bool { return target == ErrBadSpec }

// unknownPackageError is unknownPackages' error: it says which aliases,
// where ctx looked, the names they may be a typo of (internal/suggest, as
// search's --package says it), and where to look.
type unknownPackageError struct{ msg string }

// cliListing is where unknownPackageError's message sends the user.
const cliListing = "see `ctx list`"

func (e *unknownPackageError) Error() string        { return e.msg + "; " + cliListing }
func (e *unknownPackageError) Is(target error) bool { return target == ErrUnknownPackage }

// unknownPackages is the one error for typed aliases none of known is:
// "no package "x" (did you mean y?) in WHERE; see `ctx list`", where names
// what was looked in, such as .context/context.config.json.
func unknownPackages(typed, known []string, where string) error {
	known = slices.Clone(known)
	slices.Sort(known)
	known = slices.Compact(known)
	named := make([]string, len(typed))
	for i, a := range typed {
		named[i] = safetext.Quote(a) + suggest.Hint(a, known)
	}
	return &unknownPackageError{msg: fmt.Sprintf("no package %s in %s", strings.Join(named, ", "), where)}
}

// UnknownPackageMessage is err's message, when err is about an unknown
// package alias, for a caller whose user lists packages otherwise than
// with `ctx list` (the MCP server: "call list_contexts …"): listing in
// its place. ok is false for any other error.
func UnknownPackageMessage(err error, listing string) (msg string, ok bool) {
	var u *unknownPackageError
	if !errors.As(err, &u) {
		return "", false
	}
	return u.msg + "; " + listing, true
}
