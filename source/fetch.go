package source

import (
	"context"
	"errors"
	"io/fs"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/webfetch"
)

// Fetcher is the fetch side of a Locked kind: Resolve finds the revision a
// spec names now, Fetch writes a revision's files into a stage folder.
// The workspace does the rest, the same for every kind: the stage, the
// journal, the swap, the h1: check against the lock and the dirty guard.
type Fetcher interface {
	// Resolve finds the revision r.Spec names now. r.Locked, when set,
	// is what the lock says, for a kind that can revalidate it instead
	// of fetching again.
	Resolve(ctx context.Context, env Env, r Request) (Resolved, error)
	// Fetch writes the files of revision r.Want into stage (which does
	// not exist yet) and says what to lock.
	Fetch(ctx context.Context, env Env, r Request, stage string) (*Fetched, error)
}

// Env is what a Fetcher is given of the workspace.
type Env struct {
	Git *gitengine.Engine // the operation's Engine, labelled with the package's alias
	// Web is the workspace's https Client (its cache is the shared one,
	// under <cache>/https/), made on first use.
	Web func() *webfetch.Client
	// FetchURL is where a git source is fetched from: a repository on
	// this machine at the path project.CheckSource checked.
	FetchURL func(source string) string
	Getenv   func(name string) (string, bool) // the command's environment; nil: empty
	// Progress reports a fetch's progress for alias; nil: none.
	Progress func(alias string, p gitengine.Progress)
	Manifest string // the manifest's name as messages give it
	// Adding: the spec is being added (ctx add), in no manifest yet, so
	// a message sends the user to the command line, not to the file.
	Adding bool
	// Check is the containment rule (project.CheckSource, with the
	// user's allowances) for a spec: an https Fetcher asks it before it
	// sends a token or lets a request reach the private network. nil:
	// only a Local spec may ask for either.
	Check func(Spec) error
}

// Allowed asks env's Check whether s may use what it asks of this machine
// (an https spec's tokenEnv and allowPrivateNetwork).
func (env Env) Allowed(s Spec) error {
	if env.Check != nil {
		return env.Check(s)
	}
	if s.Local {
		return nil
	}
	return errors.New("a committed spec's tokenEnv and allowPrivateNetwork need your allowance in context.local.json, and none was given")
}

// Request is the package a Fetcher resolves or fetches.
type Request struct {
	Alias   string
	Spec    *Spec           // the manifest's; nil when only the lock names the package
	Locked  *lockfile.Entry // the lock's entry, if any
	Target  *lockfile.Entry // install exactly this (the workspace checks its hash)
	Refresh bool            // ask the server even while a cached answer is trusted (update --refresh)

	// For Fetch: the revision to install, the ref Resolve found, and
	// what Resolve left for Fetch (Resolved.Carry).
	Want  string
	Ref   string
	Carry any
	// Have are the files the package folder has, by path: Fetch need not
	// write one it has (same blob and mode), and lists it Kept.
	Have map[string]Have
}

// Have is a file the package folder has.
type Have struct {
	Blob string // git blob id
	Mode fs.FileMode
	Size int64
}

// Resolved is what Resolve found.
type Resolved struct {
	Rev string // the revision to install
	Ref string // the full ref name it was found at, if any (git)
	// Revalidated says the server was asked and said the locked content
	// is current.
	Revalidated bool
	Carry       any // for Fetch (Request.Carry): what was fetched already
}

// Fetched is what Fetch put in a stage.
type Fetched struct {
	// Entry holds what the kind pins: Kind, Rev, Tree and, for https,
	// URL, ETag, LastModified and Fetched. The workspace adds Source,
	// Path, Ref, Hash and Updated.
	Entry   lockfile.Entry
	Bytes   int64     // received from the network
	Skipped []Skipped // files of the source not written, and why
	// Files are the revision's files as written, with their git blob ids
	// (Kept: not written, the package folder has it: Request.Have); nil
	// when the fetch gives none, and the workspace reads the stage.
	Files []File
	// Sums are the SHA-256 sums of the files written, as written
	// (gitengine's File.Sum), so the h1: hash need not read them back;
	// nil when the fetch gives none.
	Sums map[string]string
}

// File is one file of a fetched revision.
type File struct {
	Path, Blob string
	Kept       bool
}

// Skipped is a file of the source that was not written, and why.
type Skipped struct{ Path, Reason string }
