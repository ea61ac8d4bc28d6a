// Package gitengine fetches one folder of a git repository at an exact commit,
// on go-git v5 plumbing alone (no git binary needed at run time), through a
// shared per-remote object cache, and writes it to disk without trusting what
// the repository contains.
//
// This file holds the types of the package's contract with its callers
// (workspace, registry); the Engine's methods live where they are
// implemented, each with its doc comment: ListRefs and Resolve in refs.go,
// Materialize and ReadFile in materialize.go, NoteUse in cache.go, and the
// cache's CacheInfo, GC and TrimCache in gc.go. Keep their signatures
// stable.
package gitengine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/netguard"
	"github.com/ctx-dev/ctx/internal/netrate"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/go-git/go-git/v5/plumbing"
)

// Options configure an Engine. The zero value is usable.
type Options struct {
	// CacheDir is the root of the shared object cache. Calls that fetch or
	// read the cache fail while it is empty; cmd/ctx sets it from $CTX_CACHE,
	// else os.UserCacheDir()/ctx/git. The package reads no environment.
	CacheDir string
	// Token, when set, is the password sent (as user x-access-token) to
	// the remotes of TokenHosts whose URL carries no credentials, over
	// https (or plain http to a loopback test server): to no other host,
	// whoever names it (a manifest, a registry), nor after a redirect to
	// another origin (go-git drops it). cmd/ctx sets it from
	// $CTX_GIT_TOKEN.
	Token string
	// TokenHosts are the hosts Token is for, each "host" (any port) or
	// "host:port" (see CheckTokenHost), compared without case. Empty:
	// Token is sent to no host, and the first http(s) remote says so once
	// (Warn). cmd/ctx sets it from $CTX_GIT_TOKEN_HOSTS.
	TokenHosts []string
	// SSHDir holds known_hosts and the keys id_ed25519 and id_rsa used for
	// ssh remotes. cmd/ctx sets it to ~/.ssh. Empty means no keys and no
	// known hosts, so every ssh remote fails with KindHostKey.
	SSHDir string
	// SSHAgent is the socket of the ssh agent tried first for ssh remotes;
	// "" for none. cmd/ctx sets it from $SSH_AUTH_SOCK.
	SSHAgent string
	// Proxy is the environment's ALL_PROXY and NO_PROXY, which go-git's
	// ssh transport follows (x/net/proxy reads them itself): a guarded
	// ssh call through the proxy checks the remote's host before it
	// dials (resolved, checked, not pinned: the proxy resolves again, as
	// netguard.Transport does for http), and accepts the proxy's own
	// address where the connection lands. cmd/ctx sets it from
	// $ALL_PROXY/$all_proxy and $NO_PROXY/$no_proxy.
	Proxy netguard.Proxy
	// CredentialEnv is the environment of the `git credential` runs that
	// ask git's credential helpers; nil means this process's environment.
	CredentialEnv []string
	// Prompting, when set, is called before `git credential fill`, which
	// asks at the terminal when no helper answers ("Username for …"), and
	// the function it returns after: the caller stops drawing on the
	// terminal meanwhile (a spinner redrawn over git's question hid it).
	// It may be called from several goroutines, one call at a time: the
	// fills of an Engine (and those WithLabel derives) run one at a time,
	// so that two questions are never asked at once on one terminal.
	Prompting func() (resume func())
	// Progress, when set, is called as objects arrive. It may be called from
	// several goroutines at once (one per concurrent fetch).
	Progress func(Progress)
	// Warn, when set, receives non-fatal notes (fallbacks taken, say) with
	// the label of the Engine the call was made through ("" for none; see
	// WithLabel). It may be called from several goroutines at once.
	Warn func(label, msg string)
	// IdleTimeout is how long a network operation waits for the next byte
	// from the server before it fails with a *StalledError (kind
	// KindNetwork). 0 means DefaultIdleTimeout; negative means no limit.
	IdleTimeout time.Duration
	// RateFloor is the least a network operation must move while ctx waits
	// on the server (internal/netrate's rule): under it the operation fails
	// with a *netrate.SlowError (kind KindNetwork). Its zero value is
	// netrate.DefaultBytes per IdleTimeout; a zero Window is IdleTimeout;
	// negative Bytes means no floor, and so does no idle timeout.
	RateFloor netrate.Floor
	// Total bounds each network operation (a ref advertisement, one
	// upload-pack request and its answer, a push) whatever it moves
	// (internal/netrate's total bound, the rule's owner): a server that
	// trickles just above the rate floor would otherwise hold it for days.
	// Every caller of the engine is under it (push, update's checks,
	// Changes' old side, the wizard's access checks, a git registry),
	// besides the workspace's bound on a package's whole step. 0 means
	// netrate.DefaultTotal; negative means no bound.
	Total time.Duration
	// clock is what the idle timeout and the rate floor count time in:
	// nil is the real clock. Tests set one that stands still until their
	// server's fault is reached (stall_test.go).
	clock netrate.Clock
	// MaxFileSize skips files larger than this many bytes, with a warning
	// naming the file and the limit. 0 means DefaultMaxFileSize; negative
	// means no limit.
	MaxFileSize int64
	// CacheMax, when over 0, is the size in bytes the remotes' stores in
	// the cache should keep within: TrimCache collects them, least recently
	// used first, when they add up to more. cmd/ctx sets it from
	// $CTX_CACHE_MAX and calls TrimCache after an install or update.
	CacheMax int64
}

