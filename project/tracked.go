package project

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// The trust rule of sources inside the project (checkShared): the
// committed manifest is chosen by whoever can commit, so a source it
// names inside the project may read only what git shares with a clone:
// of a dir source, the files git tracks in the user's own index (a
// commit can edit .gitignore, and .git/info/exclude or core.excludesFile
// are not in the commit at all, so what is ignored is the wrong test; what
// the user's index tracks a commit cannot change); of a git source that is
// a repository inside the project (the project's own, "."), a branch the
// user's remote has, a tag or a full commit id, never refs/stash, a local
// branch or an abbreviated id; and a nested repository only when the
// project's index tracks it (a submodule). What the user added with `ctx
// add` (the spec in context.local.json, or the allowance `ctx add` and
// `ctx install --allow-outside ALIAS` write there: AllowInside) reads it
// all. A project outside any git repository has no teammates' commits:
// its manifest is the user's own, and nothing is held back.

// ErrUntracked is what CheckSource's error wraps when a committed source
// inside the project names what git does not share: a file or folder of
// which git tracks nothing, an untracked nested repository, or a ref of
// the project's own repository that no remote has.
var ErrUntracked = errors.New("not shared by git")

// Tracked is the files of a committed dir source that git tracks, the
// only ones it serves (Package.Tracked): slash paths relative to the
// source's folder, sorted.
type Tracked struct {
	names []string
	key   string
}

// newTracked makes the set of names (sorted, as the index keeps them).
func newTracked(names []string) *Tracked {
	h := sha256.New()
	for _, n := range names {
		h.Write([]byte(n))
		h.Write([]byte{0})
	}
	return &Tracked{names: names, key: hex.EncodeToString(h.Sum(nil)[:12])}
}

// Has reports whether git tracks rel (a slash path in the source's folder).
func (t *Tracked) Has(rel string) bool {
	i := sort.SearchStrings(t.names, rel)
	return i < len(t.names) && t.names[i] == rel
}

// Key identifies the set: two sets with one key hold the same names (the
// indexer's walk record keys a walk by it).
func (t *Tracked) Key() string { return t.key }

// InsideAllow is one of the user's allowances (context.local.json's
// "allowInside") for a committed source inside the project: the source at
// Path (slash-separated, from the project root, "." for the root; as
// CheckSource resolves it) may read what git does not share: all of a dir
// source's files, or, with Ref (the ref as the manifest gives it), a git
// repository at that ref. Bound to the path and the ref, so an entry the
// manifest later points elsewhere is refused again.
type InsideAllow struct {
	Path string `json:"path" validate:"required"`
	Ref  string `json:"ref,omitempty"`
}

// AllowsInside reports whether the user allowed want (exactly). A nil m
// allows nothing.
func (m *Manifest) AllowsInside(want InsideAllow) bool {
	if m == nil {
		return false
	}
	for _, a := range m.AllowInside {
		if a == want {
			return true
		}
	}
	return false
}

// AddAllowInside records want in AllowInside, once.
func (m *Manifest) AddAllowInside(want InsideAllow) {
	if !m.AllowsInside(want) {
		m.AllowInside = append(m.AllowInside, want)
	}
}

// insideAllowFor is the allowance that would let s, leading to rel (from
// the resolved project root), read what git does not share.
func insideAllowFor(s PackageSpec, rel string) InsideAllow {
	a := InsideAllow{Path: filepath.ToSlash(rel)}
	if s.KindOf() == KindGit {
		a.Ref = strings.TrimSpace(s.Ref)
	}
	return a
}

