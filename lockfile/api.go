// Package lockfile reads and writes .context/context.lock: per package alias,
// the exact commit, sub-path tree id and content hash a project installs.
//
// This file holds the types of the package's contract with its callers
// (workspace, mcpserver); its functions (Parse, Read, Lock.Marshal, Write)
// are in lockfile.go, each with its doc comment. Keep their signatures
// stable.
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