// DefaultMaxFileSize is the default Options.MaxFileSize (50 MB, the size
// at which GitHub warns about a file).
const DefaultMaxFileSize = 50 << 20

// PhaseDownload is the one phase of an https source's fetch (workspace
// reports webfetch's progress as a Progress, so that one display
// shows every kind): Objects counts the documents received whole.
const PhaseDownload = "download"

// Progress reports one fetch's transfer so far.
type Progress struct {
	Label   string // the label of the Engine the call was made through (see WithLabel)
	URL     string
	Phase   string // "refs", "trees", "blobs", "write"; PhaseDownload for an https source
	Objects int    // objects received so far in this phase (PhaseDownload: documents)
	Bytes   int64  // bytes received so far in this phase
}

// Engine is safe for concurrent use. Make one per command and share it:
// for its lifetime it remembers each remote's ref advertisement (asked for
// once, however many calls resolve refs of that remote, errors included)
// and which hosts want credentials. Make it with New.
type Engine struct {
	opts  Options
	label string  // reported with the calls made through this Engine (WithLabel)
	mem   *memory // shared by every Engine WithLabel derives
	guard *Guard  // nil: the calls' remotes may be anywhere (Guarded)
}

// New returns an Engine with nothing remembered yet.
func New(opts Options) *Engine { return &Engine{opts: opts, mem: &memory{}} }

// WithLabel returns an Engine that shares e's options and memory but reports
// the progress and warnings of its calls under label (Progress.Label, the
// label argument of Options.Warn): the package alias a call is made for,
// say, so that one Engine serves a whole command and its progress still
// tells packages apart.
func (e *Engine) WithLabel(label string) *Engine {
	c := *e
	c.label = label
	return &c
}

// Ref is one advertised reference.
type Ref struct {
	Name string // full name: refs/heads/main, refs/tags/v1 ("HEAD" excluded)
	Hash string // 40-hex; for annotated tags, the tag object
	Peel string // for annotated tags, the commit it points to; else ""
}

// Remote is what a remote advertises (ls-remote).
type Remote struct {
	URL  string
	Head string // the ref HEAD points to (refs/heads/master, say); "" if unknown
	Refs []Ref  // sorted by Name
}

// Resolved is a ref resolved to a commit.
type Resolved struct {
	Ref    string // the full ref name it resolved through ("" for a bare SHA)
	Commit string // 40-hex commit id
}

// FetchRequest names one folder of one repository at one commit.
type FetchRequest struct {
	URL    string // any git URL, or a local repository path
	Commit string // 40-hex commit id (from Resolve or a lockfile)
	Ref    string // optional: the ref the commit came from, used to deepen when a server refuses a non-tip want
	Path   string // sub-path inside the repository ("" or "." = whole tree)
	// Tree, when set, is the id of Path's tree at Commit as a lock
	// records it. When the cache lacks the commit, a fetch over smart
	// HTTP then wants that tree, with every file under it, in one request,
	// instead of the commit's trees and then the files: the commit is not
	// fetched, so that Path's tree at Commit is Tree is taken from the
	// caller (Result.TreeID is Tree). A server that will not send the
	// tree by id gets the two requests. Ignored with Have, and by ReadFile.
	Tree string
	// Have, when set, tells Materialize which files the caller already
	// has, with this blob and mode (0644, 0755, fs.ModeSymlink|0777), at
	// this path: they are neither written nor, when the cache lacks
	// them, fetched (a link's target is still read, to check it), and
	// Result lists them with Kept set.
	Have func(path, blobID string, mode fs.FileMode) bool
	// KnownSize, when set, gives the size of a blob the caller has a copy
	// of (a kept file, one it installed), so that Materialize and ReadTree
	// check the size limit (Options.MaxFileSize) without reading the
	// object from the store: in a local repository of loose objects that
	// is one open and inflate per file. ok false: read it from the store.
	KnownSize func(path, blobID string) (size int64, ok bool)
	// Against, when set, is the id of another folder's tree (the other
	// side of a comparison): ReadTree then lists only the files that
	// differ from it, and walks no folder whose tree is the same in both,
	// when the cache holds that tree (Tree.Diffed); else all. Ignored by
	// Materialize and ReadFile.
	Against string
}