// checkShared is CheckSource's rule for a source s that resolves to real,
// rel inside the project root (resolved: root): ctx's own folder is no dir
// source for anyone; for a committed one (not Local) that m does not allow
// (AllowsInside), the trust rule above. A dir source of which git tracks
// some files gives their set (nil: it serves all its files); one of which
// git tracks nothing is refused, as is an untracked nested repository or
// a ref no remote has (ErrUntracked, with the way out).
func (p Project) checkShared(m *Manifest, s PackageSpec, root, rel, real string) (*Tracked, error) {
	slash := filepath.ToSlash(rel)
	kind := s.KindOf()
	if kind == KindDir && (slash == DirName || strings.HasPrefix(slash, DirName+"/")) {
		return nil, fmt.Errorf("%s is in %s, ctx's own folder (the manifest, the lock, installed packages): no dir source; name a folder of documents", safetext.Quote(s.Source), DirName)
	}
	if s.Local || m.AllowsInside(insideAllowFor(s, rel)) {
		return nil, nil
	}
	scope := "this path"
	if kind == KindGit {
		scope = "this path and ref"
	}
	refuse := func(what string) error {
		return fmt.Errorf("%s %s, and %s, which names it, is committed: a commit must never make ctx read your own files or history, so it is %w: nothing of it is read or served. "+
			"If you put it there yourself, allow it: `ctx install --allow-outside %s` (recorded in %s, which is not committed, for %s only)",
			safetext.Quote(s.Source), what, Rel(ManifestName), ErrUntracked, s.Alias, Rel(LocalName), scope)
	}
	if kind == KindGit {
		if why := unsharedRefName(s.Ref); why != "" {
			return nil, refuse(why)
		}
	}
	st, names, err := gitengine.TrackedUnder(root, real)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot tell which of its files git tracks, so nothing of it is read: %w", safetext.Quote(s.Source), err)
	}
	if !st.InRepository {
		return nil, nil // no git, no teammates' commits: the manifest is the user's
	}
	if kind == KindDir {
		switch {
		case len(names) == 0:
			return nil, refuse("is not tracked by git, nor is anything in it (new, ignored or excluded)")
		case len(names) == 1 && names[0] == "":
			if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
				return nil, nil // one tracked file
			}
			// A folder the project's index holds as one entry: a
			// submodule (gitlink). What its own git tracks is shared.
			sub, subNames, err := gitengine.TrackedUnder(real, real)
			if err != nil {
				return nil, fmt.Errorf("%s: cannot tell which of its files git tracks, so nothing of it is read: %w", safetext.Quote(s.Source), err)
			}
			if !sub.InRepository || sub.Root == st.Root || len(subNames) == 0 {
				return nil, refuse("is a submodule of which git tracks nothing here")
			}
			return newTracked(subNames), nil
		}
		return newTracked(names), nil
	}
	if slash != "." && len(names) == 0 {
		return nil, refuse("is a git repository inside the project that the project's git does not track (not a submodule: ignored or new)")
	}
	if why := unsharedRef(real, s.Ref); why != "" {
		return nil, refuse(why)
	}
	return nil, nil
}

// unsharedRef says why ref of the git repository at dir (inside the
// project) is not shared with a clone, or "" when it is: a tag, a branch
// that a remote-tracking branch (refs/remotes/REMOTE/NAME) says a remote
// has, "" or HEAD when HEAD is such a branch, or a full commit id (only
// someone who had the commit can name it). refs/stash (your stashed
// edits), any other name under refs/ but refs/heads, refs/tags and
// refs/remotes, a branch no remote has and an abbreviated commit id (it
// can match any object, a dropped stash too) are not. A ref that names
// nothing in the repository is left to install to report; a repository
// ctx cannot open is not shared (fail closed).
func unsharedRef(dir, ref string) string {
	ref = strings.TrimSpace(ref)
	q := safetext.Quote(ref)
	if gitengine.IsCommitID(ref) && len(ref) == 40 || isFullSHA256(ref) {
		return ""
	}
	repo, err := gitengine.PlainOpen(dir, false)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return "is not a git repository (no .git in it, and not a bare repository), so ctx cannot tell whether its ref is shared: name a repository's folder as a git source, or a folder of documents as a dir source"
	}
	if err != nil {
		// Fail closed: a ref ctx cannot look up is not known to be
		// shared (this was "" until left19; install failed to open it
		// too, but that was luck, not a rule).
		return "is a repository on this machine that ctx cannot open (" + safetext.Clip(err.Error(), 0) + "), so it cannot tell whether its ref is shared: fix the repository (`git status` in it says what is wrong)"
	}
	has := func(name string) bool {
		_, err := repo.Storer.Reference(plumbing.ReferenceName(name))
		return err == nil
	}
	branch := ""
	switch {
	case ref == "" || ref == "HEAD":
		head, err := repo.Storer.Reference(plumbing.HEAD)
		if err != nil || head.Type() != plumbing.SymbolicReference {
			return "names HEAD of a repository on this machine that is on no branch: only a branch a remote has, a tag or a full commit id is shared"
		}
		branch = strings.TrimPrefix(head.Target().String(), "refs/heads/")
	case strings.HasPrefix(ref, "refs/tags/"), strings.HasPrefix(ref, "refs/remotes/"):
		return ""
	case strings.HasPrefix(ref, "refs/heads/"):
		branch = strings.TrimPrefix(ref, "refs/heads/")
	case has("refs/tags/" + ref):
		return ""
	case has("refs/heads/" + ref):
		branch = ref
	case gitengine.IsCommitID(ref):
		return "names the abbreviated commit id " + q + " of a repository on this machine (it can match any object, your dropped stashes too): give the full commit id"
	default:
		return ""
	}
	tracking, holds, cut := remoteHolds(repo, branch)
	switch {
	case holds:
		return ""
	case cut:
		// The walk's bound, not a finding: say so (own21; it said the
		// tip had commits no remote has, which may be false).
		return "names branch " + safetext.Quote(branch) + " of a repository on this machine, whose tip ctx did not reach within " + strconv.Itoa(maxTipWalk) + " commits below " + safetext.Clip(strings.Join(tracking, ", "), 0) + ": it is far behind, or has commits no remote has; bring it up to date (`git pull`), or name a tag or a full commit id"
	case len(tracking) > 0:
		return "names branch " + safetext.Quote(branch) + " of a repository on this machine, whose tip has commits no remote has (" + safetext.Clip(strings.Join(tracking, ", "), 0) + " does not hold it): unpushed work is not shared"
	}
	return "names branch " + safetext.Quote(branch) + " of a repository on this machine, which no remote has (no refs/remotes/*/" + safetext.Clip(branch, 0) + "): unpushed work is not shared"
}

