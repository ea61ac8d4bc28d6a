package workspace

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/audience"
	"github.com/ctx-dev/ctx/changes"
	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"
)

// ChangesOptions configure Changes.
type ChangesOptions struct {
	// Aliases limits the answer to these packages; none = every package.
	Aliases []string
	// Since is a revision of the project's own git history (HEAD~1, a tag,
	// a commit, ORIG_HEAD, a date YYYY-MM-DD: gitengine.ReadAtRevision)
	// whose lock is the old side. "" = the lock as last committed when the
	// lock differs from it, else the lock before ctx last rewrote it.
	Since string
	// SinceName is how the caller's user gives Since, in errors and notes:
	// "--since" (ctx changes) when "", "since" (the MCP tool's argument).
	SinceName string
	// LastChange makes the old side the lock before ctx last changed it
	// (what an update just replaced), whatever git has; Since must be "".
	LastChange bool
	// Limits bound the diffs.
	Limits changes.Limits

	// states are the packages' states the caller holds in memory (an
	// update's, as it staged them), by alias: not read again.
	states map[string]*pkgState
}

// previousLock is what writeLock keeps of the lock it replaces
// (project.PreviousLockName): the old side of `ctx changes` after an
// update, before the new lock is committed.
type previousLock struct {
	// After is the sha256 of the lock written in its place: the record
	// is about the lock on disk only while the lock is that one.
	After string          `json:"after"`
	Saved time.Time       `json:"saved"`
	Lock  json.RawMessage `json:"lock"`
}

func lockSum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// keepPrevious records the lock on disk before data replaces it. It is a
// convenience of `ctx changes`: failing only loses that record. So it is
// written as a cache (temp + rename, no fsync: two syncs off every
// update's path): after a crash the record is the one before, or torn,
// and oldLock takes a record that does not parse, or was kept for
// another lock (After), as none.
func (w *Workspace) keepPrevious(data []byte) {
	old, err := w.proj.ReadLockData()
	if err != nil || bytes.Equal(old, data) || !json.Valid(old) {
		return
	}
	rec, err := json.Marshal(previousLock{After: lockSum(data), Saved: now().UTC().Truncate(time.Second), Lock: old})
	if err != nil {
		return
	}
	if w.fs.MkdirAll(w.path(project.StateDir), 0o755) == nil {
		_ = w.fs.WriteCacheAtomic(filepath.Join(project.StateDir, project.PreviousLockName), rec, 0o644)
	}
}

