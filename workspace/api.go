// Package workspace changes a project's .context/ directory: the manifest
// (context.config.json), the lockfile, the installed packages, their recorded
// state for the dirty-state guard, and keeping the index current, under the
// project lock. The layout, the manifest and lock formats, and what counts
// as installed are package project's; workspace reads through it.
//
// This file holds the types of the package's contract with its callers (cmd,
// the setup wizard); its functions and methods live where they are
// implemented, each with its doc comment: Init, Open, OpenReadOnly and Close
// in project.go, Add, Install, Update, Outdated and Remove in plan.go, List,
// Status and Verify in query.go, Reindex in ops.go, SetRegistry and
// DefaultAlias in manifest.go. Keep their signatures stable.
package workspace

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/ctx-dev/ctx/changes"
	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/webfetch"
)

// DefaultJobs is Options.Jobs when 0. A fetch mostly waits on the server,
// so many at once pay (10 packages from a lock over loopback HTTP on 2
// cores, alternating runs: 4 jobs 2.8–2.9× native git, 8 jobs 3.1–3.2×, 16
// jobs 3.3–3.4×: with fewer slots than packages the last ones run alone;
// npm also keeps about 16 connections). See bench/README.md.
const DefaultJobs = 16

// DefaultLockWait is Options.LockWait when 0: long enough for another
// ctx's install or update of a large project to finish (two changing
// commands wait for each other), bounded so that a hung one is named.
const DefaultLockWait = 10 * time.Minute

// Options configure a Workspace.
type Options struct {
	// Engine is the command's Engine (see NewEngine); every package's calls
	// go through it, labelled with the package's alias. nil = a new Engine
	// per operation (Add, Install, ...), made from EngineOptions, Log and
	// Progress as NewEngine does.
	Engine *gitengine.Engine
	// EngineOptions are the options of the Engines made when Engine is nil
	// (idle timeout, size limit); their Warn and Progress are set from Log
	// and Progress.
	EngineOptions gitengine.Options
	Log           io.Writer // notes and warnings (stderr); nil = discard
	// Notice gets the notes a user must see even when the command is
	// quiet (-q keeps them, as it keeps warnings): an allowance recorded
	// in context.local.json, a source kept there as the user's own, the
	// recovery of an interrupted change. nil = Log.
	Notice io.Writer
	// Progress, when set, receives per-package transfer progress of the
	// Engines made from these Options.
	Progress func(alias string, p gitengine.Progress)
	Jobs     int // parallel fetches; 0 = DefaultJobs
	// Getenv looks up the environment variable an https source's tokenEnv
	// names (cmd/ctx passes os.LookupEnv); nil = no variable is set. The
	// https sources' cache is EngineOptions.CacheDir's.
	Getenv func(name string) (string, bool)
	// LockWait is how long Open waits for another ctx process working in the
	// same project before giving up and naming it; 0 = DefaultLockWait.
	LockWait time.Duration
	// Context, when set, ends Open's wait for the project lock when it
	// ends (the command's context: Ctrl-C); nil = context.Background().
	Context context.Context
	// FetchTimeout bounds each network step of a package (resolving its
	// ref, fetching its files) in total, beside the idle timeout and the
	// rate floor (internal/netrate): 0 = netrate.DefaultTotal, negative =
	// no bound (tests). cmd/ctx sets it from $CTX_FETCH_TIMEOUT. A context
	// carrying a command's budget (netrate.WithBudget, which cmd/ctx puts
	// on every command's but ctx mcp's) bounds the steps together instead.
	FetchTimeout time.Duration
	// Home is the user's home folder, refused as a dir source
	// (project.WithHome); "" = not known.
	Home string

	// testHook, when set (tests only), is called at each stage of a package
	// install ("staged", "journaled", "swapped", "locked"; in a patch, after
	// each file moved: "patch-out", "patch-in", and "patch-back" while one
	// is undone); an error stops the command right there, as if the
	// process had been killed. It is also called before each write with
	// "write:<what>" (see fault).
	testHook func(stage, alias string) error
	// wholeFolders (tests and benchmarks only) swaps every installed
	// package's folder whole, as ctx did before it patched them.
	wholeFolders bool
	// indexAfter (tests and benchmarks only) indexes after every fetch is
	// done, as ctx did before it indexed packages as they landed.
	indexAfter bool
}