// File is one file written by Materialize.
type File struct {
	Path   string      // slash-separated, relative to the package folder
	BlobID string      // git blob id (40-hex)
	Mode   fs.FileMode // 0644, 0755, or fs.ModeSymlink|0777
	Size   int64       // 0 for a Kept file that is not a link
	Kept   bool        // not written: FetchRequest.Have said the caller has it
	// Sum is treehash.FileSum of what was written (a file's content, a
	// link's target), computed as it was written; "" for a Kept file.
	Sum string
}

// Skipped is an entry of the repository that was not written, and why.
type Skipped struct {
	Path   string
	Reason string // "submodule", "symlink leaves the package", "unsafe path", ...
}

// Result is what Materialize wrote.
type Result struct {
	Commit  string
	TreeID  string // tree id of the sub-path at Commit
	Files   []File // sorted by Path
	Skipped []Skipped
	// Bytes is what this call received from the network (0 when all came from the cache).
	Bytes int64
}

// CheckAccess reports whether the user's credentials can read url: nil, or an
// *Error whose Kind says why not. It moves no objects; the advertisement it
// reads is remembered, so resolving a ref of url afterwards is free.
func (e *Engine) CheckAccess(ctx context.Context, url string) error {
	_, err := e.ListRefs(ctx, url)
	return err
}

// HashBlob returns the git blob id of content, as `git hash-object` would.
func HashBlob(content []byte) string {
	return plumbing.ComputeHash(plumbing.BlobObject, content).String()
}

// Kind classifies an Error so callers can act on it.
type Kind int

const (
	KindOther        Kind = iota
	KindNotFound          // repository does not exist (or is hidden from this user)
	KindAuthRequired      // server wants credentials and none were available
	KindAuthFailed        // credentials were offered and refused
	KindHostKey           // ssh host key unknown or changed
	KindNetwork           // DNS, connection refused, timeout, TLS
	KindRefused           // server refused the request (e.g. a non-tip SHA want)
	KindRefNotFound       // the ref (or a commit id given as a ref) does not exist in the repository
	KindPathNotFound      // the sub-path does not exist at that commit
	// KindCommitNotFound: the repository does not have a commit ctx asked
	// for by id (a lock's): its history was rewritten since, or the commit
	// deleted. Not a ref problem: `git ls-remote` lists refs, not commits.
	KindCommitNotFound
	// KindPrivate: a guarded call's remote is on the private network
	// (loopback, private, link-local...) and its origin is not allowed
	// (Guarded; the error is a *PrivateError).
	KindPrivate
)

func (k Kind) String() string {
	switch k {
	case KindNotFound:
		return "repository not found"
	case KindAuthRequired:
		return "authentication required"
	case KindAuthFailed:
		return "authentication failed"
	case KindHostKey:
		return "host key problem"
	case KindNetwork:
		return "network error"
	case KindRefused:
		return "server refused the request"
	case KindRefNotFound:
		return "ref not found"
	case KindPathNotFound:
		return "path not found"
	case KindPrivate:
		return "private network refused"
	case KindCommitNotFound:
		return "commit not in the repository"
	}
	return "git error"
}

// Error is every error gitengine returns for a remote operation.
type Error struct {
	Kind Kind
	URL  string // credentials redacted
	Op   string // "list refs", "fetch", ...
	Hint string // what the user should do next
	Err  error
}

// Error is "OP URL: KIND: CAUSE (HINT)". The URL and the cause are shown
// through safetext.Clip: escaped, and cut after safetext.MaxQuote bytes (the
// cause after four times that).
func (e *Error) Error() string {
	msg := fmt.Sprintf("%s %s: %s", e.Op, safetext.Clip(e.URL, 0), e.Kind)
	if d := e.detail(); d != "" {
		msg += ": " + d
	}
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// detail is the cause's text on one line, without what the Kind already says
// (go-git and servers repeat "authentication required" in their messages).
func (e *Error) detail() string {
	if e.Err == nil {
		return ""
	}
	d := safetext.Clip(strings.Join(strings.Fields(e.Err.Error()), " "), 4*safetext.MaxQuote)
	for _, k := range []string{e.Kind.String(), "authentication required", "repository not found", "authorization failed"} {
		for strings.HasPrefix(d, k) {
			d = strings.TrimLeft(strings.TrimPrefix(d, k), ": ")
		}
	}
	return d
}

// KindOf returns the Kind of err, or KindOther.
func KindOf(err error) Kind {
	var ge *Error
	if errors.As(err, &ge) {
		return ge.Kind
	}
	return KindOther
}