// oldLock finds the old side of Changes: the lock at since in the
// project's git history, or by default the committed lock when the lock
// on disk differs from it, else the lock before ctx last rewrote it.
// nil with a note when there is none.
func (w *Workspace) oldLock(cur []byte, o ChangesOptions) (*lockfile.Lock, *changes.Set, error) {
	since, last := o.Since, o.LastChange
	name := cmp.Or(o.SinceName, "--since")
	set := &changes.Set{}
	lockPath := w.path(project.LockName)
	parse := func(what string, data []byte) (*lockfile.Lock, error) {
		l, err := project.ParseLock(what, data)
		if err != nil {
			return nil, fmt.Errorf("the lock %s: %w", what, err)
		}
		return l, nil
	}
	if since != "" {
		at, err := gitengine.ReadAtRevision(w.root, lockPath, since)
		switch {
		case errors.Is(err, gitengine.ErrNotAtRevision):
			set.Since = since
			return &lockfile.Lock{Packages: map[string]lockfile.Entry{}}, set, nil // every package is new since
		case errors.Is(err, gitengine.ErrNoRepository):
			// The agent21 audit: the note below sent an agent here, and
			// this said only what was wrong.
			return nil, nil, fmt.Errorf("%s: %w, so it has no history to read %s from: leave %s out (ctx then compares with the lock it kept before its last change)",
				name, err, name, name)
		case err != nil:
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		set.Since, set.SinceCommit = since, at.Commit
		l, err := parse(fmt.Sprintf("at %s (%s)", safetext.Quote(since), at.Commit[:12]), at.Data)
		return l, set, err
	}
	var at *gitengine.AtRevision
	var err error
	if !last {
		at, err = gitengine.ReadAtRevision(w.root, lockPath, "HEAD")
	}
	if err == nil && at != nil && !sameLock(at.Data, cur) {
		set.Since, set.SinceCommit = "HEAD (the lock as last committed)", at.Commit
		l, err := parse("at HEAD", at.Data)
		return l, set, err
	}
	data, rerr := boundedfile.ReadFile(w.path(project.StateDir, project.PreviousLockName), project.MaxStateBytes)
	var rec previousLock
	if rerr == nil && json.Unmarshal(data, &rec) == nil && rec.After == lockSum(cur) {
		set.Since = "the lock before ctx last changed it (" + rec.Saved.Format("2006-01-02 15:04 UTC") + ")"
		l, err := parse("before the last update", rec.Lock)
		return l, set, err
	}
	set.Since = "none"
	set.Note = "no earlier lock to compare with: the lock is as last committed and ctx kept none from before it; name one with " + name + " (HEAD~1, a tag, a date)"
	switch {
	case errors.Is(err, gitengine.ErrNoCommits):
		set.Note = "no earlier lock to compare with: the project's git repository has no commits yet, and ctx kept no lock from before its last change; once the lock is committed, " + name + " names one (HEAD~1, a tag, a date)"
	case errors.Is(err, gitengine.ErrNoRepository):
		// No history for since to name (the agent21 audit: this note sent
		// an agent to since, which failed).
		set.Note = "no earlier lock to compare with: ctx kept none from before the lock's last change, and the project is not in a git repository (" + name + " reads its history); the next install or update that changes the lock keeps one"
	case err != nil && !errors.Is(err, gitengine.ErrNotAtRevision):
		set.Note += " (git history: " + err.Error() + ")"
	}
	return nil, set, nil
}

// sameLock reports whether two locks say the same (their canonical forms
// are equal).
func sameLock(a, b []byte) bool {
	la, errA := project.ParseLock("a", a)
	lb, errB := project.ParseLock("b", b)
	if errA != nil || errB != nil {
		return bytes.Equal(a, b)
	}
	ma, _ := la.Marshal()
	mb, _ := lb.Marshal()
	return bytes.Equal(ma, mb)
}

// Changes lists what changed in the installed packages' documents between
// an old lock (ChangesOptions.Since) and the lock now: per package, the
// documents added, removed or renamed and a modified document's sections
// (package changes). Both sides are read from the shared caches: a git
// package's trees by their ids (nothing fetched when the cache has them,
// else one request per tree), an https package's snapshots (the old one
// only if this machine still has it). A dir source is live: it has no
// history, and says so.
func (w *Workspace) Changes(ctx context.Context, o ChangesOptions) (*changes.Set, error) {
	cur, err := w.proj.ReadLockData()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	now := &lockfile.Lock{Packages: map[string]lockfile.Entry{}}
	if err == nil {
		if now, err = w.proj.ReadLock(); err != nil {
			return nil, err
		}
	}
	old, set, err := w.oldLock(cur, o)
	if err != nil {
		return nil, err
	}
	aliases := map[string]bool{}
	for a := range now.Packages {
		aliases[a] = true
	}
	if old != nil {
		for a := range old.Packages {
			aliases[a] = true
		}
	}
	dirs := map[string]bool{}
	for _, s := range w.manifest.Packages {
		if s.KindOf() == project.KindDir {
			dirs[s.Alias] = true
			aliases[s.Alias] = true
		}
	}
	if len(o.Aliases) > 0 {
		want := map[string]bool{}
		for _, a := range o.Aliases {
			if !aliases[a] {
				return nil, unknownPackages([]string{a}, slices.Collect(maps.Keys(aliases)), "the lock, then or now, nor in "+project.Rel(project.ManifestName))
			}
			want[a] = true
		}
		aliases = want
	}
	names := slices.Sorted(maps.Keys(aliases))
	for _, a := range names {
		if dirs[a] {
			set.Packages = append(set.Packages, changes.Package{Alias: a, Kind: project.KindDir, Status: changes.StatusLive, Documents: []changes.Document{}})
			continue
		}
		if old == nil {
			continue
		}
		var oe, ne *lockfile.Entry
		if e, ok := old.Packages[a]; ok {
			oe = &e
		}
		if e, ok := now.Packages[a]; ok {
			ne = &e
		}
		p, err := w.packageChanges(ctx, a, oe, ne, o.Limits, o.states[a])
		if err != nil {
			return nil, err
		}
		set.Packages = append(set.Packages, p)
	}
	// Unchanged packages are counted, not listed, unless asked for by
	// name: after a one-package update of a project of fifty, one row.
	if len(o.Aliases) == 0 {
		kept := set.Packages[:0]
		for _, p := range set.Packages {
			if p.Status == changes.StatusUnchanged {
				set.Unchanged++
				continue
			}
			kept = append(kept, p)
		}
		set.Packages = kept
	}
	if set.Packages == nil {
		set.Packages = []changes.Package{}
	}
	if old == nil && len(names) > 0 && !slices.ContainsFunc(names, func(a string) bool { return !dirs[a] }) {
		// Only dir sources: nothing is locked, and no earlier lock
		// would list a change (the agent21 audit: the note sent an
		// agent to since, for packages that have no history).
		set.Note = "every package asked for is a dir source, read live: nothing is locked, so there is no earlier version to compare with"
	}
	return set, nil
}

// errUnavailable marks a side whose files cannot be had: the package's
// changes are unknown, the others are still listed.
type errUnavailable struct{ why string }

func (e errUnavailable) Error() string { return e.why }

// packageChanges compares the package alias at oe and at ne; st is its
// state when the caller holds it (else it is read here, once, when a side
// is a git package's).
func (w *Workspace) packageChanges(ctx context.Context, alias string, oe, ne *lockfile.Entry, lim changes.Limits, st *pkgState) (changes.Package, error) {
	p := changes.Package{Alias: alias, Status: changes.StatusChanged, Documents: []changes.Document{}}
	if oe != nil {
		p.Kind, p.OldRev = oe.Kind, oe.Rev
	}
	if ne != nil {
		p.Kind, p.NewRev = ne.Kind, ne.Rev
	}
	if oe != nil && ne != nil && oe.Kind == ne.Kind && oe.Rev == ne.Rev && oe.Tree == ne.Tree && oe.Source == ne.Source && oe.Path == ne.Path && oe.Audience == ne.Audience {
		p.Status = changes.StatusUnchanged
		return p, nil
	}
	if st == nil && ((oe != nil && oe.Kind == project.KindGit) || (ne != nil && ne.Kind == project.KindGit)) {
		st, _ = w.readState(alias)
	}
	oldFiles, newFiles, done, err := w.sideFiles(ctx, alias, oe, ne, knownSizes(st))
	defer done()
	if err != nil {
		var u errUnavailable
		if errors.As(err, &u) || ctx.Err() == nil {
			p.Status, p.Note = changes.StatusUnavailable, safetext.Clip(err.Error(), 400)
			return p, nil
		}
		return p, err
	}
	oldFiles = withhold(oldFiles, newFiles, oe)
	newFiles = withhold(newFiles, oldFiles, ne)
	docs, err := changes.Compare(oldFiles, newFiles, lim)
	if err != nil {
		p.Status, p.Note = changes.StatusUnavailable, safetext.Clip(err.Error(), 400)
		return p, nil
	}
	p.Documents = docs
	switch {
	case oe == nil:
		p.Status = changes.StatusAdded
	case ne == nil:
		p.Status = changes.StatusRemoved
	case len(docs) == 0:
		p.Status = changes.StatusUnchanged
	}
	return p, nil
}

// knownSizes are the sizes of the blobs ctx installed, as st recorded
// them (nil without a state): the size limit need not read them from the
// store.
func knownSizes(st *pkgState) map[string]int64 {
	if st == nil {
		return nil
	}
	sizes := make(map[string]int64, len(st.Files))
	for _, f := range st.Files {
		if f.Mode.IsRegular() {
			sizes[f.Blob] = f.Size
		}
	}
	return sizes
}

// sideFiles lists the files of the package versions oe and ne pin (either
// may be nil) for packageChanges; done releases what the listing holds
// (call it once the files are read, also after an error). Two git trees
// are listed against each other: only the files that differ (what
// Compare and withhold look at), no folder the two share walked. Both
// sides are, or neither.
func (w *Workspace) sideFiles(ctx context.Context, alias string, oe, ne *lockfile.Entry, sizes map[string]int64) (oldFiles, newFiles []changes.File, done func(), err error) {
	var dones []func()
	done = func() {
		for _, d := range dones {
			d()
		}
	}
	read := func(e *lockfile.Entry, against string) ([]changes.File, string, bool, error) {
		if e == nil {
			return nil, "", false, nil
		}
		files, tree, diffed, d, err := w.entryFiles(ctx, alias, *e, sizes, against)
		if err != nil {
			return nil, "", false, err
		}
		dones = append(dones, d)
		return files, tree, diffed, nil
	}
	var oldAgainst, newAgainst string
	if oe != nil && ne != nil && oe.Kind == project.KindGit && ne.Kind == project.KindGit {
		oldAgainst, newAgainst = ne.Tree, oe.Tree
	}
	oldFiles, oldTree, oldDiffed, err := read(oe, oldAgainst)
	if err != nil {
		return nil, nil, done, err
	}
	newFiles, newTree, newDiffed, err := read(ne, newAgainst)
	if err != nil {
		return nil, nil, done, err
	}
	// Each side was listed against the tree the other has (not only the
	// one its lock entry names), or neither was: a store that lacked
	// the other's tree listed its side whole, and the other is read
	// whole too.
	if oldDiffed && newDiffed && oldTree == newAgainst && newTree == oldAgainst {
		return oldFiles, newFiles, done, nil
	}
	if oldDiffed {
		if oldFiles, _, _, err = read(oe, ""); err != nil {
			return nil, nil, done, err
		}
	}
	if newDiffed {
		if newFiles, _, _, err = read(ne, ""); err != nil {
			return nil, nil, done, err
		}
	}
	return oldFiles, newFiles, done, nil
}

// withhold leaves out of files the documents audience rules kept out of
// the install e describes (its Audience is the project name they were
// applied for): only those whose content differs from other's, since the
// others are not listed anyway.
func withhold(files, other []changes.File, e *lockfile.Entry) []changes.File {
	if e == nil || e.Audience == "" {
		return files
	}
	ids := make(map[string]string, len(other))
	for _, f := range other {
		ids[f.Path] = f.ID
	}
	out := files[:0:0]
	for _, f := range files {
		if id, ok := ids[f.Path]; (!ok || id != f.ID) && markdown.IsDocument(f.Path) {
			content, err := f.Read()
			if err != nil {
				continue
			}
			if r, err := audience.Read(f.Path, content); err != nil || !r.Allows(e.Audience) {
				continue // withheld (fail closed, as at install)
			}
		}
		out = append(out, f)
	}
	return out
}

// entryFiles lists the files of the package version e pins, from the
// caches, without touching the package folder. sizes are the blobs' sizes
// ctx recorded (packageChanges), if any.
//
// With against (another tree's id), a git package's files are listed
// only where they differ from that tree's, when the cache holds it
// (diffed; gitengine's FetchRequest.Against); tree is the folder's tree
// as found.
func (w *Workspace) entryFiles(ctx context.Context, alias string, e lockfile.Entry, sizes map[string]int64, against string) (files []changes.File, tree string, diffed bool, done func(), err error) {
	switch e.Kind {
	case project.KindGit:
		req := gitengine.FetchRequest{URL: w.fetchURL(e.Source), Commit: e.Rev, Ref: e.Ref, Path: e.Path, Tree: e.Tree, Against: against}
		if sizes != nil {
			req.KnownSize = func(_, blob string) (int64, bool) {
				size, ok := sizes[blob]
				return size, ok
			}
		}
		var spec *project.PackageSpec
		if s, ok := w.manifest.Spec(alias); ok && s.Source == e.Source {
			spec = &s
		}
		tr, err := w.gitEngine(w.engine(), alias, spec, e.Source).ReadTree(ctx, req)
		if err != nil {
			return nil, "", false, nil, err
		}
		files := make([]changes.File, len(tr.Files))
		for i, f := range tr.Files {
			id := f.BlobID
			files[i] = changes.File{Path: f.Path, ID: id, Read: func() ([]byte, error) { return tr.Read(id) }}
		}
		return files, tr.TreeID, tr.Diffed, tr.Close, nil
	case project.KindHTTPS:
		files, done, err := w.httpsFiles(ctx, alias, e)
		return files, "", false, done, err
	}
	return nil, "", false, nil, errUnavailable{fmt.Sprintf("ctx cannot read a %s source's history", e.Kind)}
}

// httpsFiles writes the cached snapshot e pins into a temporary folder, as
// an install would, and lists its files.
func (w *Workspace) httpsFiles(ctx context.Context, alias string, e lockfile.Entry) ([]changes.File, func(), error) {
	snap, err := w.web().Cached(e.Rev)
	if err != nil {
		return nil, nil, errUnavailable{fmt.Sprintf("the fetch %s is not in this machine's cache: an https source keeps no history but what was fetched here", naming.ShortRev(e.Rev, 12))}
	}
	tmp, err := os.MkdirTemp("", "ctx-changes-")
	if err != nil {
		return nil, nil, err
	}
	done := func() { _ = os.RemoveAll(tmp) }
	stage := filepath.Join(tmp, "s")
	t := &task{alias: alias, target: &e, want: e.Rev, carry: snap}
	if s, ok := w.manifest.Spec(alias); ok {
		t.spec = &s
	}
	if _, err := w.fetchTask(ctx, e.Kind, t, stage); err != nil {
		done()
		return nil, nil, err
	}
	docs, err := markdown.Walk(os.DirFS(stage), nil)
	if err != nil {
		done()
		return nil, nil, err
	}
	files := make([]changes.File, 0, len(docs))
	for _, d := range docs {
		content, err := os.ReadFile(filepath.Join(stage, filepath.FromSlash(d)))
		if err != nil {
			done()
			return nil, nil, err
		}
		files = append(files, changes.File{Path: d, ID: gitengine.HashBlob(content), Read: func() ([]byte, error) { return content, nil }})
	}
	return files, done, nil
}

// ChangesSummary is Changes' one line per package that changed, for the
// end of an update: "api: 3 documents, 5 sections changed; run ctx
// changes api". Packages that did not change are left out.
func ChangesSummary(set *changes.Set) []string {
	var out []string
	for _, p := range set.Packages {
		if p.Status == changes.StatusUnchanged || p.Status == changes.StatusLive {
			continue
		}
		line := p.Alias + ": " + p.Summary()
		if len(p.Documents) > 0 {
			line += "; run ctx changes " + p.Alias
		}
		out = append(out, line)
	}
	return out
}

// NoteChanges records set's changed packages for INDEX.md's "Recently
// changed" part and renders INDEX.md again (indexer.NoteRecent, the
// owner of INDEX.md). A set with nothing changed leaves it as it is.
func (w *Workspace) NoteChanges(ctx context.Context, set *changes.Set) error {
	_, err := indexer.NoteRecent(ctx, w.Dir(), recentChanges(set), w.indexOptions(indexer.Options{}))
	return err
}

// recentChanges is set's changed packages as INDEX.md's "Recently
// changed" records them.
func recentChanges(set *changes.Set) []indexer.RecentChange {
	var recent []indexer.RecentChange
	at := now().UTC()
	for _, p := range set.Packages {
		if len(p.Documents) == 0 {
			continue
		}
		rc := indexer.RecentChange{Alias: p.Alias, From: p.OldRev, To: p.NewRev, When: at, Summary: p.Summary()}
		for _, d := range p.Documents {
			switch {
			case d.Change == changes.Renamed:
				rc.Docs = append(rc.Docs, d.Path+" (was "+d.From+")")
			case len(d.Sections) > 0:
				var hs []string
				for _, s := range d.Sections {
					if len(s.Trail) > 0 {
						hs = append(hs, s.Trail[len(s.Trail)-1])
					}
				}
				rc.Docs = append(rc.Docs, d.Path+": "+strings.Join(hs, "; "))
			default:
				rc.Docs = append(rc.Docs, d.Path+" "+d.Change)
			}
		}
		recent = append(recent, rc)
	}
	return recent
}