// Workspace is an open project. Open takes the project lock (two ctx
// processes never interleave); Close releases it. Whatever it writes or
// deletes under .context/ goes through one confine.Dir, which refuses to
// pass through a symbolic link.
type Workspace struct {
	root     string
	proj     project.Project
	opts     Options
	plock    *flock.Flock
	fs       confine.Dir // every write and delete under .context/ (see fs.go)
	manifest project.Manifest
	logMu    sync.Mutex // Log may be written from several fetches at once
	webOnce  sync.Once
	webc     *webfetch.Client // the https sources' client (see web)
}

// InitOptions configure Init.
type InitOptions struct {
	Registry string
	Project  string
}

// Root is the project directory; Dir is its .context/.
func (w *Workspace) Root() string { return w.root }
func (w *Workspace) Dir() string  { return w.proj.Dir() }

// NotInstalledWhy says what alias's state file is when the package is
// not installed here (project.NotInstalledWhy: "is missing", "is a fifo,
// not a regular file").
func (w *Workspace) NotInstalledWhy(alias string) string { return w.proj.NotInstalledWhy(alias) }

// Manifest returns a copy of the manifest.
func (w *Workspace) Manifest() project.Manifest {
	m := w.manifest
	m.Packages = append(make([]project.PackageSpec, 0, len(w.manifest.Packages)), w.manifest.Packages...)
	return m
}

// Action is what happened to one package.
type Action string

const (
	Installed Action = "installed"
	Updated   Action = "updated"
	Unchanged Action = "unchanged"
	Removed   Action = "removed"
	Linked    Action = "linked"  // a dir source recorded: indexed and served in place, never copied or locked
	Skipped   Action = "skipped" // see Reason; makes the report partial
	Failed    Action = "failed"  // see Err
)

// SkipReason says why a package was Skipped.
type SkipReason string

const (
	SkipDirty    SkipReason = "dirty"     // local edits and no Force; see DirtyFiles
	SkipNoAccess SkipReason = "no access" // the repository cannot be read; see Err
	// SkipGone: a local repository (a path, file://) is no longer where
	// the lock has it; see Err (a *repoGoneError).
	SkipGone SkipReason = "repository gone"
)

func (r SkipReason) String() string { return string(r) }

// PackageResult is what one command did to one package. Its Err does not
// name the alias: whoever prints the result does, once.
type PackageResult struct {
	Alias     string
	Kind      string // the spec's kind (project.KindGit, KindDir, KindHTTPS), else the lock entry's
	Ref       string // the spec's ref, else the lock entry's; "" for the default branch
	Action    Action
	OldCommit string // "" when newly installed; an update's: the lock's (the lock diff's old side)
	NewCommit string // "" when removed
	// InstalledCommit is, for an update, the commit on disk when it is not
	// the lock's OldCommit (a pull brought a new lock, or an install
	// failed); "" otherwise.
	InstalledCommit string
	Err             error    // for Failed, and for Skipped with SkipNoAccess or SkipGone
	DirtyFiles      []string // for Skipped because dirty: "M path", "A path", "D path"
	Backup          string   // with --force: the folder the whole local package was copied to (deleted files listed in <Backup>.deleted.txt)
	Bytes           int64    // received from the network
	// Reason is why the package was Skipped.
	Reason SkipReason
	// Withheld lists the documents audience rules kept out of an install,
	// sorted; Audience is the project name they were applied for.
	Withheld []string
	Audience string
}

// Why says why p was skipped or failed, without its alias: the reason,
// then the error behind it ("no access: …", "dirty", "fetch …").
func (p PackageResult) Why() string {
	why := p.Reason.String()
	if p.Err != nil {
		if why != "" {
			why += ": "
		}
		why += p.Err.Error()
	}
	if why == "" {
		why = string(p.Action)
	}
	return why
}

