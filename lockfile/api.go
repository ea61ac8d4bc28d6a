// Package lockfile reads and writes .context/context.lock: per package alias,
// the exact revision, sub-path tree id and content hash a project installs.
//
// Two formats are read. Version 1 knows only git packages and pins each with
// a "commit"; version 2 adds a "kind" per entry and pins each with a "rev":
// a commit for git, the content's hash for https. [Lock.Marshal] writes
// version 1 while every entry is git, so a project of git packages keeps a
// byte-identical lock; the first entry of another kind makes it version 2.
//
// This file holds the types of the package's contract with its callers
// (workspace, project, mcpserver); its functions (Parse, Read, Lock.Marshal,
// Write) are in lockfile.go, each with its doc comment. Keep their
// signatures stable.
package lockfile

import (
	"time"
)

// Format versions.
const (
	Version1 = 1 // git entries only: "commit", no "kind"
	Version  = 2 // the newest this package reads and writes: "kind" and "rev"
)

// KindGit is the kind of every version 1 entry (the format knew no other),
// and of a version 2 entry that names none. The kinds, and what each pins,
// are source/kinds'.
const KindGit = "git"

// Lock is the whole file.
type Lock struct {
	Version  int              // the version read; Marshal writes the lowest that holds the entries
	Packages map[string]Entry // by alias
}

// Entry pins one package.
type Entry struct {
	Kind   string // a locked kind (source/kinds); "" is git (as in version 1)
	Source string // as in the manifest
	Path   string // sub-path inside the source (git, archives)
	Ref    string // git: the ref asked for
	// Rev is what is installed: for git the commit (40-hex), for https
	// "sha256:" and the hex of the fetched content's snapshot.
	Rev  string
	Tree string // git: tree id of Path at Rev; "" for other kinds
	Hash string // "h1:" + base64 sha256, as in go.sum, over the installed files
	// Audience is the project name the package's audience rules were
	// applied for, when any of its documents has rules (and its spec does
	// not ignore them); Withheld is how many documents they kept out of
	// the installed files (and so out of Hash). Both are empty otherwise,
	// so a package without rules keeps its entry byte for byte.
	Audience string
	Withheld int
	// https only: where the content came from and how to revalidate it.
	URL          string    // the final URL, after redirects
	ETag         string    // the server's ETag, for If-None-Match
	LastModified string    // the server's Last-Modified, for If-Modified-Since
	Fetched      time.Time // when the content was last fetched (UTC, second precision)
	Updated      time.Time // when this entry last changed (UTC, second precision)
}

// IsGit reports whether e is a git entry.
func (e Entry) IsGit() bool { return e.Kind == "" || e.Kind == KindGit }
