// Package lockfile reads and writes .context/context.lock: per package alias,
// the exact commit, sub-path tree id and content hash a project installs.
//
// This file is the package's contract with its callers (workspace,
// mcpserver). Keep its signatures stable; put the implementation in other
// files.
package lockfile

import (
	"time"
)

// Version is the format version this package writes.
const Version = 1

// Lock is the whole file.
type Lock struct {
	Version  int              `json:"version" validate:"min=1"`
	Packages map[string]Entry `json:"packages" validate:"dive,keys,alias,endkeys"` // by alias
}

// Entry pins one package.
type Entry struct {
	Source  string    `json:"source" validate:"required"`
	Path    string    `json:"path,omitempty" validate:"omitempty,relpath"`
	Ref     string    `json:"ref,omitempty"`
	Commit  string    `json:"commit" validate:"required,sha1hex"` // 40-hex
	Tree    string    `json:"tree" validate:"required,sha1hex"`   // tree id of Path at Commit
	Hash    string    `json:"hash" validate:"required,h1"`        // "h1:" + base64 sha256, as in go.sum, over the installed files
	Updated time.Time `json:"updated"`                            // when this entry last changed (UTC, second precision)
}

// Parse parses a lockfile's bytes; name is used in error messages
// ("context.lock:3:14: …"). All problems are reported at once.
func Parse(name string, data []byte) (*Lock, error) { return parse(name, data) }

// Read reads and parses the lockfile at path. A missing file returns an error
// wrapping fs.ErrNotExist.
func Read(path string) (*Lock, error) { return read(path) }

// Marshal returns the canonical bytes: keys sorted, two-space indent, final
// newline. The same Lock always gives the same bytes.
func (l *Lock) Marshal() ([]byte, error) { return l.marshal() }

// Write writes l to path atomically (temp file in the same dir, fsync, rename),
// and leaves the file untouched when its bytes would not change.
func Write(path string, l *Lock) error { return write(path, l) }