// Report is the outcome of a command, one entry per package, sorted by alias.
type Report struct {
	Packages []PackageResult
	Index    *indexer.SyncReport // nil if the index was not touched
	// Changes is what changed in the documents of the packages Updated
	// (Changes with LastChange), with UpdateOptions.Changes; nil when none
	// moved or ChangesErr says why it is not known.
	Changes    *changes.Set
	ChangesErr error
	// ChangesNoted says that the index's render of INDEX.md recorded
	// Changes in its "Recently changed" part (NoteChanges, in the same
	// render): when false and Changes has some, NoteChanges is still to do.
	ChangesNoted bool
}

// Partial reports whether any package was skipped or failed.
func (r *Report) Partial() bool {
	for _, p := range r.Packages {
		if p.Action == Skipped || p.Action == Failed {
			return true
		}
	}
	return false
}

// AddOptions configure Add.
type AddOptions struct {
	Force bool
	// DryRun reports what Add would do (the plan: each spec resolved,
	// Installed or Linked, or why not) and changes nothing: no fetch, no
	// manifest, lock, package or index write.
	DryRun bool
	// KeepGoing makes a spec that cannot be added (its source missing or
	// unreadable, a bad field, its alias taken) that spec's failure alone,
	// reported Failed with why, instead of an error that adds nothing:
	// for a batch from a registry (ctx refs --fetch).
	KeepGoing bool
	// NoAllowOutside: the specs are not the user's own choice (a registry
	// the committed manifest names), so a git source on this machine
	// outside the project is that spec's failure, saying what to do,
	// instead of being allowed in context.local.json as ctx add's is.
	NoAllowOutside bool
}

// InstallOptions configure Install.
type InstallOptions struct {
	Frozen bool // fail when manifest and lock disagree; never write the lock
	Force  bool // back up dirty files, then proceed
	// DryRun reports what Install would do (the plan) and changes
	// nothing; with AllowOutside it plans as if allowed, recording nothing.
	DryRun bool
	// AllowOutside names packages whose local sources outside the project
	// the user allows (AllowOutside), recorded before installing.
	AllowOutside []string
}

// UpdateOptions configure Update.
type UpdateOptions struct {
	DryRun bool
	Force  bool
	// Refresh asks the server of each https package again even within its
	// TTL: a conditional request with the locked ETag / Last-Modified, so
	// content that did not change costs one 304.
	Refresh bool
	// Changes works out what changed in the documents of the packages
	// updated (Report.Changes), while the index is brought up to date, and
	// records it in INDEX.md's "Recently changed" in the index's one
	// render of INDEX.md (NoteChanges without a second render).
	Changes bool
}

// RemoveOptions configure Remove.
type RemoveOptions struct {
	Force bool
	// DryRun reports what Remove would do (the plan) and changes nothing.
	DryRun bool
}

// Change is one package Update would move (or did move).
type Change struct {
	Alias     string `json:"alias"`
	Ref       string `json:"ref,omitempty"`
	OldCommit string `json:"oldCommit,omitempty"` // "" when not locked yet
	NewCommit string `json:"newCommit"`
	// Expired marks an https package whose TTL ran out and whose server
	// said (asked now, conditionally) that its content is the locked one:
	// OldCommit and NewCommit are the same, and update changes nothing.
	Expired bool `json:"expired,omitempty"`
	// LocalEdits marks a package whose files on disk were edited: update
	// skips it (exit 3) unless forced, which backs the edits up first.
	LocalEdits bool `json:"localEdits,omitempty"`
}

// OutdatedReport is what Outdated found: the changes, sorted by alias, and
// the packages it could not check.
type OutdatedReport struct {
	Changes []Change
	// Failed are the packages that could not be resolved or were refused,
	// each Failed or Skipped (no access) with its Err, as Update reports
	// them.
	Failed  []PackageResult
	Checked int // the packages asked about (dir sources are never outdated)
}