// maxTipWalk bounds the commits remoteHolds reads below a remote-tracking
// branch while it looks for the local tip (a variable for tests). Git's
// own `branch --contains` has no bound; this one keeps a check that runs
// on every read of the manifest quick, and fails closed: a tip not
// reached within it is not shared, and the message says it was the
// bound (own21).
var maxTipWalk = 10_000

// remoteHolds names the remote-tracking branches of branch in repo
// (REMOTE/branch) and reports whether one of them holds the local
// branch's tip: points at it, or at a commit it is an ancestor of (the
// local branch is behind), within maxTipWalk commits. A branch with
// commits no remote has is ahead: its tip is unpushed work (round 18's
// leftover, red20: before, any remote-tracking branch of that name made
// the local tip shared). A local branch that is missing (the ref names
// nothing) is left to install to report, as held. cut reports that the
// walk stopped at maxTipWalk with commits left to read.
func remoteHolds(repo *git.Repository, branch string) (names []string, holds, cut bool) {
	local, err := repo.Storer.Reference(plumbing.ReferenceName("refs/heads/" + branch))
	if err != nil {
		return nil, remoteHas(repo, branch), false
	}
	iter, err := repo.Storer.IterReferences()
	if err != nil {
		return nil, false, false
	}
	var tracking []plumbing.Hash
	_ = iter.ForEach(func(r *plumbing.Reference) error {
		rest, ok := strings.CutPrefix(r.Name().String(), "refs/remotes/")
		if _, name, ok2 := strings.Cut(rest, "/"); ok && ok2 && name == branch && r.Type() == plumbing.HashReference {
			tracking = append(tracking, r.Hash())
			names = append(names, rest)
		}
		return nil
	})
	tip := local.Hash()
	for _, h := range tracking {
		if h == tip {
			return names, true, false
		}
	}
	// Behind? Walk below the remote-tracking tips for the local one.
	seen := map[plumbing.Hash]bool{}
	queue := append([]plumbing.Hash(nil), tracking...)
	for len(queue) > 0 && len(seen) < maxTipWalk {
		h := queue[0]
		queue = queue[1:]
		if seen[h] {
			continue
		}
		seen[h] = true
		if h == tip {
			return names, true, false
		}
		c, err := repo.CommitObject(h)
		if err != nil {
			continue // a shallow clone's edge
		}
		queue = append(queue, c.ParentHashes...)
	}
	for _, h := range queue {
		if !seen[h] {
			return names, false, true // stopped at the bound
		}
	}
	return names, false, false
}