// PackageInfo describes one package of the manifest or the lock.
type PackageInfo struct {
	Alias      string `json:"alias"`
	Kind       string `json:"kind"` // project.KindGit, KindDir or KindHTTPS
	Source     string `json:"source"`
	Path       string `json:"path,omitempty"`
	Ref        string `json:"ref,omitempty"`
	Commit     string `json:"commit,omitempty"`  // from the lock; "" when not locked
	Installed  bool   `json:"installed"`         // packages/<alias> exists and, when locked, ctx installed it here (project.InstalledHere); for a dir source, its file or folder
	Locked     bool   `json:"locked"`            // the lock has an entry
	InManifest bool   `json:"inManifest"`        // the manifest has a spec
	Withheld   int    `json:"withheld"`          // documents audience rules keep out (from the lock)
	Local      bool   `json:"local,omitempty"`   // a dir source of .context/context.local.json: the user's own, not committed
	Refused    string `json:"refused,omitempty"` // why a local source is neither fetched, indexed nor served (project.Refused)
	// InstalledCommit is the revision ctx installed in the package's
	// folder (.state) when it is not the lock's Commit: a pull or checkout
	// brought another lock and no `ctx install` followed. "" otherwise.
	InstalledCommit string `json:"installedCommit,omitempty"`
	// Edited is set for a package behind the lock (InstalledCommit) that
	// also has local edits, which a plain install skips (as status says).
	Edited bool `json:"edited,omitempty"`
	// FilesLocked is set for a package behind the lock whose files are,
	// all of them, the lock's text (a pull brought the lock and the
	// files, in a team that commits packages/): no edits; a plain
	// install records them (trust23).
	FilesLocked bool `json:"filesLocked,omitempty"`
	// NotInstalledHere is set (and Installed not) for a locked package
	// whose folder exists but that ctx did not install on this machine (no
	// .state/<alias>.json, project.InstalledHere): files committed with the
	// project, neither indexed nor served until `ctx install`.
	NotInstalledHere bool `json:"notInstalledHere,omitempty"`
}

// FileChange is one file of a package that differs from what ctx installed.
type FileChange struct {
	Path   string `json:"path"`   // slash-separated, relative to the package folder
	Change string `json:"change"` // "modified", "added", "deleted", "mode"
}

// PackageStatus lists the local changes of one dirty package.
type PackageStatus struct {
	Alias string       `json:"alias"`
	Files []FileChange `json:"files"` // sorted by path; empty when the package is only behind
	// InstalledCommit and LockedCommit are set when ctx installed another
	// revision than the lock's (a pull brought a new lock: `ctx install`
	// moves it); both "" otherwise.
	InstalledCommit string `json:"installedCommit,omitempty"`
	LockedCommit    string `json:"lockedCommit,omitempty"`
	// NotInstalledHere is set for a locked package whose folder exists but
	// that ctx did not install on this machine (PackageInfo's).
	NotInstalledHere bool `json:"notInstalledHere,omitempty"`
	// FilesLocked is set for a package behind the lock whose files are,
	// all of them, the lock's text (PackageInfo's): Files is empty.
	FilesLocked bool `json:"filesLocked,omitempty"`
}

// VerifyResult compares one locked package's files with its content hash.
type VerifyResult struct {
	Alias string `json:"alias"`
	Want  string `json:"want"` // h1: hash from the lock
	Got   string `json:"got"`  // h1: hash of the files on disk; "" when not installed
	OK    bool   `json:"ok"`
	// Modes lists the files whose mode (executable bit, symlink) is not the
	// one ctx installed: h1: does not cover modes, and a mode change is a
	// local edit as status reports it.
	Modes []string `json:"modes,omitempty"`
	// InstalledCommit is the revision ctx installed (.state) when the
	// files do not match, it is not the lock's (LockedCommit) and the
	// files are as ctx installed them at that revision (hash and modes):
	// another commit's, not edited; `ctx install` moves them. Empty when
	// they were edited too (install skips them as dirty: local edits).
	InstalledCommit string `json:"installedCommit,omitempty"`
	LockedCommit    string `json:"lockedCommit,omitempty"`
	// LockHash is set on a mismatch with no local edits at the lock's
	// revision: the files hash to what ctx recorded when it installed
	// that revision, and the lock names another hash (the lock was
	// edited, or the source changed under the same revision): neither
	// status nor install --force changes that, the lock is what differs.
	LockHash bool `json:"lockHash,omitempty"`
}