// unsharedRefName is unsharedRef's rule that needs no repository: a name
// under refs/ but refs/heads, refs/tags and refs/remotes (refs/stash, your
// stashed edits; refs/notes, refs/original…) is never shared. Checked
// whether or not the project is a git repository.
func unsharedRefName(ref string) string {
	ref = strings.TrimSpace(ref)
	if strings.HasPrefix(ref, "refs/") && !strings.HasPrefix(ref, "refs/heads/") && !strings.HasPrefix(ref, "refs/tags/") && !strings.HasPrefix(ref, "refs/remotes/") {
		return "names ref " + safetext.Quote(ref) + " of a repository on this machine (refs/stash is your stashed edits): only a branch a remote has, a tag or a full commit id is shared"
	}
	return ""
}

// remoteHas reports whether some refs/remotes/REMOTE/branch exists in repo.
func remoteHas(repo *git.Repository, branch string) bool {
	iter, err := repo.Storer.IterReferences()
	if err != nil {
		return false
	}
	found := false
	_ = iter.ForEach(func(r *plumbing.Reference) error {
		rest, ok := strings.CutPrefix(r.Name().String(), "refs/remotes/")
		if _, name, ok2 := strings.Cut(rest, "/"); ok && ok2 && name == branch {
			found = true
			return storer.ErrStop
		}
		return nil
	})
	return found
}

// isFullSHA256 reports whether ref is a full SHA-256 commit id.
func isFullSHA256(ref string) bool {
	if len(ref) != 64 {
		return false
	}
	for _, c := range ref {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// checkInsideAllow checks context.local.json's "allowInside" paths: clean,
// slash-separated, relative, not leaving the project.
func checkInsideAllow(a InsideAllow) string {
	p := a.Path
	if p == "" || strings.IndexByte(p, 0) >= 0 || strings.Contains(p, "\\") || path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") {
		return safetext.Quote(p) + " is not a clean slash path inside the project (\".\" for the project itself): `ctx install --allow-outside ALIAS` writes it"
	}
	return ""
}

// InsideAllowFor is the allowance (AllowInside) that lets the committed
// spec s read, inside the project, what git does not share: ok is false
// when s needs none (not inside the project, a project outside git, a
// source that is refused for another reason, or, for a dir source, one of
// which git tracks everything there can be: a single tracked file). `ctx
// add` records it for the user who typed the path, and `ctx install
// --allow-outside ALIAS` for one who allows a teammate's entry.
func (p Project) InsideAllowFor(s PackageSpec) (InsideAllow, bool) {
	s.Local = false
	_, tracked, err := p.checkSource(nil, s)
	if tracked == nil && !errors.Is(err, ErrUntracked) {
		return InsideAllow{}, false
	}
	real, err := filepath.EvalSymlinks(p.SourcePath(s.Source))
	if err != nil {
		return InsideAllow{}, false
	}
	root, err := filepath.EvalSymlinks(p.root)
	if err != nil {
		root = p.root
	}
	rel, ok := naming.RelIn(root, real)
	if !ok {
		return InsideAllow{}, false
	}
	return insideAllowFor(s, rel), true
}

// GitIndexFile is the path of the git index of the project's work tree
// ("" outside git): what a committed dir source serves changes with it
// (the MCP server re-reads the manifest when its stamp moves).
func (p Project) GitIndexFile() string { return gitengine.IndexFile(p.root) }

// GitIndexWatch is the git index file of a project, for a long-lived
// reader (ctx mcp's server and index Reader) that stats it at each call:
// kept once found, and looked for again while there is none (a stat of
// .git per folder up to the root), so that a `git init` under a running
// server is seen and a commit in the new repository is a change of the
// index's stamp (trust23: a project outside git when the server started
// was re-checked only when meta.json changed).
type GitIndexWatch struct {
	p    Project
	mu   sync.Mutex
	file string
}

// WatchGitIndex returns the GitIndexWatch of p's work tree.
func (p Project) WatchGitIndex() *GitIndexWatch { return &GitIndexWatch{p: p} }

// File is the project's git index file now ("" outside git).
func (w *GitIndexWatch) File() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.file == "" {
		w.file = w.p.GitIndexFile()
	}
	return w.file
}
